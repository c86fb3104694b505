"""Real Celery worker processes for the worker tests, plus the chain fixtures they share."""

from __future__ import annotations

import os
import subprocess
import uuid
from pathlib import Path

import pytest

from backend.chain.models import ChainRequest
from backend.devstack import stack
from tests.chain.conftest import interval_mining  # noqa: F401  (fixture)

REPO = stack.REPO_ROOT


class WorkerProcess:
    """``celery worker`` (solo pool: the crash hook kills the whole worker) or ``celery beat``,
    started through the process harness (``backend.devstack.stack``)."""

    def __init__(self, env: dict[str, str], log_path: Path, *, beat: bool = False):
        self.env = env
        self.log_path = log_path
        self.beat = beat
        self.service: stack.Service | None = None

    @property
    def process(self) -> subprocess.Popen[bytes] | None:
        return self.service.process if self.service else None

    def start(self) -> WorkerProcess:
        queues = f"{self.env['DEW_BROKER_PAYOUTS_QUEUE']},{self.env['DEW_BROKER_DEFAULT_QUEUE']}"
        if self.beat:  # celery beat, the scheduler, in its own process
            schedule = str(self.log_path.with_suffix(".schedule"))
            command = ["beat", "--loglevel", "INFO", "-s", schedule]
        else:
            name = f"test-{uuid.uuid4().hex[:8]}@%h"
            command = ["worker", "--pool", "solo", "-Q", queues, "--loglevel", "INFO"]
            command += ["--without-gossip", "--without-mingle", "--without-heartbeat", "-n", name]
        role = "beat" if self.beat else "worker"
        self.service = stack.Service(
            role, stack.celery_command(*command), {**os.environ, **self.env}, self.log_path
        )
        return self

    def alive(self) -> bool:
        return self.service is not None and self.service.exited() is None

    def stop(self) -> None:
        """SIGTERM, and SIGKILL after 3 s: a warm shutdown would wait for a running pump, and
        the engine is built to be killed anywhere."""
        if self.service is not None:
            stack.stop_service(self.service, timeout_s=3)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")


def worker_env(deployment, db_url: str, broker_url: str, **chain: str) -> dict[str, str]:
    suffix = uuid.uuid4().hex[:8]
    env = {
        "DEW_DB_URL": db_url,
        "DEW_BROKER_URL": broker_url,
        "DEW_BROKER_PAYOUTS_QUEUE": f"payouts-{suffix}",
        "DEW_BROKER_DEFAULT_QUEUE": f"dew-{suffix}",
        "DEW_CHAIN_RPC_URL": deployment.anvil.rpc_url,
        "DEW_CHAIN_CHAIN_ID": str(deployment.manifest.chain_id),
        "DEW_CHAIN_MANIFEST_PATH": str(deployment.manifest_path),
        "DEW_CHAIN_OPERATOR_KEY": deployment.operator_key,
        "DEW_CHAIN_CONFIRMATIONS": "2",
        "DEW_CHAIN_POLL_INTERVAL_S": "0.1",
        "DEW_CHAIN_PUMP_LEASE_S": "2",
        "DEW_CHAIN_REBROADCAST_AFTER_S": "1",
    }
    env.update({f"DEW_CHAIN_{k.upper()}": v for k, v in chain.items()})
    return env


@pytest.fixture
def workers(tmp_path):
    """Start workers with ``workers(env)``; every one is stopped after the test."""
    started: list[WorkerProcess] = []

    def start(env: dict[str, str], *, beat: bool = False) -> WorkerProcess:
        log = tmp_path / f"worker-{len(started)}.log"
        worker = WorkerProcess(env, log, beat=beat).start()
        started.append(worker)
        return worker

    yield start
    for worker in started:
        worker.stop()


def request_counts(sessions) -> dict[str, int]:
    from sqlalchemy import func, select

    with sessions() as session:
        return dict(
            session.execute(
                select(ChainRequest.status, func.count()).group_by(ChainRequest.status)
            ).all()
        )
