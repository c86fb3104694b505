"""The hostile-client suite: every attack runs against a real server process.

Each test plays the worst wallet (or anonymous caller) that can reach a route or socket,
on the SQLite default and on PostgreSQL (the races need PostgreSQL's real concurrency),
and checks both the refusal and that nothing changed. ``docs/security.md`` lists the
callers and their bounds; each finding there names its test here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from backend.db import create_db_engine, make_session_factory
from tests.fixtures.harness import ServerProcess
from tests.hostile.test_tables import Chain

StartServer = Callable[..., ServerProcess]


@pytest.fixture
def start_server(db_url: str) -> Iterator[StartServer]:
    """Start a real ``uvicorn`` server on the module's database (SQLite file or PostgreSQL);
    every server started is stopped after the test. Keyword arguments are ``DEW_SERVER_*``
    settings; ``extra_env`` sets any other ``DEW_*`` variable."""
    started: list[ServerProcess] = []

    def start(**settings: Any) -> ServerProcess:
        server = ServerProcess(db_url, **settings).start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


@pytest.fixture(scope="module")
def chain(deployment: Any) -> Chain:
    """The module's anvil deployment, with the helpers the hostile tests sign with."""
    return Chain(deployment)


@pytest.fixture(scope="module")
def books(db_url: str) -> Iterator[Any]:
    """Sessions on the module's database, for reading what a refusal left unchanged."""
    engine = create_db_engine(db_url)
    yield make_session_factory(engine)
    engine.dispose()
