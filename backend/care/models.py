"""What the gate reads: moderators' sanctions and their audit, the moderators themselves,
a player's own limits and breaks, the deposits asked for at the deposit door, closed
accounts; and the players' support tickets with their threads."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, DateTime, ForeignKey, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from backend.db.base import Base, TimestampMixin

REASON_MAX_CHARS = 280
APPEAL_MAX_CHARS = 560


class Sanction(TimestampMixin, Base):
    """A moderator's action on a wallet (warn, mute, suspend, ban) with its reason and end;
    the wallet may appeal it once (the appeal and its answer are kept on the row)."""

    __tablename__ = "care_sanctions"
    __table_args__ = (Index("ix_care_sanctions_address_expires_at", "address", "expires_at"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    address: Mapped[str] = mapped_column(String(42))
    kind: Mapped[str] = mapped_column(String(16))
    reason: Mapped[str] = mapped_column(String(REASON_MAX_CHARS))
    # The complaint it answers: no foreign key, as care sits below tables (the complaint is
    # read under its row lock when the sanction is written, and complaints are never deleted).
    complaint_id: Mapped[int | None] = mapped_column(Integer)
    imposed_by: Mapped[str] = mapped_column(String(42))
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    lifted_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    appeal: Mapped[str | None] = mapped_column(String(APPEAL_MAX_CHARS))
    appealed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    answer: Mapped[str | None] = mapped_column(String(REASON_MAX_CHARS))
    answered_by: Mapped[str | None] = mapped_column(String(42))
    answered_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class SanctionAudit(TimestampMixin, Base):
    """One row per thing done to a sanction: imposed, appealed, upheld, lifted."""

    __tablename__ = "care_audit"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    sanction_id: Mapped[int] = mapped_column(ForeignKey("care_sanctions.id"), index=True)
    action: Mapped[str] = mapped_column(String(16))
    actor: Mapped[str] = mapped_column(String(42))
    note: Mapped[str | None] = mapped_column(String(APPEAL_MAX_CHARS))


class Moderator(TimestampMixin, Base):
    """A wallet the operator granted the moderator's role."""

    __tablename__ = "care_moderators"

    address: Mapped[str] = mapped_column(String(42), primary_key=True)
    granted_by: Mapped[str] = mapped_column(String(42))


class PlayerLimit(TimestampMixin, Base):
    """A player's own limit of one kind (deposit, stake) over one period (day, week,
    month). ``amount`` is in force (None: none); a raise waits in ``pending`` until
    ``pending_from`` (a pending None removes the limit then)."""

    __tablename__ = "care_limits"

    address: Mapped[str] = mapped_column(String(42), primary_key=True)
    kind: Mapped[str] = mapped_column(String(16), primary_key=True)
    period: Mapped[str] = mapped_column(String(8), primary_key=True)
    amount: Mapped[str | None] = mapped_column(String(80))
    pending: Mapped[str | None] = mapped_column(String(80))
    pending_from: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class PlayerBreak(TimestampMixin, Base):
    """A time-out or a self-exclusion the player took; nothing ends it early."""

    __tablename__ = "care_breaks"
    __table_args__ = (Index("ix_care_breaks_address_ends_at", "address", "ends_at"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    address: Mapped[str] = mapped_column(String(42))
    kind: Mapped[str] = mapped_column(String(16))
    starts_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    ends_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class DepositAsked(TimestampMixin, Base):
    """A deposit the deposit door built for a wallet to sign: what its deposit limits count
    (asked, not confirmed: an unsigned transfer still spent the allowance)."""

    __tablename__ = "care_deposits"
    __table_args__ = (Index("ix_care_deposits_address_created_at", "address", "created_at"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    address: Mapped[str] = mapped_column(String(42))
    amount: Mapped[str] = mapped_column(String(80))


SUBJECT_MAX_CHARS = 120
MESSAGE_MAX_CHARS = 2000


class SupportTicket(TimestampMixin, Base):
    """A player's ticket about one of its payouts, match results, rentals or purchases
    (``about`` and ``ref``: the object, checked to be the wallet's when it was opened).
    ``status``: open (waiting for the staff), answered (waiting for the player), closed."""

    __tablename__ = "care_tickets"
    __table_args__ = (Index("ix_care_tickets_address_created_at", "address", "created_at"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    address: Mapped[str] = mapped_column(String(42))
    about: Mapped[str] = mapped_column(String(16))
    ref: Mapped[str] = mapped_column(String(80))
    subject: Mapped[str] = mapped_column(String(SUBJECT_MAX_CHARS))
    status: Mapped[str] = mapped_column(String(16), index=True)
    closed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class SupportMessage(TimestampMixin, Base):
    """One message of a ticket's thread: the player's (``staff`` False) or an answer.
    ``body`` is None once the player's account is closed (its words are removed)."""

    __tablename__ = "care_ticket_messages"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    ticket_id: Mapped[int] = mapped_column(ForeignKey("care_tickets.id"), index=True)
    author: Mapped[str] = mapped_column(String(42))
    staff: Mapped[bool] = mapped_column(Boolean)
    body: Mapped[str | None] = mapped_column(String(MESSAGE_MAX_CHARS))


class ClosedAccount(TimestampMixin, Base):
    """A wallet whose player closed its account: every door but a withdrawal is shut."""

    __tablename__ = "care_closed_accounts"

    address: Mapped[str] = mapped_column(String(42), primary_key=True)
