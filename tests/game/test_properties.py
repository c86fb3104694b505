"""Random-playout properties over seeds, presets and random legal play (hypothesis)."""

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from backend.game import (
    IllegalMoveError,
    dumps_record,
    match_record,
    parse_move,
    replay,
    rules_for,
    start_match,
    view,
)
from backend.game.moves import DRAW, PASS, PLAYS
from backend.game.tiles import ALL_TILES_MASK, NAMES, parse_tile, tiles_of

EVERY_MOVE = [DRAW, PASS] + [m for pair in PLAYS for m in pair]
TABLES = [
    ("dew200", 2, {}),
    ("dew200", 3, {"blocked_scoring": "sum_minus_own"}),
    ("dew200", 4, {}),
    ("doscientos", 4, {"pass_bonus": True, "collective_bonus": True}),
    ("doscientos", 4, {"blocked": "last_or_right", "target": 100}),
    ("partnership", 4, {"collective_bonus": True, "first_hand": "random"}),
    ("partnership", 4, {"next_hand": "previous_winner", "blocked": "individual", "target": 50}),
    ("draw", 2, {}),
    ("draw", 2, {"target": 50}),
    ("dew200", 3, {"next_hand": "previous_winner"}),
    ("partnership", 4, {"multiples_of_five": True, "collective_bonus": True, "target": 500}),
]
MOVE_LIMIT = 20_000  # far above any real match; reaching it means a match that never ends

tables = st.sampled_from(TABLES)
seeds = st.text(min_size=1, max_size=12)
choices = st.integers(min_value=0, max_value=2**32)


def snapshot(match):
    return (
        tuple(match.hands),
        match.left,
        match.right,
        match.turn,
        len(match.history),
        tuple(match.scores),
        match.drawn,
        match.drawn_tile,
        match.hand_index,
        match.over,
    )


def assert_tiles_conserved(match):
    on_line = 0
    for _, move in match.history:
        if move.kind == "play":
            assert not on_line & (1 << move.tile)
            on_line |= 1 << move.tile
    places = [*match.hands, on_line, sum(1 << t for t in match.boneyard[match.drawn :])]
    union = 0
    for mask in places:
        assert not union & mask, "a tile is in two places"
        union |= mask
    assert union == ALL_TILES_MASK, "a tile went missing"


@settings(max_examples=40, deadline=None)
@given(tables, seeds, choices)
def test_tiles_conserved_only_legal_moves_accepted_and_matches_end(table, seed, choice_seed):
    preset, seats, options = table
    match = start_match(rules_for(preset, options), seats, seed)
    rng = random.Random(choice_seed)
    moves = 0
    while not match.over:
        assert_tiles_conserved(match)
        legal = set(match.legal_moves())
        assert legal, "a live match always offers a move"
        candidate = rng.choice(EVERY_MOVE)
        if candidate in legal:
            match.apply(candidate)
        else:
            before = snapshot(match)
            try:
                match.apply(candidate)
            except IllegalMoveError as error:
                assert repr(str(candidate)) in str(error)
            else:
                raise AssertionError(f"{candidate} was accepted but not legal")
            assert snapshot(match) == before, "an illegal move changed the state"
            match.apply(rng.choice(sorted(legal, key=str)))
        moves += 1
        assert moves < MOVE_LIMIT
    assert match.legal_moves() == ()
    assert match.result is not None


@settings(max_examples=30, deadline=None)
@given(tables, seeds, choices)
def test_replaying_a_record_reproduces_the_match(table, seed, choice_seed):
    preset, seats, options = table
    match = start_match(rules_for(preset, options), seats, seed)
    rng = random.Random(choice_seed)
    while not match.over:
        match.apply(rng.choice(match.legal_moves()))
    record = json.loads(dumps_record(match_record(match)))
    assert replay(record) == match.result


@settings(max_examples=25, deadline=None)
@given(tables, seeds, choices)
def test_no_view_ever_shows_another_seats_tiles(table, seed, choice_seed):
    preset, seats, options = table
    match = start_match(rules_for(preset, options), seats, seed)
    rng = random.Random(choice_seed)
    steps = 0
    while not match.over and steps < 400:
        for seat in range(seats):
            seen = view(match, seat)
            assert seen["hand"] == [NAMES[t] for t in tiles_of(match.hands[seat])]
            hidden = set()
            for other in range(seats):
                if other != seat:
                    hidden |= {NAMES[t] for t in tiles_of(match.hands[other])}
            hidden |= {NAMES[t] for t in match.boneyard[match.drawn :]}
            # A finished hand's tiles are public (what the winner counts); only finished
            # hands are listed there, and nothing else names another seat's tiles.
            assert all(h["index"] < match.hand_index for h in seen["previous_hands"])
            skip = ("hand", "line", "history", "previous_hands")
            public = {k: v for k, v in seen.items() if k not in skip}
            text = json.dumps(public)
            assert not any(f'"{name}' in text for name in hidden), "a hidden tile leaked"
            laid = {NAMES[parse_tile(t)] for t in seen["line"]}
            laid |= {NAMES[parse_move(t).tile] for _, t in seen["history"] if t[-1] in "LR"}
            assert not laid & hidden, "the line shows a tile that is still hidden"
            if match.turn == seat:
                assert seen["legal_moves"] == [str(m) for m in match.legal_moves()]
            else:
                assert seen["legal_moves"] == []
        match.apply(rng.choice(match.legal_moves()))
        steps += 1
