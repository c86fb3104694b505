"""DEW rules engine: pure, deterministic, standard library only.

Public API (everything else is internal):

- Rules: ``rules_for(preset, options) -> Rules``; ``PRESETS``; ``Rules.options``,
  ``.requires_vip``, ``.premium_options``, ``.describe()``; ``RulesError`` (also for a choice
  whose required option is not set, e.g. a target of 500 without collective points).
- A match: ``start_match(rules, seats, seed, deals=()) -> Match``; ``legal_moves(match)``;
  ``apply_move(match, move)`` (raises ``IllegalMoveError``, state unchanged);
  ``match.over``, ``match.result -> MatchResult | None``, ``match.turn``.
- What a seat sees: ``view(match, seat) -> SeatView`` (a JSON-serialisable dict).
- Moves: ``Move``, ``parse_move("6:4L" | "6:4R" | "draw" | "pass")``, ``str(move)``.
- Records: ``match_record(match) -> dict``, ``dumps_record``, ``replay(record) -> MatchResult``
  (raises ``ReplayError`` naming hand and move), ``commitment(seed)``, ``new_server_seed()``.
- Bots: ``Bot`` protocol, ``register_bot(name)``, ``make_bot(name, rng)``, ``bot_names()``,
  ``play_match(rules, bots, seed)``.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from backend.game.bots import Bot, UnknownBotError, bot_names, make_bot, register_bot
from backend.game.fairness import commitment, new_server_seed
from backend.game.match import Deal, HandLog, Match, MatchResult, start_match
from backend.game.moves import IllegalMoveError, Move, parse_move
from backend.game.record import ReplayError, dumps_record, match_record, replay
from backend.game.rules import PRESETS, OptionValue, Rules, RulesError, rules_for
from backend.game.view import SeatView, view


def legal_moves(match: Match) -> tuple[Move, ...]:
    """The moves the seat to play may make now (empty once the match is over)."""
    return match.legal_moves()


def apply_move(match: Match, move: Move | str) -> None:
    """Make a move (a ``Move`` or its text) for the seat to play; ``IllegalMoveError`` if the
    rules forbid it, and then the match is unchanged."""
    if isinstance(move, str):
        try:
            move = parse_move(move)
        except ValueError as error:
            raise IllegalMoveError(move, str(error)) from None
    match.apply(move)


def play_match(
    rules: Rules,
    bots: Sequence[Bot | str],
    seed: str,
    *,
    bot_seed: int | str | None = None,
    deals: Sequence[Deal | None] = (),
) -> Match:
    """Play a whole match between bots (instances or registered names) and return it."""
    rng = random.Random(f"{seed}/bots" if bot_seed is None else bot_seed)
    players = [
        make_bot(bot, random.Random(rng.getrandbits(64))) if isinstance(bot, str) else bot
        for bot in bots
    ]
    match = start_match(rules, [player.name for player in players], seed, deals)
    while not match.over:
        seat = match.turn
        apply_move(match, players[seat].choose(view(match, seat)))
    return match


def describe_presets() -> list[dict[str, object]]:
    """Every preset's description with default options (for lobbies and docs)."""
    return [rules_for(name).describe() for name in PRESETS]


__all__ = [
    "PRESETS",
    "Bot",
    "Deal",
    "HandLog",
    "IllegalMoveError",
    "Match",
    "MatchResult",
    "Move",
    "OptionValue",
    "ReplayError",
    "Rules",
    "RulesError",
    "SeatView",
    "UnknownBotError",
    "apply_move",
    "bot_names",
    "commitment",
    "describe_presets",
    "dumps_record",
    "legal_moves",
    "make_bot",
    "match_record",
    "new_server_seed",
    "parse_move",
    "play_match",
    "register_bot",
    "replay",
    "rules_for",
    "start_match",
    "view",
]
