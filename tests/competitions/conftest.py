"""Fixtures for the tournament tests: a PostgreSQL database and helpers to drive tournaments."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from backend.db import create_db_engine, make_session_factory


@pytest.fixture(scope="module")
def engine(pg_url: str) -> Iterator[Engine]:
    engine = create_db_engine(pg_url)
    yield engine
    engine.dispose()


@pytest.fixture(scope="module")
def sessions(engine: Engine) -> sessionmaker[Session]:
    return make_session_factory(engine)
