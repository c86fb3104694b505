"""The ``dew`` commands' tests run on the module's chain mining a block a second; a flow
through the worker gets its SQLite database, broker and settings from ``cli_flow``, and its
worker and beat (running, the worker's start-up pump done) from ``start_worker_and_beat``."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.orm import Session, sessionmaker

from backend.db import create_db_engine, make_session_factory
from tests.chain.conftest import (
    interval_mining,  # noqa: F401  (fixture)
    wait_for,
)
from tests.fixtures.database import create_migrated_sqlite
from tests.fixtures.workers import WorkerProcess, worker_env


@dataclass
class CliFlow:
    url: str
    sessions: sessionmaker[Session]
    env: dict[str, str]
    """The worker's, beat's and the commands' settings (the outbox pumped every second)."""


@pytest.fixture
def cli_flow(deployment: Any, tmp_path: Path) -> Iterator[CliFlow]:
    url = create_migrated_sqlite(tmp_path / "dew.sqlite3")
    engine = create_db_engine(url)
    env = worker_env(deployment, url, f"sqla+sqlite:///{tmp_path / 'broker.sqlite3'}")
    env["DEW_BROKER_PUMP_EVERY_S"] = "1"
    yield CliFlow(url, make_session_factory(engine), env)
    engine.dispose()


def start_worker_and_beat(
    workers: Callable[..., WorkerProcess], env: dict[str, str]
) -> tuple[WorkerProcess, WorkerProcess]:
    """A worker (once its start-up pump succeeded) and beat (once it started) on ``env``."""
    worker = workers(env)
    wait_for(lambda: "succeeded" in worker.log(), timeout_s=60, what="the start-up pump")
    beat = workers(env, beat=True)
    wait_for(lambda: "beat: Starting" in beat.log(), timeout_s=60, what="beat to start")
    return worker, beat
