"""The rules engine as the live server uses it: presets, start, legality, views, bots, results.

Everything the server needs from ``backend.game`` goes through this module, so the rest of
the package speaks JSON-able values (move text such as ``"6:4L"``, view dicts) only.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from backend.game import (
    PRESETS,
    IllegalMoveError,
    Match,
    Move,
    Rules,
    RulesError,
    apply_move,
    commitment,
    describe_presets,
    dumps_record,
    make_bot,
    match_record,
    new_server_seed,
    parse_move,
    rules_for,
    start_match,
)
from backend.game import view as seat_view
from backend.game.tiles import NAMES, tiles_of
from backend.tables import exceptions as exc

BOT_LEVELS = ("easy", "medium", "hard", "expert")


def presets() -> list[dict[str, Any]]:
    """Every preset with its default options and option specs (premium flags included)."""
    return describe_presets()


def table_rules(preset: str, options: dict[str, Any], seats: int) -> Rules:
    """The rules for a new table, refusing unknown presets, bad options and seat counts."""
    if preset not in PRESETS:
        raise exc.UnknownPreset(f"no preset {preset!r}; presets: {sorted(PRESETS)}")
    try:
        rules = rules_for(preset, options)
        rules.check_seats(seats)
    except RulesError as error:
        raise exc.InvalidOptions(str(error)) from None
    return rules


def start(preset: str, options: dict[str, Any], names: list[str], seed: str) -> Match:
    return start_match(rules_for(preset, options), names, seed)


def new_seed() -> tuple[str, str]:
    """A fresh server seed and its public commitment."""
    seed = new_server_seed()
    return seed, commitment(seed)


def to_move(match: Match) -> int | None:
    return None if match.over else match.turn


def parse(text: object) -> Move:
    if not isinstance(text, str) or len(text) > 16:
        raise exc.IllegalMove(f"not a move: {text!r} (expected e.g. '6:4L', 'draw' or 'pass')")
    try:
        return parse_move(text)
    except ValueError as error:
        raise exc.IllegalMove(str(error)) from None


def check(match: Match, seat: int, text: object) -> Move:
    """The move ``seat`` asks for, if it is legal now; changes nothing."""
    move = parse(text)
    if match.over:
        raise exc.MatchNotLive("the match is over")
    if match.turn != seat:
        raise exc.NotYourTurn(f"it is seat {match.turn}'s turn, not seat {seat}'s")
    if move not in match.legal_moves():
        legal = [str(m) for m in match.legal_moves()]
        raise exc.IllegalMove(f"illegal move {str(move)!r}; legal now: {legal}")
    return move


def apply(match: Match, text: str) -> None:
    """Apply a move already known to be legal (or read back from the move log)."""
    try:
        apply_move(match, text)
    except IllegalMoveError as error:  # a corrupt move log; never a player's input
        raise RuntimeError(f"move log does not replay: {error}") from error


def view(match: Match, seat: int) -> dict[str, Any]:
    """A seat's view. The tile that must open a hand is named only to the seat that must
    lead it: to anyone else it would name a tile in another seat's hand."""
    seen = dict(seat_view(match, seat))
    if seen.get("turn") != seat:
        seen["must_open_with"] = None
    return seen


def public_view(match: Match) -> dict[str, Any]:
    """What a spectator sees: a seat's view with the seat's own tiles and choices removed."""
    return public_of(dict(seat_view(match, 0)))


# What differs between two seats' views of one position; everything else is public.
PRIVATE_KEYS = ("hand", "legal_moves", "seat", "side")


def seat_views(match: Match, seats: Iterable[int]) -> dict[int, dict[str, Any]]:
    """``view(match, s)`` for each of ``seats`` at the cost of about one engine view.

    The engine builds the public part (line, history, counts, previous hands) once, for the
    seat to play; the other seats get a copy with their own seat, side and hand, no legal
    moves and no tile to open with. Tests check the result equals ``view`` for every seat
    over whole matches of every preset.
    """
    lead = match.turn if not match.over else 0
    base = view(match, lead)
    views: dict[int, dict[str, Any]] = {}
    for seat in seats:
        if seat == lead:
            views[seat] = base
            continue
        other = base.copy()
        other["seat"] = seat
        other["side"] = match.sides[seat]
        other["hand"] = [NAMES[t] for t in tiles_of(match.hands[seat])]
        other["legal_moves"] = []
        other["must_open_with"] = None
        views[seat] = other
    return views


def public_of(seen: dict[str, Any]) -> dict[str, Any]:
    """A spectator's view made from any seat's view of the same position."""
    public = {k: v for k, v in seen.items() if k not in PRIVATE_KEYS}
    public["must_open_with"] = None
    return public


def legal(match: Match) -> list[str]:
    return [str(m) for m in match.legal_moves()]


def bot_move(match: Match, level: str, salt: str) -> str:
    """The move a bot of ``level`` makes for the seat to play.

    Its chance comes from ``salt`` (match id and ply), so every process that computes a
    bot move for the same position computes the same one.
    """
    bot = make_bot(level, random.Random(salt))
    seat = match.turn
    return str(bot.choose(seat_view(match, seat)))


@dataclass(frozen=True)
class SeatOutcome:
    seat: int
    team: int | None
    placement: int
    points: int
    won: bool
    forfeited: bool


def outcome(match: Match, forfeited_seat: int | None = None) -> list[SeatOutcome]:
    """Placement per seat: the winning side first, then the other sides by score (equal
    scores share a placement); a side that forfeits is placed last and cannot win."""
    sides = list(match.sides)
    scores = list(match.scores)
    loser = sides[forfeited_seat] if forfeited_seat is not None else None
    if loser is not None:
        others = sorted({s for s in sides if s != loser}, key=lambda s: -scores[s])
        winner = others[0] if others else None
        order = [*others, loser]
    else:
        winner = match.result.winner if match.result else None
        rest = sorted({s for s in sides if s != winner}, key=lambda s: -scores[s])
        order = [winner, *rest] if winner is not None else rest
    placement: dict[int, int] = {}
    for index, side in enumerate(order):
        previous = order[index - 1] if index else None
        shares = (
            previous is not None
            and previous != winner
            and side != loser
            and scores[previous] == scores[side]
        )
        placement[side] = placement[previous] if shares and previous is not None else index + 1
    return [
        SeatOutcome(
            seat=seat,
            team=side if match.rules.team_game else None,
            placement=placement[side],
            points=scores[side],
            won=winner is not None and side == winner,
            forfeited=loser is not None and side == loser,
        )
        for seat, side in enumerate(sides)
    ]


def record(
    match: Match,
    *,
    match_id: str,
    seats: list[dict[str, Any]],
    moves: list[tuple[int, str, str]],
    forfeited_seat: int | None,
) -> dict[str, Any]:
    """The engine's match record (seed revealed, replayable with ``backend.game.replay``)
    plus the server's part: who sat where, who made each move, and any forfeit."""
    full = match_record(match, reveal_seed=True)
    full["server"] = {
        "match_id": match_id,
        "seats": seats,
        "moves": [{"seat": seat, "move": move, "actor": actor} for seat, move, actor in moves],
        "forfeited_seat": forfeited_seat,
        "final_scores": list(match.scores),
    }
    return full


def record_hash(full_record: dict[str, Any]) -> str:
    """0x + sha256 of the record's canonical JSON (``backend.game.dumps_record``)."""
    return "0x" + hashlib.sha256(dumps_record(full_record).encode()).hexdigest()
