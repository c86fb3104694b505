"""Trust and care (``/care``): a wallet's standing, its one appeal, its own limits and
breaks, its support tickets, the outcome of its reports and the closing of its account;
moderators' sanctions, on a complaint or a wallet, and their answers to appeals and tickets;
the operator's grant of the moderator's role.

The player's routes act for the bearer's wallet only. The moderators' routes need the
operator's wallet or one it granted the role (``deps.CurrentModerator``); granting it needs
the operator's (``deps.CurrentOperator``). Every refusal is the one gate's or the services'
(``backend.care``), never a route's own.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated

from fastapi import APIRouter, Query

from backend.api.deps import (
    CurrentModerator,
    CurrentOperator,
    CurrentPlayer,
    SessionDep,
    SettingsDep,
)
from backend.api.params import AddressPath, Id31, ListLimit, error_responses, out_of
from backend.care import limits as care_limits
from backend.care import moderation
from backend.care.moderation import SanctionRow
from backend.care.schemas import (
    AnswerIn,
    AppealIn,
    AuditOut,
    BreakIn,
    BreakOut,
    ClosureIn,
    ClosureOut,
    LiftIn,
    LimitIn,
    LimitOut,
    MessageOut,
    ReportOutcomeOut,
    SanctionIn,
    SanctionOut,
    StaffMessageOut,
    StaffTicketOut,
    StandingOut,
    TicketAnswerIn,
    TicketIn,
    TicketMessageIn,
    TicketOut,
    WalletSanctionIn,
)
from backend.care.standing import Limit
from backend.db.base import utcnow
from backend.kit.rows import columns
from backend.tables import closure
from backend.tables.moderation import actions, complaints, support
from backend.tables.moderation.support import TicketRow
from backend.tables.schemas import ComplaintOut

router = APIRouter(prefix="/care", tags=["care"])
_ERRORS = error_responses(401, 403, 404, 409, 422)
_CAPPED = error_responses(401, 403, 404, 409, 422, 429)


def _sanction(row: SanctionRow) -> SanctionOut:
    return out_of(SanctionOut, row, active=row.active(utcnow()))


def _limit(row: Limit) -> LimitOut:
    return LimitOut(
        kind=row.kind,
        period=row.period,
        amount=None if row.amount is None else str(row.amount),
        pending=None if row.pending is None else str(row.pending),
        pending_from=row.pending_from,
        used=str(row.used),
    )


# --- the player's own ---------------------------------------------------------------------


@router.get("/standing", response_model=StandingOut, responses=_ERRORS)
def my_standing(session: SessionDep, player: CurrentPlayer) -> StandingOut:
    """The wallet's sanctions (with their reasons, ends and appeals), breaks and limits."""
    address = player.address
    return StandingOut(
        address=address,
        sanctions=[_sanction(s) for s in moderation.sanctions_of(session=session, address=address)],
        breaks=[
            out_of(BreakOut, b) for b in care_limits.breaks_of(session=session, address=address)
        ],
        limits=[_limit(x) for x in care_limits.limits_of(session=session, address=address)],
    )


@router.post("/sanctions/{sanction_id}/appeal", response_model=SanctionOut, responses=_ERRORS)
def appeal(
    sanction_id: Id31, body: AppealIn, session: SessionDep, player: CurrentPlayer
) -> SanctionOut:
    """Appeal one of your sanctions, once."""
    row = moderation.appeal(
        session=session, address=player.address, sanction_id=sanction_id, text=body.text
    )
    return _sanction(row)


@router.put("/limits", response_model=LimitOut, responses=_ERRORS)
def set_limit(body: LimitIn, session: SessionDep, player: CurrentPlayer) -> LimitOut:
    """Set a deposit or stake limit: lower holds at once, higher (or none) after 24 hours."""
    row = care_limits.set_limit(
        session=session,
        address=player.address,
        kind=body.kind,
        period=body.period,
        amount=None if body.amount is None else int(body.amount),
    )
    return _limit(row)


@router.post("/breaks", response_model=BreakOut, status_code=201, responses=_ERRORS)
def take_break(body: BreakIn, session: SessionDep, player: CurrentPlayer) -> BreakOut:
    """Take a time-out (1 to 42 days) or exclude yourself (183 days or more): nothing ends
    it early; withdrawals stay open."""
    row = care_limits.take_break(
        session=session, address=player.address, kind=body.kind, duration=timedelta(days=body.days)
    )
    return out_of(BreakOut, row)


def _ticket(row: TicketRow) -> TicketOut:
    return out_of(TicketOut, row, messages=[out_of(MessageOut, m) for m in row.messages])


