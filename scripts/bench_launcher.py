"""Server start-up through the preloaded launcher, against a plain subprocess in the same run.

Starts the API server (``uvicorn backend.api.app:create_app``, as the tests' harness does) on a
migrated SQLite file until ``/health`` answers, then stops it: ``--runs`` times as a new
interpreter (the baseline) and as many times forked by ``backend.devstack.preload``, taking
turns so both see the same machine. Prints the median seconds of each and their ratio.

    uv run python scripts/bench_launcher.py [--json] [--quick]
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from backend.db import migrate
from backend.devstack import preload, stack
from scripts.figures import bench_main


def _start_stop(db_url: str, workdir: Path) -> float:
    port = stack.free_port()
    url = f"http://127.0.0.1:{port}"
    env = stack.clean_env(
        DEW_DB_URL=db_url, DEW_CHAIN_MANIFEST_PATH=str(workdir / "no-such-manifest.json")
    )
    started = time.perf_counter()
    service = stack.start_api(
        "server", stack.uvicorn_command(port, "--log-level", "warning"), env,
        workdir / "server.log", url,
    )  # fmt: skip
    seconds = time.perf_counter() - started
    stack.stop_service(service)
    return seconds


def run(quick: bool) -> dict[str, Any]:
    runs = 3 if quick else 10
    with tempfile.TemporaryDirectory(prefix="dew-bench-launcher-") as tmp:
        workdir = Path(tmp)
        db_url = f"sqlite:///{workdir / 'dew.sqlite3'}"
        migrate(db_url)
        launcher = preload.Launcher(workdir)
        plain: list[float] = []
        forked: list[float] = []
        try:
            preload.use(launcher)
            _start_stop(db_url, workdir)  # the launcher's own start, not counted
            for _ in range(runs):
                preload.use(None)
                plain.append(_start_stop(db_url, workdir))
                preload.use(launcher)
                forked.append(_start_stop(db_url, workdir))
        finally:
            preload.use(None)
            launcher.stop()
    return {
        "runs": runs,
        "plain_start_s_median": round(statistics.median(plain), 3),
        "forked_start_s_median": round(statistics.median(forked), 3),
        "ratio_plain_over_forked": round(statistics.median(plain) / statistics.median(forked), 2),
    }


if __name__ == "__main__":
    sys.exit(bench_main(__doc__.splitlines()[0], "3 runs each instead of 10", run))
