"""The public API other areas build on: start, move, view, record, replay, bots."""

import json

import pytest

import backend.game as game


@pytest.mark.parametrize(
    ("preset", "bots"),
    [
        ("dew200", ["hard", "easy"]),
        ("dew200", ["hard", "medium", "easy"]),
        ("doscientos", ["hard", "easy", "medium", "easy"]),
        ("partnership", ["hard", "easy", "hard", "easy"]),
        ("draw", ["medium", "hard"]),
    ],
)
def test_bot_match_round_trips_through_its_json_record(preset, bots):
    match = game.play_match(game.rules_for(preset), bots, seed="api")
    assert match.over and match.result is not None
    record = json.loads(game.dumps_record(game.match_record(match)))
    assert game.replay(record) == match.result


def test_apply_move_accepts_text_and_rejects_unreadable_moves():
    match = game.start_match(game.rules_for("doscientos"), 4, seed="api")
    with pytest.raises(game.IllegalMoveError, match="'6:6X'"):
        game.apply_move(match, "6:6X")
    game.apply_move(match, "6:6L")
    assert game.view(match, 0)["line"] == ["6:6"]
