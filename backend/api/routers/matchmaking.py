"""Matchmaking (``/matchmaking``): wait for a table of a preset, options and stake with the
players who ask for the same; bots fill the empty seats after the configured wait."""

from __future__ import annotations

from fastapi import APIRouter

from backend.api.deps import CurrentPlayer, GateDep, SessionDep, SettingsDep, terms_for_play
from backend.api.params import error_responses
from backend.kit.rows import columns
from backend.tables import matchmaking, schemas

router = APIRouter(prefix="/matchmaking", tags=["tables"])
_ERRORS = error_responses(401, 403, 404, 409, 422, 503)


@router.post("", response_model=schemas.TicketOut, status_code=201, responses=_ERRORS)
def enqueue(
    body: schemas.QueueRequest,
    player: CurrentPlayer,
    session: SessionDep,
    gate: GateDep,
    settings: SettingsDep,
) -> schemas.TicketOut:
    """Wait for a table of this preset, size, options and stake: only tickets that ask for
    the same meet. Bots fill the empty seats after the configured wait."""
    terms_for_play(session, settings, player.address, body)
    ticket = matchmaking.enqueue(
        session=session,
        gate=gate,
        address=player.address,
        **columns(body, "preset earning avatar_id options stake"),
        seat_count=body.seats,
    )
    return schemas.TicketOut.model_validate(ticket, from_attributes=True)


@router.get("/{ticket_id}", response_model=schemas.TicketOut, responses=_ERRORS)
def get_ticket(ticket_id: str, player: CurrentPlayer, session: SessionDep) -> schemas.TicketOut:
    ticket = matchmaking.get_ticket(session=session, ticket_id=ticket_id, address=player.address)
    return schemas.TicketOut.model_validate(ticket, from_attributes=True)


@router.delete("/{ticket_id}", response_model=schemas.TicketOut, responses=_ERRORS)
def cancel_ticket(ticket_id: str, player: CurrentPlayer, session: SessionDep) -> schemas.TicketOut:
    ticket = matchmaking.cancel_ticket(session=session, ticket_id=ticket_id, address=player.address)
    return schemas.TicketOut.model_validate(ticket, from_attributes=True)
