"""A two-player draw game played to an empty boneyard, for the board's bends (issue 21).

Emptying the boneyard is rare: a stuck seat draws one tile and passes if it does not fit, and
two passes in a row block the hand, so in simulations of the engine about 1 hand in 100 gets
there whatever the players aim for. A test that waits for such a hand in random deals fails
most runs. So the board test plays a fixed deal: the server it talks to takes its seed from
``DEW_TEST_DEAL_SEED`` (``seeded_app``), and ``SEED`` is a seed under which both seats playing
``towards_drawing`` on the engine alone empty the first hand's boneyard with both arms long and
doubles on the line. The page then plays that hand's moves (``first_hand(SEED).moves``)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from backend.game import rules_for, start_match
from backend.game.moves import parse_move
from backend.game.view import view

OPTIONS = {"target": 150}
SEED = "7fac61b400db1e85c135bdfcc35221204decb717b08730e7d5f31244224486af"
"""Found by `python -m tests.web.drawing`; `tests/web/test_drawing.py` checks it on the engine."""


def oriented(tile: str) -> str:
    """A tile's name with the high half first, as the engine names it."""
    return ":".join(sorted(tile.split(":"), key=int, reverse=True))


def _fits(tile: str, ends: Iterable[int]) -> bool:
    return bool({int(n) for n in tile.split(":")} & set(ends))


def towards_drawing(
    hand: list[str], legal: list[str], ends: tuple[int, int] | None, arms: dict[str, int]
) -> tuple[str, str]:
    """The tile (of ``legal``) and the side ("L"/"R") after which this hand holds the fewest
    tiles that fit the new ends (so it draws next time), then on the shorter arm (so both arms
    grow towards the board's edges), then by name."""
    options = []
    for tile in sorted({oriented(t) for t in legal}):
        high, low = map(int, tile.split(":"))
        rest = [t for t in hand if oriented(t) != tile]
        for side, end in (("L", 0), ("R", 1)):
            if ends is not None and ends[end] not in (high, low):
                continue
            new = [high, low] if ends is None else list(ends)
            if ends is not None:
                new[end] = low if high == ends[end] else high
            mine = sum(1 for t in rest if _fits(t, new))
            options.append((mine, arms.get(side, 0), tile, side))
    _, _, tile, side = min(options)
    return tile, side


@dataclass(frozen=True)
class Outcome:
    """Where the first hand stood when its boneyard emptied (None: it never did)."""

    line: int
    arms: dict[str, int]
    doubles: int
    moves: list[tuple[int, str]]
    """Every move of the hand until then: (seat, "6:4L" | "draw" | "pass")."""


def _arms(history: list[tuple[int, str]]) -> dict[str, int]:
    plays = [move[-1] for _, move in history if ":" in move]
    return {side: plays[1:].count(side) for side in "LR"}


def first_hand(seed: str) -> Outcome | None:
    """The first hand under ``seed`` with both seats playing ``towards_drawing``."""
    match = start_match(rules_for("draw", OPTIONS), 2, seed)
    while not match.over and match.hand_index == 0:
        v = view(match, match.turn)
        if v["line"] and v["boneyard"] == 0:
            doubles = sum(1 for t in v["line"] if t.split(":")[0] == t.split(":")[1])
            moves = [(seat, move) for seat, move in v["history"]]
            return Outcome(len(v["line"]), _arms(v["history"]), doubles, moves)
        tiles = [m for m in v["legal_moves"] if ":" in m]
        if not tiles:
            match.apply(parse_move(v["legal_moves"][0]))
            continue
        ends = (v["ends"][0], v["ends"][1]) if v["ends"] else None
        tile, side = towards_drawing(v["hand"], [m[:-1] for m in tiles], ends, _arms(v["history"]))
        same = [m for m in tiles if oriented(m[:-1]) == tile]
        match.apply(parse_move(next((m for m in same if m.endswith(side)), same[0])))
    return None


def candidates(count: int) -> Iterator[tuple[str, Outcome]]:
    """Seeds whose first hand empties the boneyard, with its outcome."""
    for i in range(count):
        seed = hashlib.sha256(f"board-bends-{i}".encode()).hexdigest()
        outcome = first_hand(seed)
        if outcome is not None:
            yield seed, outcome


if __name__ == "__main__":
    found = sorted(candidates(5000), key=lambda c: -min(c[1].arms.values()))
    for seed, outcome in found[:10]:
        print(seed, outcome)
