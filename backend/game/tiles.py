"""The double-six set as small ints, with the lookup tables the hot path needs.

A tile is an int 0..27; a hand is a 28-bit mask of tiles. Tables are built once at import so
that legal-move generation and scoring are index lookups, not loops.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

TILE_COUNT = 28
ALL_TILES_MASK = (1 << TILE_COUNT) - 1

# Tiles in a fixed order: 0:0, 1:0, 1:1, 2:0, ... 6:6 (high half first), so 6:6 is tile 27.
_PAIRS: list[tuple[int, int]] = [(high, low) for high in range(7) for low in range(high + 1)]

HIGH: tuple[int, ...] = tuple(high for high, _ in _PAIRS)
"""The larger half of each tile."""
LOW: tuple[int, ...] = tuple(low for _, low in _PAIRS)
"""The smaller half of each tile."""
PIPS: tuple[int, ...] = tuple(high + low for high, low in _PAIRS)
"""Pip total of each tile."""
IS_DOUBLE: tuple[bool, ...] = tuple(high == low for high, low in _PAIRS)
BIT: tuple[int, ...] = tuple(1 << tile for tile in range(TILE_COUNT))
NAMES: tuple[str, ...] = tuple(f"{high}:{low}" for high, low in _PAIRS)
"""Canonical name of each tile, high half first: ``"6:4"``."""

_BY_PAIR: dict[tuple[int, int], int] = {}
for _tile, (_high, _low) in enumerate(_PAIRS):
    _BY_PAIR[(_high, _low)] = _tile
    _BY_PAIR[(_low, _high)] = _tile

SUIT: tuple[int, ...] = tuple(
    sum(BIT[tile] for tile in range(TILE_COUNT) if pip in (HIGH[tile], LOW[tile]))
    for pip in range(7)
)
"""Mask of the seven tiles that carry ``pip`` on either half."""

EITHER_SUIT: tuple[tuple[int, ...], ...] = tuple(
    tuple(SUIT[left] | SUIT[right] for right in range(7)) for left in range(7)
)
"""Mask of tiles that fit an end showing ``left`` or an end showing ``right``."""

OTHER_HALF: tuple[tuple[int, ...], ...] = tuple(
    tuple(
        (LOW[tile] if HIGH[tile] == pip else HIGH[tile] if LOW[tile] == pip else -1)
        for pip in range(7)
    )
    for tile in range(TILE_COUNT)
)
"""``OTHER_HALF[tile][pip]``: the pip a tile leaves open when joined to ``pip``; -1 if it can't."""

DOUBLES_MASK = sum(BIT[tile] for tile in range(TILE_COUNT) if IS_DOUBLE[tile])
DOUBLE_SIX = _BY_PAIR[(6, 6)]
DOUBLE_BLANK = _BY_PAIR[(0, 0)]


def tile(high: int, low: int) -> int:
    """The tile with these two halves, in either order."""
    try:
        return _BY_PAIR[(high, low)]
    except KeyError:
        raise ValueError(f"no tile {high}:{low} in a double-six set") from None


def parse_tile(text: str) -> int:
    """Parse ``"6:4"`` (either order) into a tile."""
    parts = text.strip().split(":")
    if len(parts) != 2 or not all(part.isdigit() for part in parts):
        raise ValueError(f"not a tile: {text!r} (expected e.g. '6:4')")
    return tile(int(parts[0]), int(parts[1]))


def tiles_of(mask: int) -> Iterator[int]:
    """The tiles in a hand mask, lowest first."""
    while mask:
        low_bit = mask & -mask
        yield low_bit.bit_length() - 1
        mask ^= low_bit


def mask_of(tiles: Iterable[int]) -> int:
    """The hand mask holding exactly these tiles."""
    mask = 0
    for t in tiles:
        mask |= BIT[t]
    return mask


# Pip totals of every 7-bit slice of a hand mask: four lookups instead of a loop over tiles.
_PIPS_BY_SLICE: tuple[tuple[int, ...], ...] = tuple(
    tuple(sum(PIPS[7 * part + i] for i in range(7) if chunk >> i & 1) for chunk in range(128))
    for part in range(4)
)


PIPS_BY_SLICE = _PIPS_BY_SLICE
"""``PIPS_BY_SLICE[k][mask >> 7 * k & 127]``: for loops that inline ``pips_of``."""

_PAIR_MASKS: tuple[tuple[int, ...], ...] = tuple(
    tuple(BIT[first] | BIT[second] for second in range(TILE_COUNT)) for first in range(TILE_COUNT)
)


def hand_masks(hands: Iterable[Sequence[int]]) -> list[int]:
    """The mask of each hand of distinct tiles (one per deal, so worth a fast path)."""
    # A seven-tile hand (every preset deals seven) is three pair lookups and one bit: several
    # times cheaper than summing the bits through map(), which calls a method per tile.
    pairs, bit = _PAIR_MASKS, BIT
    try:
        return [pairs[a][b] | pairs[c][d] | pairs[e][f] | bit[g] for a, b, c, d, e, f, g in hands]
    except ValueError:  # a hand of another size
        return [mask_of(hand) for hand in hands]


def pips_of(mask: int) -> int:
    """Pip total of the tiles in a hand mask."""
    a, b, c, d = _PIPS_BY_SLICE
    return a[mask & 127] + b[mask >> 7 & 127] + c[mask >> 14 & 127] + d[mask >> 21]


def rank(t: int) -> tuple[int, int]:
    """Ordering for "highest tile": pip total, then the larger half (6:3 beats 5:4)."""
    return (PIPS[t], HIGH[t])
