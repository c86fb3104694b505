"""Fixtures shared by the match-server tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import Engine, create_engine


@pytest.fixture(scope="module")
def db(pg_url: str) -> Iterator[Engine]:
    """An engine on the module's PostgreSQL database, for checking what the server wrote."""
    engine = create_engine(pg_url)
    yield engine
    engine.dispose()
