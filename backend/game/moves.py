"""Moves (play a tile on an end, draw, pass), their text form, and the engine's narrow error."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from backend.game.tiles import NAMES, SUIT, TILE_COUNT, parse_tile, tiles_of

MoveKind = Literal["play", "draw", "pass"]

LEFT = 0
RIGHT = 1
SIDE_NAMES = ("L", "R")


@dataclass(frozen=True, slots=True)
class Move:
    """One move by the seat whose turn it is. ``tile``/``side`` only matter for plays."""

    kind: MoveKind
    tile: int = -1
    side: int = LEFT

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


DRAW = Move("draw")
PASS = Move("pass")
PLAYS: tuple[tuple[Move, Move], ...] = tuple(
    (Move("play", t, LEFT), Move("play", t, RIGHT)) for t in range(TILE_COUNT)
)
"""Every possible play, built once: ``PLAYS[tile][side]``; the engine never allocates moves."""


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
