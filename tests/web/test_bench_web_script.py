"""scripts/bench_web.py leaves no server running when the server never answers /health, and
its --json figures include the play animation's frame time (issue 21)."""

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
def test_bench_web_json_reports_the_play_frame_time_within_the_budgets() -> None:
    """The --quick --json run measures the first load, the lobby and the play animation's
    frame times (10 plays in quick mode) in a real Chromium against real servers."""
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
    assert figures["first_load_bytes"] <= 200 * 1024
    # The lobby's time depends on the machine's load (a shared 2-core runner): the script prints
    # it against its 1 s budget; here only that it was measured.
    assert figures["interactive_ms_p50"] > 0