def _staff_ticket(row: TicketRow) -> StaffTicketOut:
    messages = [out_of(StaffMessageOut, m) for m in row.messages]
    return out_of(StaffTicketOut, row, messages=messages)


@router.post("/tickets", response_model=TicketOut, status_code=201, responses=_CAPPED)
def open_ticket(
    body: TicketIn, session: SessionDep, player: CurrentPlayer, settings: SettingsDep
) -> TicketOut:
    """Open a support ticket about one of your payouts, match results, rentals or purchases
    (named by its id; refused if it is not yours)."""
    row = support.open_ticket(
        session=session,
        address=player.address,
        **columns(body, "about ref subject text"),
        per_day=settings.talk.tickets_per_day,
        messages_per_day=settings.talk.ticket_messages_per_day,
    )
    return _ticket(row)


@router.get("/tickets", response_model=list[TicketOut], responses=_ERRORS)
def my_tickets(
    session: SessionDep, player: CurrentPlayer, limit: ListLimit = 100
) -> list[TicketOut]:
    """Your tickets newest first, with their states (the threads: one ticket at a time)."""
    rows = support.tickets(session=session, address=player.address, limit=limit)
    return [_ticket(r) for r in rows]


@router.get("/tickets/{ticket_id}", response_model=TicketOut, responses=_ERRORS)
def my_ticket(ticket_id: Id31, session: SessionDep, player: CurrentPlayer) -> TicketOut:
    """One of your tickets with its thread."""
    return _ticket(support.ticket(session=session, ticket_id=ticket_id, address=player.address))


@router.post("/tickets/{ticket_id}/messages", response_model=TicketOut, responses=_CAPPED)
def write_ticket(
    ticket_id: Id31,
    body: TicketMessageIn,
    session: SessionDep,
    player: CurrentPlayer,
    settings: SettingsDep,
) -> TicketOut:
    """Add a message to one of your open tickets."""
    row = support.write(
        session=session,
        address=player.address,
        ticket_id=ticket_id,
        text=body.text,
        per_day=settings.talk.ticket_messages_per_day,
    )
    return _ticket(row)


@router.post("/tickets/{ticket_id}/close", response_model=TicketOut, responses=_ERRORS)
def close_my_ticket(ticket_id: Id31, session: SessionDep, player: CurrentPlayer) -> TicketOut:
    """Close one of your tickets (solved, or no longer needed)."""
    return _ticket(support.close(session=session, ticket_id=ticket_id, address=player.address))


@router.get("/reports", response_model=list[ReportOutcomeOut], responses=_ERRORS)
def my_reports(
    session: SessionDep, player: CurrentPlayer, limit: ListLimit = 100
) -> list[ReportOutcomeOut]:
    """The players you reported, newest first, each with the action it led to."""
    return actions.outcomes(session=session, reporter=player.address, limit=limit)


@router.get("/reports/{complaint_id}", response_model=ReportOutcomeOut, responses=_ERRORS)
def my_report(complaint_id: Id31, session: SessionDep, player: CurrentPlayer) -> ReportOutcomeOut:
    """One of your reports with the action it led to."""
    (row,) = actions.outcomes(session=session, reporter=player.address, complaint_id=complaint_id)
    return row


@router.post("/closure", response_model=ClosureOut, responses=_ERRORS)
def close_account(body: ClosureIn, session: SessionDep, player: CurrentPlayer) -> ClosureOut:
    """Close your account for good: refused while anything is left in play or in the vault
    (withdraw first). Your words are removed, your records kept; you are signed out."""
    when = closure.close_account(session=session, address=player.address)
    return ClosureOut(address=player.address, closed_at=when)


# --- moderators ---------------------------------------------------------------------------


def _terms(body: SanctionIn) -> moderation.Terms:
    return moderation.Terms(body.kind, body.reason, timedelta(hours=body.hours))


@router.get("/moderation/complaints", response_model=list[ComplaintOut], responses=_ERRORS)
def open_complaints(
    session: SessionDep, moderator: CurrentModerator, limit: ListLimit = 100
) -> list[ComplaintOut]:
    """Open complaints, newest first."""
    rows = complaints.list_complaints(session=session, status="open", limit=limit)
    return [out_of(ComplaintOut, r) for r in rows]


@router.post(
    "/moderation/complaints/{complaint_id}/sanction",
    response_model=SanctionOut,
    status_code=201,
    responses=_ERRORS,
)
def act_on_complaint(
    complaint_id: Id31, body: SanctionIn, session: SessionDep, moderator: CurrentModerator
) -> SanctionOut:
    """Sanction the wallet an open complaint reports, and close the complaint with it."""
    row = actions.act_on_complaint(
        session=session, complaint_id=complaint_id, terms=_terms(body), actor=moderator.address
    )
    return _sanction(row)


