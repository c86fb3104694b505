"""``dew serve`` as a real process (multiprocess metrics, structured logs), for ops tests."""

from __future__ import annotations

import httpx

from backend.devstack import stack
from tests.fixtures.harness import ServerProcess


class DewServe(ServerProcess):
    """``dew serve --workers N`` on ``db_url``; its whole output (the log) in ``log_path``."""

    def __init__(self, db_url: str, *, workers: int = 1, env: dict[str, str] | None = None):
        super().__init__(db_url, extra_env=env)
        self.workers = workers
        self.log_level = "info"

    def command(self) -> list[str]:
        options = ["--workers", str(self.workers), "--log-level", self.log_level]
        return stack.serve_command(self.port, *options)

    def start(self, log_level: str = "info") -> DewServe:
        self.log_level = log_level
        super().start()
        return self

    def stop(self, timeout_s: float = 20) -> None:
        """SIGTERM, with time for ``--workers`` to shut down (their metrics files too)."""
        super().stop(timeout_s)

    def __enter__(self) -> DewServe:
        return self.start()


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
