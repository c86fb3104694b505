"""The easy, medium and hard bots of seed 004: heuristics over the seat's own view."""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import lru_cache

from backend.game.bots import Bot, register_bot
from backend.game.bots.position import ends_after
from backend.game.moves import LEFT, Move, parse_move
from backend.game.rules import OptionValue, rules_for
from backend.game.tiles import HIGH, IS_DOUBLE, LOW, OTHER_HALF, PIPS, parse_tile
from backend.game.view import SeatView


def missing_suits(view: SeatView) -> dict[int, set[int]]:
    """Pips each seat has shown it lacks: it passed or drew with those numbers open."""
    missing: dict[int, set[int]] = {}
    left = right = -1
    for seat, text in view["history"]:
        move = parse_move(text)
        if move.kind == "play":
            left, right = ends_after(left, right, move)
        elif left >= 0:
            missing.setdefault(seat, set()).update((left, right))
    return missing


def _after(view: SeatView, move: Move) -> tuple[int, int]:
    """The open ends after a play."""
    ends = view["ends"]
    left, right = ends if ends is not None else (-1, -1)
    return ends_after(left, right, move)


@lru_cache(maxsize=64)
def _rules_score_ends(preset: str, options: tuple[tuple[str, OptionValue], ...]) -> bool:
    """Whether these rules score open ends (DEW, or ``partnership`` with multiples of five)."""
    return rules_for(preset, dict(options)).scores_open_ends


def _end_points(view: SeatView, move: Move) -> int:
    """Open-end points the play scores when the rules score open ends (DEW, or a team game with
    multiples of five); a double at an end counts both halves."""
    if not _rules_score_ends(view["preset"], tuple(sorted(view["options"].items()))):
        return 0
    left, right = _after(view, move)
    t = move.tile
    line = view["line"]
    if not line:
        left_tile = right_tile = t
    elif move.side == LEFT:
        left_tile, right_tile = t, parse_tile(line[-1])
    else:
        left_tile, right_tile = parse_tile(line[0]), t
    total = left * (1 + IS_DOUBLE[left_tile]) + right * (1 + IS_DOUBLE[right_tile])
    return total if total % 5 == 0 else 0


class HeuristicBot:
    """Scores each legal play with a heuristic and plays the best (random among equals)."""

    def __init__(self, name: str, rng: random.Random, evaluate: Callable[..., float]) -> None:
        self.name = name
        self.rng = rng
        self._evaluate = evaluate

    def choose(self, view: SeatView) -> str:
        legal = view["legal_moves"]
        if len(legal) == 1:
            return legal[0]
        if not legal:
            raise ValueError(
                f"seat {view['seat']} has no legal move: it is not its turn or the match is over"
            )
        moves = [parse_move(text) for text in legal]
        hand = [parse_tile(text) for text in view["hand"]]
        scored = [
            (self._evaluate(view, move, hand, self.rng), text)
            for move, text in zip(moves, legal, strict=True)
        ]
        best = max(score for score, _ in scored)
        return self.rng.choice([text for score, text in scored if score == best])


def _easy(view: SeatView, move: Move, hand: list[int], rng: random.Random) -> float:
    # "Mostly random valid moves, with a slight preference for playing doubles."
    return rng.random() + (0.3 if IS_DOUBLE[move.tile] else 0.0)


def _medium(view: SeatView, move: Move, hand: list[int], rng: random.Random) -> float:
    # "Tries to play higher-value tiles and doubles. Considers basic hand improvement."
    t = move.tile
    left, right = _after(view, move)
    rest = [x for x in hand if x != t]
    follow = sum(1 for x in rest if OTHER_HALF[x][left] >= 0 or OTHER_HALF[x][right] >= 0)
    return PIPS[t] + (4 if IS_DOUBLE[t] else 0) + follow + _end_points(view, move)


def _hard(view: SeatView, move: Move, hand: list[int], rng: random.Random) -> float:
    # Seed 004: reduce own pips, play doubles, keep the hand diverse, open options for itself,
    # and (reading the public history) leave numbers the opponents have shown they lack.
    t = move.tile
    left, right = _after(view, move)
    rest = [x for x in hand if x != t]
    suits = {HIGH[x] for x in rest} | {LOW[x] for x in rest}
    follow = sum(1 for x in rest if OTHER_HALF[x][left] >= 0 or OTHER_HALF[x][right] >= 0)
    score = 1.0 * PIPS[t] + (6 if IS_DOUBLE[t] else 0) + 2.0 * len(suits) + 2.5 * follow
    score += 1.5 * _end_points(view, move)
    me, sides = view["seat"], view["sides"]
    for seat, lacking in missing_suits(view).items():
        if sides[seat] == sides[me]:
            score -= 3 * ((left in lacking) + (right in lacking))  # don't block the partner
        else:
            score += 4 * ((left in lacking) + (right in lacking))
    # Holding the last tiles of a number lets us control that end.
    in_line = {parse_tile(x) for x in view["line"]} | {t}
    for end in {left, right}:
        seen = sum(1 for x in in_line if HIGH[x] == end or LOW[x] == end)
        mine = sum(1 for x in rest if HIGH[x] == end or LOW[x] == end)
        if seen + mine == 7 and mine:
            score += 5
    return score


@register_bot("easy")
def easy(rng: random.Random) -> Bot:
    """Seed 004 Easy: mostly random, slight preference for doubles."""
    return HeuristicBot("easy", rng, _easy)


@register_bot("medium")
def medium(rng: random.Random) -> Bot:
    """Seed 004 Medium: high tiles and doubles first, basic hand improvement."""
    return HeuristicBot("medium", rng, _medium)


@register_bot("hard")
def hard(rng: random.Random) -> Bot:
    """Seed 004 Hard: pips, doubles, diversity, options, and blocking what opponents lack."""
    return HeuristicBot("hard", rng, _hard)
