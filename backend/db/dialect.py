"""Where PostgreSQL and SQLite differ, in one place.

The rest of the code asks these questions instead of reading ``dialect.name`` itself:
which upsert to build, whether rows can be locked, and how to serialize one key's writers.
SQLite runs one writer at a time (the engine opens writes with ``BEGIN IMMEDIATE``), so on
SQLite the locks are no-ops; PostgreSQL gets row locks and advisory locks.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, TypeVar

from sqlalchemy import Connection, Engine, Select, func, select, text
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

Bind = Engine | Connection | Session
S = TypeVar("S", bound=Select[Any])


def name(bind: Bind) -> str:
    """The dialect's name: ``"postgresql"`` or ``"sqlite"``."""
    if isinstance(bind, Session):
        return bind.get_bind().dialect.name
    return bind.dialect.name


def is_postgresql(bind: Bind) -> bool:
    return name(bind) == "postgresql"


def insert(bind: Bind, table: Any) -> Any:
    """An INSERT for ``table`` with the dialect's ``on_conflict_do_*`` (both spell it alike)."""
    return (postgresql.insert if is_postgresql(bind) else sqlite.insert)(table)


def for_update(bind: Bind, statement: S, *, skip_locked: bool = False) -> S:
    """``statement`` locking its rows until the transaction ends (PostgreSQL; on SQLite the
    transaction already holds the database's one write lock)."""
    if is_postgresql(bind):
        return statement.with_for_update(skip_locked=skip_locked)
    return statement


def lock_key(session: Session, key: str) -> None:
    """Serialize the transactions that lock ``key`` until each ends (PostgreSQL's advisory
    transaction lock; SQLite already runs one writer at a time)."""
    if is_postgresql(session):
        session.execute(text("SELECT pg_advisory_xact_lock(hashtext(:key))"), {"key": key})


def count_locked(session: Session, key: str, created_at: Any, since: datetime, *where: Any) -> int:
    """The rows ``where`` selects that were written since ``since``, counted under ``key``
    (:func:`lock_key`, held to the commit): parallel writers of one key are counted one
    after another, so they cannot pass a cap together. Reports, support tickets, friend
    requests and private messages are capped through it."""
    lock_key(session, key)
    return session.scalar(select(func.count()).where(created_at >= since, *where)) or 0
