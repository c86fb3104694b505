"""Moderators' sanctions: impose (warn, mute, suspend, ban), lift, the wallet's one appeal
and its answer, each written to the audit; and the moderator's role the operator grants.

Every sanction has a reason and an end, and the gate (:mod:`backend.care.standing`) reads
it at every door. No sanction touches a balance: a banned wallet's stake balance is still
paid out by a withdrawal (docs/economy.md, "Sanctions and money").
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from backend.care import exceptions as exc
from backend.care.models import (
    APPEAL_MAX_CHARS,
    REASON_MAX_CHARS,
    Moderator,
    Sanction,
    SanctionAudit,
)
from backend.care.standing import check_duration, wallet
from backend.db import dialect
from backend.db.base import aware, utcnow
from backend.economy import stakes
from backend.economy.stakes import WithdrawalBounds
from backend.kit.rows import columns
from backend.kit.text import clean_text

KINDS = ("warn", "mute", "suspend", "ban")
# How long each kind may last: a floor that makes it mean something, a ceiling that makes
# it end (a ban of ten years is this server's "for good", and still has an end).
DURATIONS: dict[str, tuple[timedelta, timedelta]] = {
    "warn": (timedelta(hours=1), timedelta(days=365)),
    "mute": (timedelta(minutes=10), timedelta(days=90)),
    "suspend": (timedelta(hours=1), timedelta(days=365)),
    "ban": (timedelta(days=1), timedelta(days=3650)),
}


@dataclass(frozen=True)
class SanctionRow:
    id: int
    address: str
    kind: str
    reason: str
    complaint_id: int | None
    imposed_by: str
    created_at: datetime
    expires_at: datetime
    lifted_at: datetime | None
    appeal: str | None
    appealed_at: datetime | None
    answer: str | None
    answered_at: datetime | None

    def active(self, now: datetime) -> bool:
        return self.lifted_at is None and self.expires_at > now


def row_of(s: Sanction) -> SanctionRow:
    return SanctionRow(
        **columns(s, "id address kind reason complaint_id imposed_by appeal answer"),
        created_at=aware(s.created_at),
        expires_at=aware(s.expires_at),
        lifted_at=aware(s.lifted_at),
        appealed_at=aware(s.appealed_at),
        answered_at=aware(s.answered_at),
    )


def _text(value: str | None, what: str, limit: int) -> str:
    text = clean_text(value) if isinstance(value, str) else ""
    if not text or len(text) > limit:
        raise exc.InvalidCare(f"{what} is 1 to {limit} characters")
    return text


def _audit(session: Session, sanction_id: int, action: str, actor: str, note: str | None) -> None:
    session.add(SanctionAudit(sanction_id=sanction_id, action=action, actor=actor, note=note))


@dataclass(frozen=True)
class Terms:
    """What a sanction imposes, however it comes (on a complaint or on a wallet, from the API
    or the operator's shell): its kind, the reason the wallet reads, how long it lasts."""

    kind: str
    reason: str
    duration: timedelta


def record(
    *,
    session: Session,
    address: str,
    terms: Terms,
    actor: str,
    complaint_id: int | None = None,
    now: datetime | None = None,
) -> SanctionRow:
    """Write a sanction and its audit row; flushes, the caller commits."""
    check_duration(terms.kind, terms.duration, DURATIONS)
    address = wallet(address)
    text = _text(terms.reason, "a reason", REASON_MAX_CHARS)
    now = now or utcnow()
    sanction = Sanction(
        address=address,
        kind=terms.kind,
        reason=text,
        complaint_id=complaint_id,
        imposed_by=actor,
        expires_at=now + terms.duration,
        created_at=now,
    )
    session.add(sanction)
    session.flush()
    _audit(session, sanction.id, "impose", actor, text)
    session.flush()
    return row_of(sanction)


def impose(*, session: Session, address: str, terms: Terms, actor: str) -> SanctionRow:
    """:func:`record`, committed."""
    row = record(session=session, address=address, terms=terms, actor=actor)
    session.commit()
    return row


def _locked(session: Session, sanction_id: int, address: str | None = None) -> Sanction:
    query = select(Sanction).where(Sanction.id == sanction_id)
    if address is not None:
        query = query.where(Sanction.address == wallet(address))
    sanction = session.scalar(dialect.for_update(session, query))
    if sanction is None:
        raise exc.SanctionNotFound(f"no sanction {sanction_id}")
    return sanction


def lift(
    *, session: Session, sanction_id: int, actor: str, note: str, now: datetime | None = None
) -> SanctionRow:
    """End a sanction early (a mistake, a change of mind); committed, with its audit row."""
    text = _text(note, "a note", REASON_MAX_CHARS)
    now = now or utcnow()
    sanction = _locked(session, sanction_id)
    if sanction.lifted_at is not None or aware(sanction.expires_at) <= now:
        raise exc.AlreadyLifted(f"sanction {sanction_id} has already ended")
    sanction.lifted_at = now
    _audit(session, sanction.id, "lift", actor, text)
    session.flush()
    row = row_of(sanction)
    session.commit()
    return row


def appeal(
    *, session: Session, address: str, sanction_id: int, text: str, now: datetime | None = None
) -> SanctionRow:
    """The wallet's one appeal of its sanction: a conditional update, so parallel appeals
    leave one. Committed, with its audit row."""
    words = _text(text, "an appeal", APPEAL_MAX_CHARS)
    address = wallet(address)
    now = now or utcnow()
    done = session.execute(
        update(Sanction)
        .where(
            Sanction.id == sanction_id,
            Sanction.address == address,
            Sanction.appealed_at.is_(None),
        )
        .values(appeal=words, appealed_at=now)
    )
    if getattr(done, "rowcount", 0) != 1:
        session.rollback()
        mine = session.scalar(
            select(Sanction.id).where(Sanction.id == sanction_id, Sanction.address == address)
        )
        if mine is None:
            raise exc.SanctionNotFound(f"no sanction {sanction_id} of yours")
        raise exc.AlreadyAppealed(f"sanction {sanction_id} was already appealed: once only")
    _audit(session, sanction_id, "appeal", address, words)
    session.flush()
    row = row_of(_locked(session, sanction_id))
    session.commit()
    return row


def answer(
    *,
    session: Session,
    sanction_id: int,
    actor: str,
    uphold: bool,
    note: str,
    now: datetime | None = None,
) -> SanctionRow:
    """Answer an appeal: uphold the sanction or lift it; committed, with its audit row."""
    text = _text(note, "an answer", REASON_MAX_CHARS)
    now = now or utcnow()
    sanction = _locked(session, sanction_id)
    if sanction.appealed_at is None or sanction.answered_at is not None:
        raise exc.NotAppealed(f"sanction {sanction_id} has no appeal waiting for an answer")
    sanction.answer, sanction.answered_by, sanction.answered_at = text, actor, now
    if not uphold and sanction.lifted_at is None:
        sanction.lifted_at = now
    _audit(session, sanction.id, "uphold" if uphold else "lift", actor, text)
    session.flush()
    row = row_of(sanction)
    session.commit()
    return row


def sanctions_of(*, session: Session, address: str, limit: int = 100) -> list[SanctionRow]:
    """The wallet's sanctions, newest first (ended ones too: the wallet sees its record)."""
    query = (
        select(Sanction)
        .where(Sanction.address == wallet(address))
        .order_by(Sanction.id.desc())
        .limit(max(1, min(limit, 1000)))
    )
    return [row_of(s) for s in session.scalars(query)]


def list_sanctions(
    *, session: Session, appealed: bool = False, limit: int = 100
) -> list[SanctionRow]:
    """Every sanction newest first (``appealed``: only appeals waiting for an answer)."""
    query = select(Sanction).order_by(Sanction.id.desc()).limit(max(1, min(limit, 10_000)))
    if appealed:
        query = query.where(Sanction.appealed_at.is_not(None), Sanction.answered_at.is_(None))
    return [row_of(s) for s in session.scalars(query)]


def audit(*, session: Session, sanction_id: int) -> list[dict[str, Any]]:
    """The sanction's audit rows, oldest first."""
    return [
        {"action": a.action, "actor": a.actor, "note": a.note, "at": aware(a.created_at)}
        for a in session.scalars(
            select(SanctionAudit)
            .where(SanctionAudit.sanction_id == sanction_id)
            .order_by(SanctionAudit.id)
        )
    ]


# -- the moderator's role ------------------------------------------------------------------


def is_moderator(*, session: Session, address: str) -> bool:
    return session.get(Moderator, wallet(address)) is not None


def grant(*, session: Session, address: str, by: str) -> bool:
    """Grant the moderator's role; False if the wallet already holds it. Committed."""
    address = wallet(address)
    inserted = session.execute(
        dialect.insert(session, Moderator.__table__)
        .values(address=address, granted_by=by, created_at=utcnow())
        .on_conflict_do_nothing()
    )
    session.commit()
    return bool(getattr(inserted, "rowcount", 0))


def revoke(*, session: Session, address: str) -> bool:
    """Take the role back; False if the wallet did not hold it. Committed."""
    row = session.get(Moderator, wallet(address))
    if row is None:
        return False
    session.delete(row)
    session.commit()
    return True


def moderators(*, session: Session) -> list[str]:
    return list(session.scalars(select(Moderator.address).order_by(Moderator.address)))


# -- a sanctioned wallet's balance -----------------------------------------------------------


def pay_out(
    *, session: Session, address: str, key: str, chain_id: int, bounds: WithdrawalBounds
) -> int:
    """Withdraw a wallet's whole free stake balance to the wallet itself (up to one
    withdrawal's ceiling), for a banned wallet that holds no session to ask: the balance is
    never kept. Returns the amount asked for (0: nothing to pay); committed. ``key`` makes a
    repeat the same withdrawal."""
    address = wallet(address)
    amount = min(stakes.stake_balance(session=session, address=address), bounds.max_amount)
    if amount < bounds.min_amount:
        return 0
    stakes.request_withdrawal(
        session=session,
        address=address,
        amount=amount,
        key=key,
        chain_id=chain_id,
        bounds=replace(bounds, max_open=None, max_per_day=None),
    )
    session.commit()
    return amount
