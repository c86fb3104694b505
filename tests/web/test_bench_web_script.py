"""scripts/bench_web.py leaves no server running when the server never answers /health, and
its --json figures include the play animation's frame time, a guest's way from the landing page
to the first move, the hand tiles' size on a phone and the walk of every screen."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from backend.chain.contracts import REPO_ROOT


def test_bench_web_stops_the_server_it_could_not_reach(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = importlib.util.spec_from_file_location("bench_web", REPO_ROOT / "scripts/bench_web.py")
    assert spec and spec.loader
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    started: list[subprocess.Popen[bytes]] = []

    def never_healthy(proc: subprocess.Popen[bytes], url: str, timeout_s: float) -> None:
        started.append(proc)
        raise RuntimeError("the server did not start in 60 s")

    monkeypatch.setattr(bench, "wait_healthy", never_healthy)
    with pytest.raises(RuntimeError, match="did not start"):
        bench.start_server(f"sqlite:///{tmp_path}/dew.sqlite3")
    assert len(started) == 1
    assert started[0].poll() is not None  # stopped and reaped, not left running


@pytest.mark.timeout(700)
def test_bench_web_json_reports_its_figures_within_the_budgets() -> None:
    """The --quick --json run measures the first load, the lobby, the play animation's frame
    times (10 plays in quick mode), 3 guests' first moves and the walk of every screen in both
    languages at 390x844, in a real Chromium against real servers."""
    done = subprocess.run(
        [sys.executable, str(REPO_ROOT / "scripts/bench_web.py"), "--quick", "--json"],
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    assert figures["plays"] >= 10 and figures["play_frames"] > 0
    assert 0 < figures["play_frame_ms_p50"] <= figures["play_frame_ms_p95"]
    assert figures["play_frame_ms_p95"] <= 16.0
    assert figures["first_load_bytes"] <= 150_000  # issue 31's budget
    # The lobby's time depends on the machine's load (a shared 2-core runner): the script prints
    # it against its 1 s budget; here only that it was measured.
    assert figures["interactive_ms_p50"] > 0
    # A guest: from the landing page to a move played in at most 2 clicks, on hand tiles of
    # at least 44 px a side at 390x844. Its time includes a cold load, like the lobby's: the
    # script prints it against its 2 s goal; here that it was measured, in order.
    assert figures["guest_runs"] == 3
    assert 1 <= figures["guest_clicks_to_first_move"] <= 2
    assert 0 < figures["guest_ms_to_table_p50"] <= figures["guest_ms_to_first_move_p50"]
    assert figures["min_hand_tile_target_px_390"] >= 44
    # The walk: every screen of the navigation, the menu and a practice hand, in es and en.
    assert figures["screens_walked"] >= 2 * 15
    assert figures["screens_with_developer_text"] == 0, figures["developer_text"]
    assert figures["screens_overflowing_390"] == 0, figures["overflowing"]
