"""Bots: legal moves only, deterministic from their seed, blind to hidden tiles, ranked."""

import random

import pytest

from backend.game import (
    Bot,
    UnknownBotError,
    apply_move,
    bot_names,
    make_bot,
    match_record,
    play_match,
    register_bot,
    rules_for,
    start_match,
    view,
)
from backend.game.tiles import BIT, tiles_of

LEVELS = ["easy", "medium", "hard"]


def test_the_seed_004_levels_are_registered():
    assert set(LEVELS) <= set(bot_names())
    for name in LEVELS:
        bot = make_bot(name, 1)
        assert isinstance(bot, Bot) and bot.name == name


@pytest.mark.parametrize("name", LEVELS)
@pytest.mark.parametrize(
    ("preset", "seats"), [("dew200", 3), ("doscientos", 4), ("partnership", 4), ("draw", 2)]
)
def test_bots_finish_matches_with_legal_moves_only(name, preset, seats):
    # play_match applies every choice through the engine, which refuses illegal moves.
    match = play_match(rules_for(preset), [name] * seats, seed=f"legal-{name}")
    assert match.over


def test_bots_are_deterministic_given_their_seed():
    rules = rules_for("dew200")
    first = match_record(play_match(rules, ["hard", "easy"], "same", bot_seed=3))
    again = match_record(play_match(rules, ["hard", "easy"], "same", bot_seed=3))
    other = match_record(play_match(rules, ["hard", "easy"], "same", bot_seed=4))
    assert first == again
    assert first["hands"] != other["hands"]


@pytest.mark.parametrize("name", LEVELS)
def test_a_bot_decides_the_same_whatever_the_hidden_tiles(name):
    """Swap hidden tiles between two other seats: the seat's view, and so its choice, stay."""
    rng = random.Random(11)
    for game in range(20):
        match = start_match(rules_for("doscientos"), 4, f"blind-{game}")
        for _ in range(rng.randrange(1, 12)):
            if match.over:
                break
            match.apply(rng.choice(match.legal_moves()))
        if match.over:
            continue
        seat = match.turn
        others = [s for s in range(4) if s != seat and match.hands[s]]
        a, b = others[0], others[1]
        before = view(match, seat)
        choice = make_bot(name, game).choose(before)
        tile_a = next(tiles_of(match.hands[a]))
        tile_b = next(tiles_of(match.hands[b]))
        match.hands[a] ^= BIT[tile_a] | BIT[tile_b]
        match.hands[b] ^= BIT[tile_a] | BIT[tile_b]
        after = view(match, seat)
        assert after == before
        assert make_bot(name, game).choose(after) == choice


def test_hard_beats_easy_and_medium_beats_easy_over_many_hands():
    def hand_win_rate(strong, weak, preset, seats, games):
        won = played = 0
        for game in range(games):
            lineup = (
                [strong, weak] * (seats // 2) if game % 2 == 0 else [weak, strong] * (seats // 2)
            )
            match = play_match(rules_for(preset), lineup, seed=f"rank-{preset}-{game}")
            strong_side = 0 if game % 2 == 0 else 1
            for hand in match.result.hands:
                played += 1
                won += hand.winner == strong_side
        return won / played

    assert hand_win_rate("hard", "easy", "dew200", 2, 30) > 0.52
    assert hand_win_rate("hard", "easy", "doscientos", 4, 12) > 0.52
    assert hand_win_rate("medium", "easy", "draw", 2, 200) > 0.52


def test_a_new_bot_registers_by_name():
    class FirstMove:
        name = "first-move"

        def __init__(self, rng: random.Random) -> None:
            self.rng = rng

        def choose(self, seen):
            return seen["legal_moves"][0]

    register_bot("first-move")(FirstMove)
    assert "first-move" in bot_names()
    match = play_match(rules_for("draw"), ["first-move", "easy"], seed="custom")
    assert match.over and match.names == ("first-move", "easy")


def test_an_unknown_bot_is_refused_with_the_known_names():
    with pytest.raises(UnknownBotError, match=r"'grandmaster'.*easy"):
        make_bot("grandmaster")


@pytest.mark.parametrize("name", LEVELS)
def test_a_bot_asked_out_of_turn_says_so(name):
    match = start_match(rules_for("doscientos"), 4, "out-of-turn")
    idle = (match.turn + 1) % 4
    with pytest.raises(ValueError, match=f"seat {idle} has no legal move"):
        make_bot(name).choose(view(match, idle))


def _bench_bots():
    """scripts/bench_bots.py as a module (it holds the adapter to the ``dominoes`` package)."""
    import importlib.util
    import sys
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "scripts" / "bench_bots.py"
    spec = importlib.util.spec_from_file_location("bench_bots", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_dominoes_package_adapter_sees_our_position_and_plays_legal_moves():
    """The package's game built from a seat view offers exactly our legal plays (one per end,
    but one only when both ends show the same number, as the package does), and its player
    answers with one of our legal moves."""
    bench = _bench_bots()
    package_bot = bench.DominoesPackageBot(random.Random(1), start_move=8, samples=2)
    rules = rules_for("doscientos")
    decisions = 0
    for game in range(3):
        match = start_match(rules, 4, f"adapter/{game}")
        hard = [make_bot("hard", game * 4 + seat) for seat in range(4)]
        while not match.over and match.hand_index < 2:
            seen = view(match, match.turn)
            legal = seen["legal_moves"]
            if legal != ["pass"]:
                package_game = package_bot.game_of(seen)
                offered = {
                    (min(d.first, d.second), max(d.first, d.second), left)
                    for d, left in package_game.valid_moves
                }
                ours = set()
                for text in legal:
                    high, low = (int(x) for x in text[:-1].split(":"))
                    left = text.endswith("L")
                    if seen["ends"] and seen["ends"][0] == seen["ends"][1] and not left:
                        continue  # the package lists the left end only
                    ours.add((min(high, low), max(high, low), left))
                assert offered == ours, (seen["history"], legal)
                assert package_game.turn == seen["seat"]
                assert len(package_game.hands[seen["seat"]]) == len(seen["hand"])
            if match.turn % 2 == 0 and len(legal) > 1:
                move = package_bot.choose(seen)
                assert move in legal
                decisions += 1
            else:
                move = hard[match.turn].choose(seen)
            apply_move(match, move)
    assert decisions > 10
