"""Support tickets ("Complaints and Support", seed 000): a signed-in wallet raises a problem
with one of its payouts, match results, rentals or purchases, and the operator or a
moderator answers in the ticket's thread (``/care/tickets``, ``/care/support``,
``dew support``).

A ticket names its object by kind and id; the object must exist and concern the wallet (its
ledger leg, its seat's result, an agreement it is party to, a purchase it paid or was paid),
and one refusal answers both a missing object and someone else's, so a ticket reveals
nothing. Free text is cleaned as talk and reports are (``backend.kit.text``) and bounded; a
wallet opens at most ``TalkSettings.tickets_per_day`` tickets and writes at most
``ticket_messages_per_day`` messages in 24 hours, counted under its lock as reports are
(``complaints.count_today``), holds at most ``OPEN_MAX`` unclosed tickets, and a thread
holds at most ``THREAD_MAX`` messages. A player sees its own tickets only; another's is
not found.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from backend.care import exceptions as exc
from backend.care.models import (
    MESSAGE_MAX_CHARS,
    SUBJECT_MAX_CHARS,
    SupportMessage,
    SupportTicket,
)
from backend.care.standing import wallet
from backend.db import dialect
from backend.db.base import aware, utcnow
from backend.economy.models import AgreementMirror, LedgerLeg
from backend.kit.rows import columns
from backend.kit.text import clean_text
from backend.markets.models import MarketLedgerEntry
from backend.tables.models import MatchResult
from backend.tables.moderation.complaints import count_today

ABOUT = ("payout", "match", "rental", "purchase")
STATUSES = ("open", "answered", "closed")
OPEN_MAX = 10  # unclosed tickets one wallet holds at once
THREAD_MAX = 50  # messages in one ticket
_BIGINT = 2**63 - 1


@dataclass(frozen=True)
class MessageRow:
    author: str
    staff: bool
    body: str | None
    created_at: datetime


@dataclass(frozen=True)
class TicketRow:
    id: int
    address: str
    about: str
    ref: str
    subject: str
    status: str
    created_at: datetime
    closed_at: datetime | None
    messages: list[MessageRow] = field(default_factory=list)


def _same(column: Any, address: str) -> Any:
    return func.lower(column) == address.lower()


def _number(ref: str) -> int | None:
    return int(ref) if ref.isascii() and ref.isdigit() and int(ref) <= _BIGINT else None


def _payout(session: Session, address: str, ref: str) -> bool:
    leg = _number(ref)
    return leg is not None and bool(
        session.scalar(
            select(LedgerLeg.id).where(LedgerLeg.id == leg, _same(LedgerLeg.address, address))
        )
    )


def _match(session: Session, address: str, ref: str) -> bool:
    return bool(
        session.scalar(
            select(MatchResult.seat)
            .where(MatchResult.match_id == ref, _same(MatchResult.address, address))
            .limit(1)
        )
        is not None
    )


def _rental(session: Session, address: str, ref: str) -> bool:
    agreement = _number(ref)
    parties = or_(
        _same(AgreementMirror.owner, address),
        _same(AgreementMirror.scholar, address),
        _same(AgreementMirror.manager, address),
    )
    return agreement is not None and bool(
        session.scalar(select(AgreementMirror.id).where(AgreementMirror.id == agreement, parties))
        is not None
    )


def _purchase(session: Session, address: str, ref: str) -> bool:
    entry = _number(ref)
    sides = or_(_same(MarketLedgerEntry.payer, address), _same(MarketLedgerEntry.payee, address))
    return entry is not None and bool(
        session.scalar(select(MarketLedgerEntry.id).where(MarketLedgerEntry.id == entry, sides))
        is not None
    )


# Whether the object ``ref`` of each kind exists and concerns the wallet.
CONCERNS: dict[str, Callable[[Session, str, str], bool]] = {
    "payout": _payout,
    "match": _match,
    "rental": _rental,
    "purchase": _purchase,
}


def _text(value: object, what: str, limit: int) -> str:
    text = clean_text(value) if isinstance(value, str) else ""
    if not text or len(text) > limit:
        raise exc.InvalidCare(f"{what} is 1 to {limit} characters")
    return text


def _row(ticket: SupportTicket, messages: list[SupportMessage] | None = None) -> TicketRow:
    return TicketRow(
        **columns(ticket, "id address about ref subject status"),
        created_at=aware(ticket.created_at),
        closed_at=aware(ticket.closed_at),
        messages=[
            MessageRow(author=m.author, staff=m.staff, body=m.body, created_at=aware(m.created_at))
            for m in messages or []
        ],
    )


def _thread(session: Session, ticket: SupportTicket) -> TicketRow:
    messages = session.scalars(
        select(SupportMessage)
        .where(SupportMessage.ticket_id == ticket.id)
        .order_by(SupportMessage.id)
    )
    return _row(ticket, list(messages))


def _capped(session: Session, address: str, per_day: int, tickets: bool) -> None:
    """Refuse a wallet at its daily cap of tickets (``tickets``) or of messages."""
    lock = f"support:{address.lower()}"
    if tickets:
        today = count_today(
            session, lock, SupportTicket.created_at, SupportTicket.address == address
        )
        what = "tickets"
    else:
        today = count_today(
            session,
            lock,
            SupportMessage.created_at,
            SupportMessage.author == address,
            SupportMessage.staff.is_(False),
        )
        what = "support messages"
    if today >= per_day:
        raise exc.TooManyTickets(f"at most {per_day} {what} in 24 hours: try later")


def open_ticket(
    *,
    session: Session,
    address: str,
    about: str,
    ref: str,
    subject: str,
    text: str,
    per_day: int,
    messages_per_day: int,
) -> TicketRow:
    """Open the wallet's ticket about its object ``about``/``ref`` with its first message;
    committed. Refused (nothing written) for an object that is not the wallet's."""
    if about not in CONCERNS:
        raise exc.InvalidCare(f"a ticket is about one of {', '.join(ABOUT)}, not {about!r:.20}")
    address = wallet(address)
    title = _text(subject, "a subject", SUBJECT_MAX_CHARS)
    words = _text(text, "a message", MESSAGE_MAX_CHARS)
    ref = ref.strip() if isinstance(ref, str) else ""
    if not 1 <= len(ref) <= 80 or not CONCERNS[about](session, address, ref):
        raise exc.LinkNotFound(f"no {about} {ref!r:.80} of yours")
    _capped(session, address, per_day, tickets=True)
    _capped(session, address, messages_per_day, tickets=False)
    unclosed = session.scalar(
        select(func.count())
        .select_from(SupportTicket)
        .where(SupportTicket.address == address, SupportTicket.status != "closed")
    )
    if (unclosed or 0) >= OPEN_MAX:
        raise exc.TooManyTickets(f"at most {OPEN_MAX} tickets open at once: close one first")
    now = utcnow()
    ticket = SupportTicket(
        address=address, about=about, ref=ref, subject=title, status="open", created_at=now
    )
    session.add(ticket)
    session.flush()
    session.add(
        SupportMessage(ticket_id=ticket.id, author=address, staff=False, body=words, created_at=now)
    )
    session.flush()
    row = _thread(session, ticket)
    session.commit()
    return row


