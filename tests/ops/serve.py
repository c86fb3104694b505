"""``dew serve`` as a real process (multiprocess metrics, structured logs), for ops tests."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import httpx

from tests.tables.harness import REPO, free_port, wait_for


class DewServe:
    """``dew serve --workers N`` on ``db_url``; its whole output (the log) in ``log_path``."""

    def __init__(self, db_url: str, *, workers: int = 1, env: dict[str, str] | None = None):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.ws_url = f"ws://127.0.0.1:{self.port}"
        base = {k: v for k, v in os.environ.items() if not k.startswith("DEW_")}
        base["DEW_DB_URL"] = db_url
        base["DEW_CHAIN_MANIFEST_PATH"] = str(REPO / "var" / "no-such-manifest.json")
        base.update(env or {})
        self.env = base
        self.workers = workers
        self.log_path = Path(f"/tmp/dew-serve-{self.port}.log")
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, log_level: str = "info") -> DewServe:
        if self.proc is not None:
            raise RuntimeError("already started")
        command = [sys.executable, "-c", "from backend.cli import app; app()", "serve"]
        command += ["--port", str(self.port), "--workers", str(self.workers)]
        command += ["--log-level", log_level]
        with self.log_path.open("wb") as log:
            self.proc = subprocess.Popen(
                command, cwd=REPO, env=self.env, stdout=log, stderr=subprocess.STDOUT
            )

        def up() -> bool:
            assert self.proc is not None
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited: {self.log_path.read_text()[-3000:]}")
            try:
                return httpx.get(self.url + "/health", timeout=1).status_code == 200
            except httpx.HTTPError:
                return False

        try:
            wait_for(up, timeout=120, what="dew serve")
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)

    def __enter__(self) -> DewServe:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def scrape(url: str, headers: dict[str, str] | None = None) -> dict[str, float]:
    """``/metrics`` as {sample with labels: value} (labels as Prometheus prints them)."""
    from prometheus_client.parser import text_string_to_metric_families

    response = httpx.get(url + "/metrics", headers=headers or {}, timeout=10)
    response.raise_for_status()
    samples: dict[str, float] = {}
    for family in text_string_to_metric_families(response.text):
        for s in family.samples:
            labels = ",".join(f'{k}="{v}"' for k, v in sorted(s.labels.items()))
            samples[f"{s.name}{{{labels}}}" if labels else s.name] = s.value
    return samples
