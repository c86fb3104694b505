"""scripts/bench_web.py leaves no server running when the server never answers /health."""

from __future__ import annotations

import importlib.util
import subprocess
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
