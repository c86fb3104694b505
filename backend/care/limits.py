"""What a player limits itself to ("Risks & Control", seed 000): a deposit and a stake limit
per day, week or month, lowered at once and raised only after a cooling period; a time-out
(24 hours to 6 weeks); a self-exclusion (6 months or more). Nothing ends a break early, and
nothing here ever stands in the way of a withdrawal (:mod:`backend.care.standing`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TypeVar

from sqlalchemy.orm import Session

from backend.care import exceptions as exc
from backend.care import standing
from backend.care.models import PlayerBreak, PlayerLimit
from backend.care.standing import (
    COOLING,
    LIMIT_KINDS,
    PERIODS,
    Door,
    Limit,
    active_breaks,
    check_duration,
    in_force,
    limits,
    wallet,
)
from backend.db import dialect
from backend.db.base import aware, utcnow
from backend.economy.policy import MAX_PAYOUT_AMOUNT

BREAKS: dict[str, tuple[timedelta, timedelta]] = {
    "timeout": (timedelta(hours=24), timedelta(weeks=6)),
    # Six months is its floor; five years its ceiling, so that it still has an end.
    "exclusion": (timedelta(days=183), timedelta(days=5 * 365)),
}


def set_limit(
    *,
    session: Session,
    address: str,
    kind: str,
    period: str,
    amount: int | None,
    now: datetime | None = None,
) -> Limit:
    """Set the wallet's ``kind`` limit over ``period`` (None: no limit). A lower limit holds
    at once; a higher one, or none, only after :data:`COOLING`. Committed."""
    if kind not in LIMIT_KINDS:
        raise exc.InvalidCare(f"unknown limit {kind!r:.20}: deposit or stake")
    if period not in PERIODS:
        raise exc.InvalidCare(f"unknown period {period!r:.20}: day, week or month")
    if amount is not None and (
        not isinstance(amount, int)
        or isinstance(amount, bool)
        or not 0 <= amount <= MAX_PAYOUT_AMOUNT
    ):
        raise exc.InvalidCare(f"a limit is 0..2**88-1 DEW wei, got {amount!r:.40}")
    address = wallet(address)
    now = now or utcnow()
    dialect.lock_key(session, f"care:{address.lower()}")
    row = session.get(PlayerLimit, (address, kind, period), populate_existing=True)
    if row is None:
        row = PlayerLimit(address=address, kind=kind, period=period, amount=None, created_at=now)
        session.add(row)
        current: int | None = None
    else:
        current = in_force(row, now)
    lower = amount is not None and (current is None or amount <= current)
    if lower:
        row.amount, row.pending, row.pending_from = str(amount), None, None
    else:
        # A raise (or removal) waits; what holds until then is what held when it was asked.
        row.amount = None if current is None else str(current)
        row.pending = None if amount is None else str(amount)
        row.pending_from = now + COOLING
    session.flush()
    session.commit()
    return next(x for x in limits(session, address, now) if x.kind == kind and x.period == period)


@dataclass(frozen=True)
class BreakRow:
    id: int
    kind: str
    starts_at: datetime
    ends_at: datetime


def take_break(
    *,
    session: Session,
    address: str,
    kind: str,
    duration: timedelta,
    now: datetime | None = None,
) -> BreakRow:
    """Start a time-out or a self-exclusion now. It cannot be shortened or ended; a second
    one runs beside the first (whichever ends later holds). Committed."""
    check_duration(kind, duration, BREAKS)
    address = wallet(address)
    now = now or utcnow()
    row = PlayerBreak(
        address=address, kind=kind, starts_at=now, ends_at=now + duration, created_at=now
    )
    session.add(row)
    session.flush()
    out = BreakRow(id=row.id, kind=kind, starts_at=now, ends_at=aware(row.ends_at))
    session.commit()
    return out


def breaks_of(*, session: Session, address: str, now: datetime | None = None) -> list[BreakRow]:
    """The wallet's breaks in force."""
    now = now or utcnow()
    return [
        BreakRow(id=b.id, kind=b.kind, starts_at=aware(b.starts_at), ends_at=aware(b.ends_at))
        for b in active_breaks(session, wallet(address), now)
    ]


def limits_of(*, session: Session, address: str, now: datetime | None = None) -> list[Limit]:
    return limits(session, wallet(address), now)


T = TypeVar("T")


def deposit_door(
    *,
    session: Session,
    address: str,
    amount: int,
    build: Callable[[], T],
    now: datetime | None = None,
) -> T:
    """The deposit door: the gate (a sanction, a break, the deposit limits, counted under the
    wallet's lock), then ``build`` (the transfer for the wallet to sign); the deposit asked
    counts against the limits once built. Committed; nothing is kept if ``build`` fails."""
    standing.require(session, address, Door.DEPOSIT, amount=amount, now=now)
    try:
        built = build()
    except BaseException:
        session.rollback()
        raise
    session.commit()
    return built
