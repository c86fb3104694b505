"""The declarative base every aggregate's models derive from."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, TypeVar, overload

from sqlalchemy import DateTime, MetaData
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column

# Stable constraint names make Alembic migrations identical on SQLite and PostgreSQL.
NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


def utcnow() -> datetime:
    return datetime.now(UTC)


@overload
def aware(when: datetime) -> datetime: ...
@overload
def aware(when: None) -> None: ...
def aware(when: datetime | None) -> datetime | None:
    """``when`` with its zone: SQLite hands timezone-aware columns back naive, and every
    datetime is stored in UTC. Aware datetimes and ``None`` are returned as they are."""
    if when is not None and when.tzinfo is None:
        return when.replace(tzinfo=UTC)
    return when


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class TimestampMixin:
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


M = TypeVar("M")


def get_or_raise(session: Session, model: type[M], key: Any, missing: Exception) -> M:
    """The row of ``model`` under primary key ``key``; ``missing`` is raised when there is none
    (the domain's own not-found error, naming what was asked for)."""
    row = session.get(model, key)
    if row is None:
        raise missing
    return row
