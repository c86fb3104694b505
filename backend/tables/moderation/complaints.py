"""Reports of players ("Complaints", seed 000): filed by a signed-in wallet about a player it
shares or shared a table with, or about a private message a friend sent it, read and closed
by the operator (``dew complaints``).

A report names a table, so "shares or shared a table" is checked against that table's seats
and the seats of every match played at it; the same reporter can report the same player at
the same table once (a unique index, not a check-then-insert), and a wallet files at most
``TalkSettings.reports_per_day`` reports in 24 hours (counted under a per-reporter lock).
A report of a message names the message instead of a table: only its recipient reports it,
once (a unique index), under the same daily cap; the moderators read the message with it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import DateTime, ForeignKey, Index, Integer, String, func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import InstrumentedAttribute, Mapped, Session, mapped_column

from backend.db import dialect
from backend.db.base import Base, TimestampMixin, aware, get_or_raise, utcnow
from backend.friends import service as friends
from backend.friends.models import FriendMessage
from backend.kit.rows import columns
from backend.kit.text import clean_text
from backend.protocol.messages import REPORT_REASONS
from backend.tables import exceptions as exc
from backend.tables.models import Match, Table, TableSeat

NOTE_MAX_CHARS = 280
RESOLUTION_MAX_CHARS = 280
STATUSES = ("open", "closed")
ADDRESS = re.compile(r"^0x[0-9a-fA-F]{40}$")
# How many matches of one table are searched for table mates (a table hosts few matches).
MATCHES_SEARCHED = 500


class Complaint(TimestampMixin, Base):
    __tablename__ = "complaints"
    __table_args__ = (
        Index(
            "uq_complaints_reporter_reported_table",
            "reporter",
            "reported",
            "table_id",
            unique=True,
        ),
        Index("ix_complaints_reporter_created_at", "reporter", "created_at"),
        Index("uq_complaints_reporter_message_id", "reporter", "message_id", unique=True),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    reporter: Mapped[str] = mapped_column(String(42))
    reported: Mapped[str] = mapped_column(String(42), index=True)
    # The table the two share or shared, or the private message reported (one of the two).
    table_id: Mapped[str | None] = mapped_column(ForeignKey("game_tables.id"))
    message_id: Mapped[int | None] = mapped_column(ForeignKey("friend_messages.id"))
    reason: Mapped[str] = mapped_column(String(32))
    note: Mapped[str | None] = mapped_column(String(NOTE_MAX_CHARS))
    status: Mapped[str] = mapped_column(String(16), default="open", index=True)
    resolution: Mapped[str | None] = mapped_column(String(RESOLUTION_MAX_CHARS))
    closed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


@dataclass(frozen=True)
class ComplaintRow:
    id: int
    reporter: str
    reported: str
    table_id: str | None
    reason: str
    note: str | None
    status: str
    resolution: str | None
    created_at: datetime
    closed_at: datetime | None
    message_id: int | None = None
    message: str | None = None  # the reported message's text (None once removed)


def _row(c: Complaint, message: str | None = None) -> ComplaintRow:
    return ComplaintRow(
        **columns(c, "id reporter reported table_id message_id reason note status resolution"),
        created_at=aware(c.created_at),
        closed_at=aware(c.closed_at),
        message=message,
    )


def count_today(
    session: Session, lock: str, created_at: InstrumentedAttribute[datetime], *where: Any
) -> int:
    """The rows ``where`` selects that were written in the last 24 hours, counted under the
    key ``lock`` (``dialect.count_locked``). Reports, support tickets and their messages are
    capped through it."""
    return dialect.count_locked(session, lock, created_at, utcnow() - timedelta(days=1), *where)


def table_mates(session: Session, table_id: str) -> set[str]:
    """Every wallet seated at the table now or in any of its matches."""
    mates = {
        a
        for a in session.scalars(select(TableSeat.address).where(TableSeat.table_id == table_id))
        if a
    }
    seat_lists = session.scalars(
        select(Match.seats).where(Match.table_id == table_id).limit(MATCHES_SEARCHED)
    )
    for seats in seat_lists:
        for seat in seats or []:
            address = seat.get("address") if isinstance(seat, dict) else None
            if isinstance(address, str):
                mates.add(address)
    return mates


def report(
    *,
    session: Session,
    reporter: str,
    reported: str,
    table_id: str,
    reason: str,
    note: str | None,
    per_day: int,
) -> ComplaintRow:
    """File ``reporter``'s complaint about ``reported`` at ``table_id``; commits."""
    if not ADDRESS.match(reported):
        raise exc.InvalidRequest(f"not an address: {reported!r:.60}")
    if reported.lower() == reporter.lower():
        raise exc.InvalidRequest("you cannot report yourself")
    cleaned = _checked(session, reporter, reason, note, per_day)
    # One answer for an unknown table and a stranger: a report reveals nothing about
    # private tables it is not part of.
    refusal = exc.NotTableMate(
        f"{reported} does not share a table {table_id!r:.40} with you: "
        "only players you sit or sat with can be reported"
    )
    if session.get(Table, table_id) is None:
        raise refusal
    by_lower = {a.lower(): a for a in table_mates(session, table_id)}
    if reporter.lower() not in by_lower or reported.lower() not in by_lower:
        raise refusal
    complaint = Complaint(
        reporter=reporter,
        reported=by_lower[reported.lower()],
        table_id=table_id,
        reason=reason,
        note=cleaned or None,
        status="open",
    )
    return _filed(session, complaint, f"{reported} at table {table_id}")


