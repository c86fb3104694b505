"""What one seat may see: ``view(match, seat)`` is the only window a player or bot gets."""

from __future__ import annotations

from typing import TypedDict

from backend.game.match import Match
from backend.game.tiles import NAMES, tiles_of


class HandSummary(TypedDict):
    """A finished hand as everybody saw it end."""

    index: int
    end: str
    winner: int | None
    points: list[int]
    tiles_left: list[list[str]]
    """Each seat's tiles when the hand ended (counted for the winner): public once it is over."""


class SeatView(TypedDict):
    """Everything public plus the seat's own tiles. JSON-serialisable."""

    preset: str
    options: dict[str, int | str | bool]
    seat: int
    side: int
    sides: list[int]
    """The side (team in team games, else the seat) each seat scores for."""
    names: list[str]
    hand_number: int
    turn: int | None
    """The seat to play (``None`` once the match is over)."""
    hand: list[str]
    """This seat's tiles only."""
    line: list[str]
    ends: list[int] | None
    """Open ends ``[left, right]``; ``None`` before the opening tile."""
    must_open_with: str | None
    """The tile this seat must lead with (shown to the leader only)."""
    tile_counts: list[int]
    boneyard: int
    scores: list[int]
    target: int
    legal_moves: list[str]
    """Empty unless it is this seat's turn."""
    history: list[tuple[int, str]]
    """This hand's public moves: ``(seat, "6:4L" | "draw" | "pass")``; drawn tiles stay hidden."""
    draws: list[int]
    """How many tiles each seat has drawn this hand."""
    passes: list[int]
    """How many times each seat has passed this hand."""
    previous_hands: list[HandSummary]
    match_over: bool


def view(match: Match, seat: int) -> SeatView:
    """The seat's view of the match: own hand, public table, legal moves if it is its turn."""
    if not 0 <= seat < match.seats:
        raise ValueError(f"no seat {seat!r} at a table of {match.seats}")
    my_turn = not match.over and match.turn == seat
    return {
        "preset": match.rules.preset,
        "options": match.rules.options,
        "seat": seat,
        "side": match.sides[seat],
        "sides": list(match.sides),
        "names": list(match.names),
        "hand_number": match.hand_index,
        "turn": None if match.over else match.turn,
        "hand": [NAMES[t] for t in tiles_of(match.hands[seat])],
        "line": match.line_tiles(),
        "ends": None if match.left < 0 else [match.left, match.right],
        "must_open_with": (
            NAMES[match.forced_tile]
            if my_turn and match.left < 0 and match.forced_tile >= 0
            else None
        ),
        "tile_counts": match.tile_counts(),
        "boneyard": match.boneyard_size,
        "scores": list(match.scores),
        "target": match.rules.target,
        "legal_moves": [str(m) for m in match.legal_moves()] if my_turn else [],
        "history": [(s, str(m)) for s, m in match.history],
        "draws": _count(match, "draw"),
        "passes": _count(match, "pass"),
        "previous_hands": [
            {
                "index": h.index,
                "end": h.end,
                "winner": h.winner,
                "points": list(h.points),
                "tiles_left": [[NAMES[t] for t in tiles_of(mask)] for mask in h.left],
            }
            for h in match.log
            if h is not match.hand or match.over  # the last hand, once the match is over
        ],
        "match_over": match.over,
    }


def _count(match: Match, kind: str) -> list[int]:
    counts = [0] * match.seats
    for seat, move in match.history:
        if move.kind == kind:
            counts[seat] += 1
    return counts
