"""A real Celery worker with JSON logs: a task enqueued while a request id is bound logs
that request id (it travels in the task's headers), plus its task name and id."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from tests.fixtures.database import create_migrated_sqlite
from tests.fixtures.harness import REPO, wait_for
from tests.fixtures.redis import REDIS_URL
from tests.fixtures.workers import WorkerProcess

pytestmark = pytest.mark.timeout(180)

ENQUEUE = """
from structlog.contextvars import bind_contextvars
from worker.celery_app import app
bind_contextvars(request_id={request_id!r})
app.send_task("worker.tasks.advance_tournaments_task", queue={queue!r})
"""


def test_a_task_logs_the_request_id_that_enqueued_it(tmp_path: Path) -> None:
    db_url = create_migrated_sqlite(tmp_path / "dew.sqlite3")
    suffix = uuid.uuid4().hex[:8]
    env = {
        "DEW_DB_URL": db_url,
        "DEW_BROKER_URL": REDIS_URL,
        "DEW_BROKER_PAYOUTS_QUEUE": f"payouts-{suffix}",
        "DEW_BROKER_DEFAULT_QUEUE": f"dew-{suffix}",
        "DEW_CHAIN_MANIFEST_PATH": str(tmp_path / "no-manifest.json"),
        "DEW_LOG_FORMAT": "json",
        "DEW_METRICS_WORKER_PORT": "0",
    }
    worker = WorkerProcess(env, tmp_path / "worker.log").start()
    try:
        request_id = f"req-{uuid.uuid4().hex[:12]}"
        script = ENQUEUE.format(request_id=request_id, queue=env["DEW_BROKER_DEFAULT_QUEUE"])
        subprocess.run(
            [sys.executable, "-c", script],
            cwd=REPO,
            env={**{k: v for k, v in os.environ.items() if not k.startswith("DEW_")}, **env},
            check=True,
            timeout=60,
        )

        def carried() -> list[dict]:
            lines = [line for line in worker.log().splitlines() if line.startswith("{")]
            records = [json.loads(line) for line in lines]
            return [r for r in records if r.get("request_id") == request_id]

        records = wait_for(carried, timeout=60, interval=0.2, what="the task's log lines")
        assert all(r["task"] == "worker.tasks.advance_tournaments_task" for r in records)
        assert all(r["task_id"] and r["task_id"] != request_id for r in records)
    finally:
        worker.stop()
