"""Seasons: schedule slots, each with an emission budget that match rewards draw on.

Services take keyword-only ``session`` and never commit: the caller's transaction decides.
:func:`season_at` with ``lock=True`` is the row lock that serializes settlement plans
(``backend.economy.settlement``), so two plans never spend the same budget.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from backend.db import dialect
from backend.db.base import get_or_raise
from backend.economy.exceptions import EconomyValueError, SeasonNotFound
from backend.economy.models import Season

# The advisory lock that serializes season creation (``dialect.lock_key``).
SEASONS_LOCK = "economy-seasons"


def create_season(
    *, session: Session, name: str, starts_at: datetime, ends_at: datetime, emission_budget: int
) -> Season:
    if not name or len(name) > 64:
        raise EconomyValueError(f"season name must be 1..64 characters, got {name!r}")
    if starts_at.tzinfo is None or ends_at.tzinfo is None:
        raise EconomyValueError("season times must be timezone-aware")
    if ends_at <= starts_at:
        raise EconomyValueError(f"season ends ({ends_at}) before it starts ({starts_at})")
    if emission_budget < 0:
        raise EconomyValueError(f"emission budget must be >= 0, got {emission_budget!r}")
    # Creations are serialized until the transaction ends, so the overlap check reads every
    # season a parallel creation committed (PostgreSQL; SQLite has one writer at a time).
    dialect.lock_key(session, SEASONS_LOCK)
    overlapping = session.scalars(
        select(Season).where(Season.starts_at < ends_at, Season.ends_at > starts_at)
    ).first()
    if overlapping is not None:
        raise EconomyValueError(f"season {name!r} overlaps season {overlapping.name!r}")
    season = Season(
        name=name,
        starts_at=starts_at,
        ends_at=ends_at,
        emission_budget=str(emission_budget),
        emitted="0",
    )
    session.add(season)
    session.flush()
    return season


def schedule_seasons(
    *,
    session: Session,
    first_starts_at: datetime,
    count: int,
    length: timedelta,
    emission_budget: int,
    name_prefix: str = "Season",
    create: Callable[..., Season] | None = None,
) -> list[Season]:
    """Back-to-back seasons ``<prefix> 1..count``, each ``length`` long with its own budget,
    each made by ``create`` (keyword arguments as :func:`create_season`, the default); the
    caller's rollback undoes all on a refusal."""
    if first_starts_at.tzinfo is None:
        raise EconomyValueError("season times must be timezone-aware")
    if not name_prefix or len(name_prefix) > 48:
        raise EconomyValueError(f"name prefix must be 1..48 characters, got {name_prefix!r}")
    create = create or create_season
    return [
        create(
            session=session,
            name=f"{name_prefix} {number}",
            starts_at=starts_at,
            ends_at=ends_at,
            emission_budget=emission_budget,
        )
        for number, starts_at, ends_at in back_to_back(first_starts_at, count, length)
    ]


def back_to_back(
    first_starts_at: datetime, count: int, length: timedelta
) -> list[tuple[int, datetime, datetime]]:
    """The windows of ``count`` (1..100) seasons of ``length``, one after the other: their
    numbers from 1, their starts and their ends."""
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= 100:
        raise EconomyValueError(f"count must be 1..100, got {count!r}")
    if length <= timedelta(0):
        raise EconomyValueError(f"season length must be positive, got {length!r}")
    return [
        (i + 1, first_starts_at + i * length, first_starts_at + (i + 1) * length)
        for i in range(count)
    ]


def season_at(*, session: Session, when: datetime, lock: bool = False) -> Season | None:
    query = select(Season).where(Season.starts_at <= when, Season.ends_at > when)
    if lock:
        query = query.with_for_update()
    return session.scalars(query).first()


def get_season(*, session: Session, season_id: int) -> Season:
    return get_or_raise(
        session, Season, season_id, SeasonNotFound(f"no season with id {season_id!r}")
    )
