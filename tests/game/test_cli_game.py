"""`dew play`, `dew simulate` and `dew replay` through the real command line app."""

import json

import pytest
from typer.testing import CliRunner

from backend.cli import app

runner = CliRunner()


@pytest.fixture(scope="module")
def simulated(tmp_path_factory):
    folder = tmp_path_factory.mktemp("records")
    result = runner.invoke(
        app,
        [
            "simulate",
            "--preset",
            "doscientos",
            "--games",
            "4",
            "--bots",
            "hard,easy",
            "--seed",
            "cli",
            "--records",
            str(folder),
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout), sorted(folder.glob("*.json"))


def test_simulate_reports_win_rates_and_points_per_hand_with_intervals(simulated):
    summary, records = simulated
    assert summary["games"] == 4 and len(records) == 4
    sides = summary["sides"]
    assert [s["bots"] for s in sides] == [["hard", "hard"], ["easy", "easy"]]
    wins = sum(s["match_win_rate"]["value"] for s in sides) + summary["drawn_games"] / 4
    assert wins == pytest.approx(1.0)
    for side in sides:
        low, high = side["points_per_hand"]["ci95"]
        assert low <= side["points_per_hand"]["value"] <= high
        low, high = side["match_win_rate"]["ci95"]
        assert 0 <= low <= side["match_win_rate"]["value"] <= high <= 1


def test_replay_verifies_a_record_written_by_simulate(simulated):
    _, records = simulated
    result = runner.invoke(app, ["replay", str(records[0])])
    assert result.exit_code == 0, result.output
    outcome = json.loads(result.stdout)
    stored = json.loads(records[0].read_text())
    assert outcome["ok"] is True and outcome["deals_from_seed"] is True
    assert outcome["final_scores"] == stored["result"]["final_scores"]
    assert outcome["winner"] == stored["result"]["winner"]


def test_replay_reads_stdin(simulated):
    _, records = simulated
    result = runner.invoke(app, ["replay", "-"], input=records[1].read_text())
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["ok"] is True


def test_replay_rejects_a_tampered_move_naming_hand_and_move(simulated, tmp_path):
    _, records = simulated
    record = json.loads(records[0].read_text())
    record["hands"][0]["moves"][0][1] = "0:0L"  # the first hand must open with 6:6
    bad = tmp_path / "tampered.json"
    bad.write_text(json.dumps(record))
    result = runner.invoke(app, ["replay", str(bad)])
    assert result.exit_code == 1
    assert "hand 0, move 0: illegal move '0:0L'" in result.stderr
    assert result.stdout == ""


def test_replay_rejects_a_wrong_seed(simulated, tmp_path):
    _, records = simulated
    record = json.loads(records[0].read_text())
    record["fairness"]["server_seed"] = "cli/game/999"
    bad = tmp_path / "wrong-seed.json"
    bad.write_text(json.dumps(record))
    result = runner.invoke(app, ["replay", str(bad)])
    assert result.exit_code == 1
    assert "server seed 'cli/game/999' does not match the commitment" in result.stderr


def test_replay_says_when_a_deal_was_explicit_rather_than_from_the_seed(simulated, tmp_path):
    _, records = simulated
    record = json.loads(records[0].read_text())
    record["hands"][0]["seeded"] = False  # same tiles, but no longer checked against the seed
    explicit = tmp_path / "explicit.json"
    explicit.write_text(json.dumps(record))
    result = runner.invoke(app, ["replay", str(explicit)])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["deals_from_seed"] is False


def test_replay_rejects_a_file_that_is_not_json(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    result = runner.invoke(app, ["replay", str(bad)])
    assert result.exit_code == 2 and "not JSON" in result.stderr


def test_play_prints_a_bot_match_move_by_move_and_its_record_replays(tmp_path):
    record = tmp_path / "match.json"
    result = runner.invoke(app, ["play", "--record", str(record)])
    assert result.exit_code == 0, result.output
    assert "-- Hand 1:" in result.stdout and "Final scores:" in result.stdout
    assert " plays 6:6 " in result.stdout or " plays " in result.stdout
    replayed = runner.invoke(app, ["replay", str(record)])
    assert replayed.exit_code == 0, replayed.output
    final = json.loads(replayed.stdout)["final_scores"]
    assert f"Final scores: hard#0 {final[0]}, medium#1 {final[1]}" in result.stdout


def test_play_refuses_a_wrong_seat_count():
    result = runner.invoke(app, ["play", "--preset", "doscientos", "--bots", "hard,easy"])
    assert result.exit_code != 0
    assert "'doscientos' is for [4] players" in result.output