def _checked(session: Session, reporter: str, reason: str, note: str | None, per_day: int) -> str:
    """The report's note cleaned, once its reason and the reporter's daily cap pass."""
    if reason not in REPORT_REASONS:
        raise exc.InvalidRequest(
            f"unknown reason {reason!r:.40}: one of {', '.join(REPORT_REASONS)}"
        )
    cleaned = clean_text(note) if note else ""
    if len(cleaned) > NOTE_MAX_CHARS:
        raise exc.InvalidRequest(f"the note is limited to {NOTE_MAX_CHARS} characters")
    # The daily cap first, under the reporter's lock (held to the commit, so parallel reports
    # cannot pass it together): a wallet at its cap costs no read of any table's seats.
    today = count_today(
        session,
        f"complaints:{reporter.lower()}",
        Complaint.created_at,
        Complaint.reporter == reporter,
    )
    if today >= per_day:
        raise exc.TooManyReports(f"at most {per_day} reports in 24 hours: try later")
    return cleaned


def _filed(
    session: Session, complaint: Complaint, what: str, message: str | None = None
) -> ComplaintRow:
    session.add(complaint)
    try:
        session.flush()
    except IntegrityError:
        session.rollback()
        raise exc.AlreadyReported(f"you already reported {what}") from None
    row = _row(complaint, message)
    session.commit()
    return row


def report_message(
    *,
    session: Session,
    reporter: str,
    message_id: int,
    reason: str,
    note: str | None,
    per_day: int,
) -> ComplaintRow:
    """File ``reporter``'s complaint about a private message it received; commits."""
    message = friends.received(session, reporter, message_id)
    cleaned = _checked(session, message.recipient, reason, note, per_day)
    complaint = Complaint(
        reporter=message.recipient,
        reported=message.sender,
        message_id=message.id,
        reason=reason,
        note=cleaned or None,
        status="open",
    )
    return _filed(session, complaint, f"message {message_id}", message.body)


def list_complaints(
    *, session: Session, status: str | None = "open", reported: str | None = None, limit: int = 50
) -> list[ComplaintRow]:
    """Complaints, newest first (``status`` None: every status)."""
    if status is not None and status not in STATUSES:
        raise exc.InvalidRequest(f"unknown status {status!r}: open or closed")
    query = select(Complaint).order_by(Complaint.id.desc()).limit(max(1, min(limit, 10_000)))
    if status is not None:
        query = query.where(Complaint.status == status)
    if reported is not None:
        query = query.where(func.lower(Complaint.reported) == reported.lower())
    found = list(session.scalars(query))
    said = _messages(session, [c.message_id for c in found if c.message_id is not None])
    return [_row(c, said.get(c.message_id)) for c in found]


def _messages(session: Session, ids: list[int]) -> dict[int | None, str | None]:
    """The texts of the reported messages ``ids``, read in one query."""
    if not ids:
        return {}
    rows = session.execute(
        select(FriendMessage.id, FriendMessage.body).where(FriendMessage.id.in_(ids))
    )
    return {message_id: body for message_id, body in rows}


def get_complaint(*, session: Session, complaint_id: int) -> ComplaintRow:
    missing = exc.ComplaintNotFound(f"no complaint {complaint_id}")
    found = get_or_raise(session, Complaint, complaint_id, missing)
    said = _messages(session, [found.message_id] if found.message_id is not None else [])
    return _row(found, said.get(found.message_id))


def lock_open(session: Session, complaint_id: int) -> Complaint:
    """The open complaint, locked to the commit (a second closing waits, then is refused)."""
    complaint = session.scalar(
        dialect.for_update(session, select(Complaint).where(Complaint.id == complaint_id))
    )
    if complaint is None:
        raise exc.ComplaintNotFound(f"no complaint {complaint_id}")
    if complaint.status == "closed":
        raise exc.Conflict(f"complaint {complaint_id} is already closed")
    return complaint


def close_complaint(*, session: Session, complaint_id: int, resolution: str) -> ComplaintRow:
    """Close an open complaint with the operator's resolution; commits."""
    text = clean_text(resolution)
    if not text or len(text) > RESOLUTION_MAX_CHARS:
        raise exc.InvalidRequest(f"a resolution is 1 to {RESOLUTION_MAX_CHARS} characters")
    complaint = lock_open(session, complaint_id)
    complaint.status = "closed"
    complaint.resolution = text
    complaint.closed_at = utcnow()
    session.flush()
    row = _row(complaint)
    session.commit()
    return row
