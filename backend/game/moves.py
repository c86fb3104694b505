"""Moves (play a tile on an end, draw, pass), their text form, and the engine's narrow error."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from backend.game.tiles import BIT, NAMES, OTHER_HALF, SUIT, TILE_COUNT, parse_tile, tiles_of

MoveKind = Literal["play", "draw", "pass"]

LEFT = 0
RIGHT = 1
SIDE_NAMES = ("L", "R")

# -- the line's two open ends as one number ---------------------------------------------------
# The engine keeps the ends as ``7 * left + right`` (0..48), or EMPTY_LINE before the opening,
# so that what a play leaves open, and what fits the ends, are single table lookups.

EMPTY_LINE = 49
"""The ends of a hand whose opening tile is not laid yet."""
ENDS: tuple[tuple[int, ...], ...] = tuple(
    tuple(7 * left + right for right in range(7)) for left in range(7)
)
"""``ENDS[left][right]``: the ends as one number."""
LEFT_END: tuple[int, ...] = (*(ends // 7 for ends in range(EMPTY_LINE)), -1)
RIGHT_END: tuple[int, ...] = (*(ends % 7 for ends in range(EMPTY_LINE)), -1)
"""``LEFT_END[ends]``, ``RIGHT_END[ends]``: each open end's pip (-1 before the opening)."""
FITS: tuple[int, ...] = (*(SUIT[ends // 7] | SUIT[ends % 7] for ends in range(EMPTY_LINE)), 0)
"""``FITS[ends]``: mask of the tiles that fit either end."""


def _joined(t: int, side: int, ends: int) -> int:
    """The ends after playing tile ``t`` on ``side``, or -1 if it does not fit there."""
    if ends == EMPTY_LINE:
        return -1  # the opening is not a join
    left, right = divmod(ends, 7)
    if side == LEFT:
        new = OTHER_HALF[t][left]
        return -1 if new < 0 else 7 * new + right
    new = OTHER_HALF[t][right]
    return -1 if new < 0 else 7 * left + new


JOINS: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(
        tuple(_joined(t, side, ends) for ends in range(EMPTY_LINE + 1)) for t in range(TILE_COUNT)
    )
    for side in (LEFT, RIGHT)
)
"""``JOINS[side][tile][ends]``: the ends after that play, or -1 if the tile does not fit there
(always -1 on an empty line: the opening is not a join)."""
_NO_JOINS = (-1,) * (EMPTY_LINE + 1)


@dataclass(frozen=True, slots=True)
class Move:
    """One move by the seat whose turn it is. ``tile``/``side`` only matter for plays."""

    kind: MoveKind
    tile: int = -1
    side: int = LEFT
    # What the engine's usual play reads, set on the canonical plays (``PLAYS``) only: the
    # tile's bit, ``JOINS[side][tile]``, and the history entry ``(seat, move)`` of each seat.
    # Any other instance keeps these defaults, which send it down the fully checked path.
    bit: int = field(default=0, init=False, repr=False, compare=False)
    joins: tuple[int, ...] = field(default=_NO_JOINS, init=False, repr=False, compare=False)
    seated: tuple[tuple[int, Move], ...] = field(default=(), init=False, repr=False, compare=False)

    def __str__(self) -> str:
        if self.kind == "play":
            return f"{NAMES[self.tile]}{SIDE_NAMES[self.side]}"
        return self.kind


class IllegalMoveError(ValueError):
    """A move the rules do not allow now. The state is left exactly as it was."""

    def __init__(self, move: object, reason: str) -> None:
        self.move = move
        self.reason = reason
        super().__init__(f"illegal move {str(move)!r}: {reason}")


MOST_SEATS = 4
"""The most seats any preset has (the rules check it); sizes the per-seat tables."""

DRAW = Move("draw")
PASS = Move("pass")
PLAYS: tuple[tuple[Move, Move], ...] = tuple(
    (Move("play", t, LEFT), Move("play", t, RIGHT)) for t in range(TILE_COUNT)
)
"""Every possible play, built once: ``PLAYS[tile][side]``; the engine never allocates moves."""
for _t, _pair in enumerate(PLAYS):
    for _side, _play in enumerate(_pair):
        # Frozen for everybody else; filled in once here, before any other module sees them.
        object.__setattr__(_play, "bit", BIT[_t])
        object.__setattr__(_play, "joins", JOINS[_side][_t])
        object.__setattr__(_play, "seated", tuple((seat, _play) for seat in range(MOST_SEATS)))
SEATED_DRAW = tuple((seat, DRAW) for seat in range(MOST_SEATS))
SEATED_PASS = tuple((seat, PASS) for seat in range(MOST_SEATS))
"""``SEATED_PASS[seat]``: the history entry of that seat's pass, built once."""


def _subsets(mask: int) -> list[int]:
    """Every sub-mask of ``mask`` (128 of them for a suit of seven tiles)."""
    subsets = [0]
    for t in tiles_of(mask):
        subsets += [subset | (1 << t) for subset in subsets]
    return subsets


FittingTable = dict[int, tuple[Move, ...]]

FITTING: tuple[tuple[FittingTable, FittingTable], ...] = tuple(
    (
        {subset: tuple(PLAYS[t][LEFT] for t in tiles_of(subset)) for subset in _subsets(SUIT[pip])},
        {
            subset: tuple(PLAYS[t][RIGHT] for t in tiles_of(subset))
            for subset in _subsets(SUIT[pip])
        },
    )
    for pip in range(7)
)
"""``FITTING[pip][side][hand & SUIT[pip]]``: the plays of those tiles on that side, so that
legal-move generation is two dict lookups instead of a loop over the hand."""

_LEADS_BY_SLICE: tuple[tuple[tuple[Move, ...], ...], ...] = tuple(
    tuple(
        tuple(PLAYS[7 * part + i][LEFT] for i in range(7) if chunk >> i & 1) for chunk in range(128)
    )
    for part in range(4)
)


def leads(hand: int) -> tuple[Move, ...]:
    """Every tile of a hand mask laid as the opening (side L), lowest tile first."""
    # Four lookups on 7-bit slices of the mask instead of a loop over the hand's tiles.
    a, b, c, d = _LEADS_BY_SLICE
    return a[hand & 127] + b[hand >> 7 & 127] + c[hand >> 14 & 127] + d[hand >> 21]


_PLAYS_AT: tuple[dict[int, tuple[Move, ...]], ...] = tuple({} for _ in range(EMPTY_LINE))
"""``_PLAYS_AT[ends][playable]``: ``plays_at(ends, playable)``, filled as positions come up."""


def plays_at(ends: int, playable: int) -> tuple[Move, ...]:
    """The plays of the tiles in ``playable`` (all fitting ``ends``): on the left end first, then
    on the right, each lowest tile first. Kept once made, so that a legal-move list costs one
    lookup and no allocation (at most one entry per subset of the 13 tiles fitting two ends:
    a few hundred thousand in all, far fewer in practice)."""
    try:
        return _PLAYS_AT[ends][playable]
    except KeyError:
        left, right = divmod(ends, 7)
        plays = (
            FITTING[left][LEFT][playable & SUIT[left]]
            + FITTING[right][RIGHT][playable & SUIT[right]]
        )
        _PLAYS_AT[ends][playable] = plays
        return plays


def parse_move(text: str) -> Move:
    """Parse ``"6:4L"``, ``"6:4R"``, ``"draw"`` or ``"pass"`` into the canonical move."""
    cleaned = text.strip()
    lowered = cleaned.lower()
    if lowered == "draw":
        return DRAW
    if lowered == "pass":
        return PASS
    if len(cleaned) >= 2 and cleaned[-1] in "LRlr":
        try:
            tile = parse_tile(cleaned[:-1])
        except ValueError:
            pass
        else:
            return PLAYS[tile][LEFT if cleaned[-1] in "Ll" else RIGHT]
    raise ValueError(f"not a move: {text!r} (expected e.g. '6:4L', '6:4R', 'draw' or 'pass')")
