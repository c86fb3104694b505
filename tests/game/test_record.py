"""Match records: written for every match, replayed move by move, tampering caught."""

import contextlib
import copy
import json

import pytest

from backend.game import (
    ReplayError,
    commitment,
    dumps_record,
    match_record,
    play_match,
    replay,
    rules_for,
)
from tests.game.helpers import deal, match_with


@pytest.fixture(scope="module")
def record():
    match = play_match(rules_for("dew200"), ["hard", "medium", "easy"], seed="record-seed")
    return json.loads(dumps_record(match_record(match)))


def test_record_carries_rules_seats_fairness_deals_and_moves(record):
    assert record["format"] == "dew.match-record" and record["version"] == 1
    assert record["preset"] == "dew200" and record["options"]["blocked_scoring"] == "pairwise"
    assert record["seats"] == ["hard", "medium", "easy"]
    assert record["fairness"] == {
        "commitment": commitment("record-seed"),
        "server_seed": "record-seed",
    }
    first = record["hands"][0]
    assert len(first["deal"]["hands"]) == 3 and len(first["deal"]["boneyard"]) == 7
    assert first["moves"][0][0] == first["starter"]
    assert record["result"]["final_scores"] == replay(record).to_json()["final_scores"]


def test_replay_reproduces_the_result(record):
    result = replay(record)
    assert result.to_json() == record["result"]


def test_a_tampered_move_is_rejected_naming_hand_and_move(record):
    bad = copy.deepcopy(record)
    moves = bad["hands"][1]["moves"]
    index = next(i for i, (_, text) in enumerate(moves) if text not in ("draw", "pass") and i > 0)
    seat = moves[index][0]
    moves[index] = [seat, "pass"]
    with pytest.raises(ReplayError) as caught:
        replay(bad)
    assert (caught.value.hand, caught.value.move) == (1, index)
    assert str(caught.value).startswith(f"hand 1, move {index}: illegal move 'pass'")


def test_a_wrong_seed_is_rejected_against_the_commitment(record):
    bad = copy.deepcopy(record)
    bad["fairness"]["server_seed"] = "another-seed"
    with pytest.raises(ReplayError, match="does not match the commitment"):
        replay(bad)


def test_a_swapped_seed_and_commitment_still_fails_on_the_deal(record):
    bad = copy.deepcopy(record)
    bad["fairness"] = {"server_seed": "x", "commitment": commitment("x")}
    with pytest.raises(ReplayError, match="hand 0: the recorded deal is not the one"):
        replay(bad)


def test_an_altered_result_is_rejected(record):
    bad = copy.deepcopy(record)
    bad["result"]["final_scores"][0] += 5
    with pytest.raises(ReplayError, match="differs from the replayed one"):
        replay(bad)


def test_a_truncated_record_is_rejected(record):
    bad = copy.deepcopy(record)
    bad["hands"][-1]["moves"].pop()
    with pytest.raises(ReplayError, match=f"hand {len(bad['hands']) - 1}: the record stops"):
        replay(bad)


def test_a_move_by_the_wrong_seat_is_rejected(record):
    bad = copy.deepcopy(record)
    bad["hands"][0]["moves"][1][0] = bad["hands"][0]["moves"][0][0]
    with pytest.raises(ReplayError, match=r"hand 0, move 1: .*turn"):
        replay(bad)


def test_an_unrevealed_seed_cannot_be_replayed(record):
    bad = copy.deepcopy(record)
    del bad["fairness"]["server_seed"]
    with pytest.raises(ReplayError, match="not revealed"):
        replay(bad)


def test_a_record_published_before_the_end_hides_seed_and_deals():
    match = match_with("dew200", deal("6:6 1:0 1:1 2:0 2:1 2:2 3:0", "5:5 4:4 3:3 5:0 4:0 6:0 5:1"))
    early = match_record(match, reveal_seed=False)
    assert "server_seed" not in early["fairness"]
    assert "deal" in early["hands"][0]  # an explicit deal is not secret to the table's owner


def test_explicit_deal_records_replay_without_a_seeded_deal():
    d = deal(
        "6:6 1:0 1:1 2:0 2:1 2:2 3:0",
        "3:1 3:2 3:3 4:0 4:1 4:2 4:3",
        boneyard="5:0 5:1 6:0 6:1 6:2 6:3 6:4 6:5 5:5 5:4 5:3 5:2 4:4 0:0",
    )
    match = match_with("draw", d)
    for text in ("6:6L", "draw", "pass", "draw", "pass"):
        from backend.game import apply_move

        apply_move(match, text)
    record = json.loads(dumps_record(match_record(match)))
    assert record["hands"][0]["seeded"] is False
    assert replay(record).winner == 0
    record["hands"][0]["deal"]["boneyard"][0], record["hands"][0]["deal"]["boneyard"][1] = (
        "5:1",
        "5:0",
    )
    record["result"] = None
    assert replay(record).winner == 0  # other draws, same outcome: still a legal record


def test_garbage_is_refused_clearly():
    with pytest.raises(ReplayError, match="JSON object"):
        replay([1, 2])
    with pytest.raises(ReplayError, match=r"not a dew\.match-record"):
        replay({"format": "pgn"})
    with pytest.raises(ReplayError, match="bad rules"):
        replay({"format": "dew.match-record", "version": 1, "preset": "chess", "seats": []})
    with pytest.raises(ReplayError, match="bad rules"):
        replay({"format": "dew.match-record", "version": 1, "preset": "draw", "options": "x"})
    with pytest.raises(ReplayError, match="bad rules"):
        replay({"format": "dew.match-record", "version": 1, "preset": "draw", "seats": 2})


JUNK = [None, 0, -1, 7, "x", "6:6L", [], {}, [0], [0, "pass"], True, 1.5, "draw", {"a": 1}, [[]]]


def _paths(node, prefix=()):
    if prefix:
        yield prefix
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _paths(value, (*prefix, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _paths(value, (*prefix, index))


def test_any_corrupted_field_is_a_replay_error_never_a_crash(record):
    from hypothesis import given, settings
    from hypothesis import strategies as st

    paths = list(_paths(record))

    @settings(max_examples=300, deadline=None)
    @given(st.sampled_from(paths), st.sampled_from(JUNK))
    def corrupt(path, junk):
        bad = copy.deepcopy(record)
        node = bad
        for key in path[:-1]:
            node = node[key]
        if node[path[-1]] == junk:
            return
        node[path[-1]] = junk
        with contextlib.suppress(ReplayError):  # the only acceptable failure
            replay(bad)

    corrupt()
