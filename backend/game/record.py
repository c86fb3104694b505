"""Match records (``docs/match-record.md``): write one for every match, replay any of them."""

from __future__ import annotations

import json
from typing import Any

from backend.game import fairness
from backend.game.match import Deal, Match, MatchResult
from backend.game.moves import IllegalMoveError, parse_move
from backend.game.rules import RulesError, rules_for
from backend.game.tiles import NAMES

RECORD_FORMAT = "dew.match-record"
RECORD_VERSION = 1


class ReplayError(ValueError):
    """A record that is malformed, illegal or inconsistent; names the hand and move index."""

    def __init__(self, reason: str, hand: int | None = None, move: int | None = None) -> None:
        self.reason = reason
        self.hand = hand
        self.move = move
        where = []
        if hand is not None:
            where.append(f"hand {hand}")
        if move is not None:
            where.append(f"move {move}")
        super().__init__(f"{', '.join(where)}: {reason}" if where else reason)


def match_record(match: Match, *, reveal_seed: bool = True) -> dict[str, Any]:
    """The JSON record of a match (finished or not). ``reveal_seed=False`` publishes only the
    commitment, for use before the match is over."""
    fair: dict[str, str] = {"commitment": fairness.commitment(match.server_seed)}
    if reveal_seed:
        fair["server_seed"] = match.server_seed
    record: dict[str, Any] = {
        "format": RECORD_FORMAT,
        "version": RECORD_VERSION,
        "preset": match.rules.preset,
        "options": match.rules.options,
        "seats": list(match.names),
        "fairness": fair,
        "hands": [
            {
                "index": hand.index,
                "seeded": hand.seeded,
                "redeals": hand.redeals,
                "deal": hand.deal.to_json(),
                "starter": hand.starter,
                "opening_tile": None if hand.opening_tile is None else NAMES[hand.opening_tile],
                "moves": [[seat, str(move)] for seat, move in hand.moves],
            }
            for hand in match.log
        ],
        "result": match.result.to_json() if match.result is not None else None,
    }
    if not reveal_seed:
        for hand in record["hands"]:
            if hand["seeded"]:
                del hand["deal"]  # the deal would give the hidden hands away
    return record


def dumps_record(record: dict[str, Any]) -> str:
    """Canonical JSON text of a record (sorted keys, compact): what gets hashed and stored."""
    return json.dumps(record, sort_keys=True, separators=(",", ":"))


def replay(record: Any) -> MatchResult:
    """Re-play a record move by move and return its result; raises ``ReplayError`` on any
    malformed, illegal or inconsistent part (wrong seed, altered deal, bad move, wrong result)."""
    if not isinstance(record, dict):
        raise ReplayError(f"a record is a JSON object, not {type(record).__name__}")
    if record.get("format") != RECORD_FORMAT or record.get("version") != RECORD_VERSION:
        raise ReplayError(
            f"not a {RECORD_FORMAT} version {RECORD_VERSION} record "
            f"(format={record.get('format')!r}, version={record.get('version')!r})"
        )
    try:
        rules = rules_for(str(record.get("preset")), record.get("options") or {})
        seats = record["seats"]
        if not isinstance(seats, list) or not all(isinstance(name, str) for name in seats):
            raise TypeError(f"seats must be a list of names, not {seats!r:.80}")
        rules.check_seats(len(seats))
    except (ValueError, KeyError, TypeError) as error:  # RulesError is a ValueError
        raise ReplayError(f"bad rules or seats: {error}") from None
    fair = record.get("fairness") or {}
    if not isinstance(fair, dict):
        raise ReplayError(f"'fairness' must be an object, not {fair!r:.80}")
    seed = fair.get("server_seed")
    hands = record.get("hands")
    if not isinstance(hands, list) or not hands:
        raise ReplayError("the record has no hands")
    for position, hand in enumerate(hands):
        if not isinstance(hand, dict) or hand.get("index") != position:
            raise ReplayError(
                f"hands must be objects numbered 0, 1, ...; got {hand!r:.80}", position
            )
        if not isinstance(hand.get("seeded", True), bool):
            raise ReplayError(f"'seeded' must be true or false, not {hand['seeded']!r}", position)
    if seed is None:
        if any(h.get("seeded", True) for h in hands):
            raise ReplayError("the server seed is not revealed, so seeded deals cannot be checked")
        seed = ""
    elif fair.get("commitment") != fairness.commitment(str(seed)):
        raise ReplayError(
            f"the server seed {seed!r} does not match the commitment {fair.get('commitment')!r}"
        )
    deals: list[Deal | None] = []
    for position, hand in enumerate(hands):
        if hand.get("seeded", True):
            deals.append(None)
        else:
            try:
                deals.append(Deal.from_json(hand.get("deal")))
            except ValueError as error:
                raise ReplayError(f"bad explicit deal: {error}", position) from None
    try:
        match = Match(rules, seats, str(seed), deals)
    except (RulesError, ValueError) as error:
        raise ReplayError(f"cannot start the match: {error}", 0) from None

    for position, hand in enumerate(hands):
        if match.over:
            raise ReplayError("the match was already over before this hand", position)
        live = match.hand
        if live.index != position:  # pragma: no cover - hands advance one at a time
            raise ReplayError(f"expected hand {live.index}", position)
        if "deal" in hand and hand.get("seeded", True):
            try:
                recorded = Deal.from_json(hand["deal"])
            except ValueError as error:
                raise ReplayError(f"bad deal: {error}", position) from None
            if recorded != live.deal:
                raise ReplayError(
                    "the recorded deal is not the one the server seed gives", position
                )
        if hand.get("seeded", True) and hand.get("redeals", live.redeals) != live.redeals:
            raise ReplayError(
                f"the record says {hand['redeals']!r} redeals, the seed gives {live.redeals}",
                position,
            )
        opening = None if live.opening_tile is None else NAMES[live.opening_tile]
        if hand.get("opening_tile", opening) != opening:
            raise ReplayError(
                f"the record says the hand opens with {hand['opening_tile']!r}, "
                f"the rules say {opening!r}",
                position,
            )
        if "starter" in hand and hand["starter"] != live.starter:
            raise ReplayError(
                f"the record says seat {hand['starter']!r} leads, the rules say {live.starter}",
                position,
            )
        moves = hand.get("moves")
        if not isinstance(moves, list):
            raise ReplayError("'moves' must be a list", position)
        for index, entry in enumerate(moves):
            if match.over or match.hand is not live:
                raise ReplayError("a move after the hand had ended", position, index)
            try:
                seat, text = entry
                move = parse_move(str(text))
            except (TypeError, ValueError) as error:
                raise ReplayError(f"unreadable move {entry!r}: {error}", position, index) from None
            if seat != match.turn:
                raise ReplayError(
                    f"move {text!r} is by seat {seat!r} but it is seat {match.turn}'s turn",
                    position,
                    index,
                )
            try:
                match.apply(move)
            except IllegalMoveError as error:
                raise ReplayError(str(error), position, index) from None
        if not match.over and match.hand is live:
            raise ReplayError(f"the record stops after {len(moves)} moves, mid-hand", position)
    if not match.over:
        raise ReplayError(f"the record ends after {len(hands)} hands but the match is not over")
    result = match.result
    assert result is not None
    claimed = record.get("result")
    if claimed is not None and claimed != result.to_json():
        raise ReplayError(
            f"the recorded result {json.dumps(claimed)[:200]} differs from the replayed one "
            f"{json.dumps(result.to_json())[:200]}"
        )
    return result
