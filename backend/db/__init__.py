"""Relational persistence: engine and sessions, the declarative base, the dialect switches.

The Alembic migrations live in ``backend/migrations/``, beside ``backend/models.py``: they
import every aggregate's models, which the database layer itself never does."""

from backend.db.base import Base
from backend.db.session import create_db_engine, make_session_factory, migrate

__all__ = ["Base", "create_db_engine", "make_session_factory", "migrate"]