@router.post(
    "/moderation/sanctions", response_model=SanctionOut, status_code=201, responses=_ERRORS
)
def sanction_wallet(
    body: WalletSanctionIn, session: SessionDep, moderator: CurrentModerator
) -> SanctionOut:
    """Sanction a wallet with no complaint behind it (what the moderator saw itself)."""
    row = moderation.impose(
        session=session, address=body.address, terms=_terms(body), actor=moderator.address
    )
    return _sanction(row)


@router.get("/moderation/sanctions", response_model=list[SanctionOut], responses=_ERRORS)
def sanctions(
    session: SessionDep, moderator: CurrentModerator, appealed: bool = False, limit: ListLimit = 100
) -> list[SanctionOut]:
    """Sanctions newest first; ``appealed``: only appeals waiting for an answer."""
    rows = moderation.list_sanctions(session=session, appealed=appealed, limit=limit)
    return [_sanction(r) for r in rows]


@router.post(
    "/moderation/sanctions/{sanction_id}/lift", response_model=SanctionOut, responses=_ERRORS
)
def lift(
    sanction_id: Id31, body: LiftIn, session: SessionDep, moderator: CurrentModerator
) -> SanctionOut:
    row = moderation.lift(
        session=session, sanction_id=sanction_id, actor=moderator.address, note=body.note
    )
    return _sanction(row)


@router.post(
    "/moderation/sanctions/{sanction_id}/answer", response_model=SanctionOut, responses=_ERRORS
)
def answer(
    sanction_id: Id31, body: AnswerIn, session: SessionDep, moderator: CurrentModerator
) -> SanctionOut:
    """Answer an appeal: uphold the sanction or lift it."""
    row = moderation.answer(
        session=session,
        sanction_id=sanction_id,
        actor=moderator.address,
        uphold=body.uphold,
        note=body.note,
    )
    return _sanction(row)


@router.get(
    "/moderation/sanctions/{sanction_id}/audit", response_model=list[AuditOut], responses=_ERRORS
)
def audit(sanction_id: Id31, session: SessionDep, moderator: CurrentModerator) -> list[AuditOut]:
    return [AuditOut(**a) for a in moderation.audit(session=session, sanction_id=sanction_id)]


@router.get("/support/tickets", response_model=list[StaffTicketOut], responses=_ERRORS)
def support_tickets(
    session: SessionDep,
    moderator: CurrentModerator,
    status: Annotated[str | None, Query(pattern="^(open|answered|closed)$")] = "open",
    limit: ListLimit = 100,
) -> list[StaffTicketOut]:
    """Tickets newest first (``status`` open: waiting for an answer)."""
    rows = support.tickets(session=session, status=status, limit=limit)
    return [_staff_ticket(r) for r in rows]


@router.get("/support/tickets/{ticket_id}", response_model=StaffTicketOut, responses=_ERRORS)
def support_ticket(
    ticket_id: Id31, session: SessionDep, moderator: CurrentModerator
) -> StaffTicketOut:
    return _staff_ticket(support.ticket(session=session, ticket_id=ticket_id))


@router.post(
    "/support/tickets/{ticket_id}/answer", response_model=StaffTicketOut, responses=_ERRORS
)
def answer_ticket(
    ticket_id: Id31, body: TicketAnswerIn, session: SessionDep, moderator: CurrentModerator
) -> StaffTicketOut:
    """Answer in a ticket's thread (``close``: and close it)."""
    row = support.answer(
        session=session,
        ticket_id=ticket_id,
        actor=moderator.address,
        text=body.text,
        close=body.close,
    )
    return _staff_ticket(row)


@router.post("/support/tickets/{ticket_id}/close", response_model=StaffTicketOut, responses=_ERRORS)
def close_ticket(
    ticket_id: Id31, session: SessionDep, moderator: CurrentModerator
) -> StaffTicketOut:
    return _staff_ticket(support.close(session=session, ticket_id=ticket_id))


# --- the operator grants the role ---------------------------------------------------------


@router.get("/moderators", response_model=list[str], responses=_ERRORS)
def moderators(session: SessionDep, operator: CurrentOperator) -> list[str]:
    return moderation.moderators(session=session)


@router.put("/moderators/{address}", status_code=204, responses=_ERRORS)
def grant(address: AddressPath, session: SessionDep, operator: CurrentOperator) -> None:
    moderation.grant(session=session, address=address, by=operator.address)


@router.delete("/moderators/{address}", status_code=204, responses=_ERRORS)
def revoke(address: AddressPath, session: SessionDep, operator: CurrentOperator) -> None:
    moderation.revoke(session=session, address=address)