def _locked(session: Session, ticket_id: int, address: str | None) -> SupportTicket:
    query = select(SupportTicket).where(SupportTicket.id == ticket_id)
    if address is not None:
        query = query.where(SupportTicket.address == wallet(address))
    ticket = session.scalar(dialect.for_update(session, query))
    if ticket is None:
        raise exc.TicketNotFound(f"no ticket {ticket_id}" + (" of yours" if address else ""))
    return ticket


def _add(session: Session, ticket: SupportTicket, author: str, staff: bool, body: str) -> None:
    if ticket.status == "closed":
        raise exc.TicketClosed(f"ticket {ticket.id} is closed: open a new one")
    count = session.scalar(
        select(func.count())
        .select_from(SupportMessage)
        .where(SupportMessage.ticket_id == ticket.id)
    )
    if (count or 0) >= THREAD_MAX:
        raise exc.TicketClosed(f"ticket {ticket.id} holds {THREAD_MAX} messages: open a new one")
    session.add(SupportMessage(ticket_id=ticket.id, author=author, staff=staff, body=body))


def write(*, session: Session, address: str, ticket_id: int, text: str, per_day: int) -> TicketRow:
    """The player adds a message to its own ticket (it waits for the staff again); committed."""
    words = _text(text, "a message", MESSAGE_MAX_CHARS)
    address = wallet(address)
    _capped(session, address, per_day, tickets=False)
    ticket = _locked(session, ticket_id, address)
    _add(session, ticket, address, False, words)
    ticket.status = "open"
    session.flush()
    row = _thread(session, ticket)
    session.commit()
    return row


def answer(
    *, session: Session, ticket_id: int, actor: str, text: str, close: bool = False
) -> TicketRow:
    """The operator's or a moderator's answer in a ticket's thread (``close``: and the
    ticket closed with it); committed."""
    words = _text(text, "an answer", MESSAGE_MAX_CHARS)
    ticket = _locked(session, ticket_id, None)
    _add(session, ticket, actor, True, words)
    ticket.status = "closed" if close else "answered"
    ticket.closed_at = utcnow() if close else None
    session.flush()
    row = _thread(session, ticket)
    session.commit()
    return row


def close(*, session: Session, ticket_id: int, address: str | None = None) -> TicketRow:
    """Close a ticket: the player's own (``address``) or any (the staff); committed."""
    ticket = _locked(session, ticket_id, address)
    if ticket.status == "closed":
        raise exc.TicketClosed(f"ticket {ticket_id} is already closed")
    ticket.status, ticket.closed_at = "closed", utcnow()
    session.flush()
    row = _thread(session, ticket)
    session.commit()
    return row


def ticket(*, session: Session, ticket_id: int, address: str | None = None) -> TicketRow:
    """One ticket with its thread: the wallet's own (``address``), or any (the staff)."""
    query = select(SupportTicket).where(SupportTicket.id == ticket_id)
    if address is not None:
        query = query.where(SupportTicket.address == wallet(address))
    found = session.scalar(query)
    if found is None:
        raise exc.TicketNotFound(f"no ticket {ticket_id}" + (" of yours" if address else ""))
    return _thread(session, found)


def tickets(
    *,
    session: Session,
    address: str | None = None,
    status: str | None = None,
    limit: int = 100,
) -> list[TicketRow]:
    """Tickets newest first, without their threads: a wallet's (``address``) or everyone's,
    of one ``status`` or all."""
    if status is not None and status not in STATUSES:
        raise exc.InvalidCare(f"unknown status {status!r:.20}: one of {', '.join(STATUSES)}")
    query = select(SupportTicket).order_by(SupportTicket.id.desc()).limit(max(1, min(limit, 1000)))
    if address is not None:
        query = query.where(SupportTicket.address == wallet(address))
    if status is not None:
        query = query.where(SupportTicket.status == status)
    return [_row(t) for t in session.scalars(query)]
