"""Relational persistence: engine and sessions, the declarative base, Alembic migrations."""

from backend.db.base import Base
from backend.db.session import create_db_engine, make_session_factory, migrate

__all__ = ["Base", "create_db_engine", "make_session_factory", "migrate"]
