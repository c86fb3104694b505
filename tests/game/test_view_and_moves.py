"""Seat views, move text and tiles."""

import json

import pytest

from backend.game import IllegalMoveError, parse_move, rules_for, start_match, view
from backend.game.tiles import NAMES, PIPS, parse_tile, pips_of, tiles_of
from tests.game.helpers import deal, match_with


def test_the_double_six_set():
    assert len(NAMES) == 28 == len(set(NAMES))
    assert sum(PIPS) == 168
    assert parse_tile("4:6") == parse_tile("6:4") and NAMES[parse_tile("4:6")] == "6:4"
    for bad in ("7:1", "6-4", "x", "6:"):
        with pytest.raises(ValueError, match=repr(bad)[1:-1] if bad != "7:1" else "7:1"):
            parse_tile(bad)
    assert pips_of((1 << 28) - 1) == 168 and pips_of(0) == 0


def test_move_text_round_trips():
    for text in ("6:4L", "6:4R", "draw", "pass"):
        assert str(parse_move(text)) == text
    assert parse_move("4:6r") == parse_move("6:4R")
    with pytest.raises(ValueError, match="'play 6:4'"):
        parse_move("play 6:4")


def test_a_view_is_json_and_shows_only_the_seats_own_tiles():
    match = match_with("dew200", deal("6:6 1:0 1:1 2:0 2:1 2:2 3:0", "5:5 4:4 3:3 5:0 4:0 6:0 5:1"))
    mine = view(match, 0)
    theirs = view(match, 1)
    assert json.loads(json.dumps(mine))["hand"] == ["1:0", "1:1", "2:0", "2:1", "2:2", "3:0", "6:6"]
    assert theirs["hand"] == ["3:3", "4:0", "4:4", "5:0", "5:1", "5:5", "6:0"]
    assert mine["tile_counts"] == [7, 7] and mine["boneyard"] == 14
    assert mine["legal_moves"] == ["6:6L"] and mine["must_open_with"] == "6:6"
    assert theirs["legal_moves"] == [] and theirs["must_open_with"] is None
    assert mine["turn"] == 0 and mine["ends"] is None and mine["line"] == []


def test_the_line_is_shown_left_to_right_with_tiles_oriented():
    match = match_with("dew200", deal("6:6 6:1 1:1 2:0 2:1 2:2 3:0", "6:3 4:4 3:3 5:0 4:0 6:0 5:1"))
    for text in ("6:6L", "6:3L", "6:1R", "3:3L", "1:1R"):
        match.apply(parse_move(text))
    seen = view(match, 1)
    assert seen["line"] == ["3:3", "3:6", "6:6", "6:1", "1:1"]
    assert seen["ends"] == [3, 1]
    assert seen["history"] == [(0, "6:6L"), (1, "6:3L"), (0, "6:1R"), (1, "3:3L"), (0, "1:1R")]


def test_a_seat_outside_the_table_has_no_view():
    match = start_match(rules_for("draw"), 2, "s")
    with pytest.raises(ValueError, match="no seat 2"):
        view(match, 2)


def test_illegal_moves_name_the_move_and_reason_and_change_nothing():
    match = match_with("dew200", deal("6:6 6:1 1:1 2:0 2:1 2:2 3:0", "6:3 4:4 3:3 5:0 4:0 6:0 5:1"))
    match.apply(parse_move("6:6L"))
    before = json.dumps([view(match, s) for s in range(2)])
    cases = {
        "6:1L": "does not hold 6:1",
        "4:4L": "does not fit the left end (6)",
        "5:0R": "does not fit the right end (6)",
        "pass": "holds a tile that fits",
        "draw": "holds a tile that fits",
    }
    for text, reason in cases.items():
        with pytest.raises(IllegalMoveError) as caught:
            match.apply(parse_move(text))
        assert str(caught.value) == f"illegal move {text!r}: {caught.value.reason}"
        assert reason in caught.value.reason
        assert json.dumps([view(match, s) for s in range(2)]) == before
    assert {str(m) for m in match.legal_moves()} == {"6:3L", "6:3R", "6:0L", "6:0R"}
    assert sorted(NAMES[t] for t in tiles_of(match.hands[1])) == sorted(view(match, 1)["hand"])


def test_a_finished_hand_shows_every_seats_tiles_left_to_every_seat():
    """Once a hand is over its tiles are public: each seat's view lists what every seat had
    left (what the winner counts), the same for all; the live hand's stay hidden."""
    match = start_match(rules_for("draw"), ["a", "b"], "tiles-left seed")
    hands_seen = 0
    while not match.over:
        before = [tiles_of(hand) for hand in match.hands]
        seat, legal = match.turn, match.legal_moves()
        match.apply(legal[0])
        views = [view(match, s) for s in range(2)]
        assert views[0]["previous_hands"] == views[1]["previous_hands"]
        finished = views[0]["previous_hands"]
        if len(finished) > hands_seen:  # this move ended a hand
            hands_seen = len(finished)
            left = finished[-1]["tiles_left"]
            played = legal[0]
            expected = [[NAMES[t] for t in tiles] for tiles in before]
            if played.kind == "play":
                expected[seat].remove(NAMES[played.tile])
            assert [sorted(x) for x in left] == [sorted(x) for x in expected]
            assert json.loads(json.dumps(finished)) == finished
    assert hands_seen >= 1
    assert view(match, 0)["previous_hands"][-1]["index"] == match.hand_index  # the last hand too


@pytest.mark.parametrize(("preset", "seats"), [("doscientos", 4), ("dew200", 2), ("draw", 2)])
def test_apply_returns_the_moves_legal_next_and_none_once_over(preset: str, seats: int) -> None:
    match = start_match(rules_for(preset), seats, f"apply-returns/{preset}")
    moves = match.legal_moves()
    played = 0
    while moves:
        moves = match.apply(moves[played % len(moves)])
        played += 1
        assert moves is match.legal_moves()
    assert match.over and moves == () and played > 0
