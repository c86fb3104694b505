"""Provably fair chance: every deal and random pick is derived from a server seed with sha256.

The server publishes ``commitment(seed)`` before play and reveals the seed afterwards; anyone can
then re-derive every deal. The derivation is specified in ``docs/match-record.md`` so that it can
be re-implemented outside Python.
"""

from __future__ import annotations

import hashlib
import math
import secrets

from backend.game.tiles import TILE_COUNT


def new_server_seed() -> str:
    """A fresh secret server seed (64 hex digits) for a real match."""
    return secrets.token_hex(32)


def commitment(server_seed: str) -> str:
    """The sha256 (hex) of the seed's UTF-8 text, published before play."""
    return hashlib.sha256(server_seed.encode()).hexdigest()


def _number(server_seed: str, label: str) -> int:
    """The 256-bit number ``sha256(seed + "/" + label)``, big-endian."""
    return int.from_bytes(hashlib.sha256(f"{server_seed}/{label}".encode()).digest(), "big")


def shuffled_tiles(server_seed: str, label: str) -> tuple[int, ...]:
    """The 28 tiles in an order fixed by (seed, label): Fisher-Yates driven by a 256-bit number.

    Step ``i`` (27 down to 1) swaps positions ``i`` and ``x mod (i + 1)``, then divides ``x`` by
    ``i + 1``. 256 bits dwarf 28! (about 2^98), so the bias is below 2^-150.
    """
    # Reducing mod 28! first leaves every step's digit unchanged (28! is the product of all the
    # step sizes) but makes the 27 divisions work on a 98-bit number instead of a 256-bit one.
    digest = hashlib.sha256(f"{server_seed}/{label}".encode()).digest()  # _number, inlined
    x = int.from_bytes(digest, "big") % _ORDERINGS
    order = _UNSHUFFLED.copy()
    # Two steps at a time (this runs for every hand): for steps i and i - 1 the two digits are
    # r % (i + 1) and r // (i + 1) of r = x mod (i + 1) * i, read from tables.
    for product, i, first, second in _STEP_PAIRS:
        r = x % product
        x //= product
        j = first[r]
        order[i], order[j] = order[j], order[i]
        j = second[r]
        order[i - 1], order[j] = order[j], order[i - 1]
    order[1], order[x] = order[x], order[1]  # step 1: x is now below 2
    return tuple(order)


_UNSHUFFLED = list(range(TILE_COUNT))
_STEP_PAIRS = tuple(
    (
        size * (size - 1),
        size - 1,
        tuple(r % size for r in range(size * (size - 1))),
        tuple(r // size for r in range(size * (size - 1))),
    )
    for size in range(TILE_COUNT, 3, -2)  # steps (27, 26), (25, 24), ... (3, 2)
)
_ORDERINGS = math.factorial(TILE_COUNT)


def pick(server_seed: str, label: str, count: int) -> int:
    """An index in ``range(count)`` fixed by (seed, label), for starters and tie-breaks."""
    if count <= 0:
        raise ValueError(f"cannot pick from {count!r} choices")
    return _number(server_seed, label) % count
