"""Competitions routes: tournaments, registration, brackets, standings, and a WebSocket of
their events.

Reads are public; registering and leaving need the wallet's access token (the fee comes from
its stake balance, and goes back to it when the wallet leaves before registration closes).
Tournaments are created and cancelled by the operator (``dew create-tournament``,
``dew cancel-tournament``) or opened by a Game Center's host (``/centers``).
"""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from fastapi import APIRouter, Query, WebSocket
from fastapi.concurrency import run_in_threadpool
from sqlalchemy.orm import Session
from starlette.websockets import WebSocketDisconnect

from backend.accounts import exceptions as accounts_exc
from backend.accounts import service as accounts
from backend.accounts import terms
from backend.api.deps import (
    ContributionsDep,
    CurrentPlayer,
    DepositDoor,
    GateDep,
    SessionDep,
    SettingsDep,
    read_sessions,
)
from backend.api.params import Id31, ListLimit
from backend.api.ratelimit import client_key
from backend.competitions import contributions, service, views
from backend.competitions.schemas import (
    ContributionIn,
    ContributionOut,
    ContributionsOut,
    RegisterIn,
)
from backend.competitions.watch import (
    CLOSE_TOO_MANY,
    CLOSE_UNSUPPORTED,
    TooManySockets,
    TournamentWatch,
    error_text,
    is_entrant,
)
from backend.economy.schemas import TransactionsOut

router = APIRouter(prefix="/competitions", tags=["competitions"])

TournamentId = Id31


def _detail(session: Session, tournament_id: int) -> dict[str, Any]:
    t = service.get_tournament(session=session, tournament_id=tournament_id)
    return {
        **views.summary(t),
        # DEW contributions pooled into its prizes (docs/economy.md, "DEW Contribution").
        "contributed": contributions.contributed(session=session, tournament_id=t.id),
        "entrants": [
            views.entrant_view(e) for e in service.entrants_of(session=session, tournament_id=t.id)
        ],
    }


@router.get("", summary="Tournaments, newest first")
def list_tournaments(
    session: SessionDep, status: Annotated[str | None, Query(max_length=16)] = None
) -> list[dict[str, Any]]:
    return [views.summary(t) for t in service.list_tournaments(session=session, status=status)]


@router.get("/{tournament_id}", summary="A tournament and its entrants")
def get_tournament(session: SessionDep, tournament_id: TournamentId) -> dict[str, Any]:
    return _detail(session, tournament_id)


@router.get(
    "/{tournament_id}/contributions",
    response_model=ContributionsOut,
    summary="The DEW contributed to a tournament's prizes, and by whom",
)
def list_contributions(
    session: SessionDep, tournament_id: TournamentId, limit: ListLimit = 100
) -> ContributionsOut:
    """The pool's total, and its contributions newest first (at most ``limit``)."""
    service.get_tournament(session=session, tournament_id=tournament_id)  # 404 first
    rows = contributions.contributions_to(session=session, tournament_id=tournament_id, limit=limit)
    return ContributionsOut(
        total=str(contributions.contributed(session=session, tournament_id=tournament_id)),
        contributions=[
            ContributionOut(contributor=r.contributor, amount=r.amount, at=r.created_at)
            for r in rows
        ],
    )


@router.post(
    "/{tournament_id}/contributions",
    response_model=TransactionsOut,
    summary="Contribute DEW to a tournament's prizes: the transactions for the wallet to sign",
)
def contribute(
    body: ContributionIn,
    session: SessionDep,
    tournament_id: TournamentId,
    player: DepositDoor,
    builder: ContributionsDep,
) -> TransactionsOut:
    """A DEW approval when the wallet's allowance is short, then ``Contributions.contribute``;
    the pool grows once the indexer sees the contribution confirmed. Refused, with nothing
    built, when the tournament is closed or the pool would outgrow what the vault pays, and
    for a wallet whose standing closes deposits (suspended, banned, on a time-out or
    self-excluded: DEW it sends in is money in, as a deposit is)."""
    txs = builder.contribute(
        session=session,
        tournament_id=tournament_id,
        contributor=player.address,
        amount=int(body.amount),
    )
    return TransactionsOut.of(*txs)


@router.post("/{tournament_id}/register", summary="Enter the signed-in wallet (pays the fee)")
def register(
    session: SessionDep,
    gate: GateDep,
    settings: SettingsDep,
    tournament_id: TournamentId,
    player: CurrentPlayer,
    body: RegisterIn | None = None,
) -> dict[str, Any]:
    fee = service.get_tournament(session=session, tournament_id=tournament_id).entry_fee
    terms.require_for_play(  # a fee is a stake: terms & legal age (h25-terms)
        session=session,
        settings=settings,
        address=player.address,
        stake=fee,
        earning=False,
        ranked=True,  # a tournament ranks its entrants: never a guest's door
    )
    entrant = service.register(
        session=session,
        gate=gate,
        tournament_id=tournament_id,
        address=player.address,
        avatar_id=body.avatar_id if body else None,
    )
    return views.entrant_view(entrant)


@router.post(
    "/{tournament_id}/leave",
    summary="Withdraw the signed-in wallet's entry before registration closes (fee refunded)",
)
def leave(
    session: SessionDep, tournament_id: TournamentId, player: CurrentPlayer
) -> dict[str, Any]:
    refunded = service.leave(session=session, tournament_id=tournament_id, address=player.address)
    return {"tournament_id": tournament_id, "address": player.address, "refunded": refunded}


@router.get("/{tournament_id}/bracket", summary="Every round's games and their matches")
def bracket(session: SessionDep, tournament_id: TournamentId) -> list[dict[str, Any]]:
    service.get_tournament(session=session, tournament_id=tournament_id)
    return views.bracket_view(session=session, tournament_id=tournament_id)


@router.get("/{tournament_id}/standings", summary="Places so far (final once finished)")
def standings(session: SessionDep, tournament_id: TournamentId) -> list[dict[str, Any]]:
    t = service.get_tournament(session=session, tournament_id=tournament_id)
    return views.standings_view(session=session, tournament=t)


async def _until_gone(websocket: WebSocket) -> str:
    """Read until the client goes ("gone") or speaks ("spoke": it has nothing to say here)."""
    message = await websocket.receive()
    return "gone" if message["type"] == "websocket.disconnect" else "spoke"


def _entrant(websocket: WebSocket, tournament_id: int, token: str) -> str | None:
    """The wallet of ``token`` if it entered the tournament; None for anyone else (a token
    that is not valid included: the socket is public, the token only claims an entrant's
    slots)."""
    state = websocket.app.state
    with read_sessions(state)() as session:
        try:
            address = accounts.authenticate(
                session=session, settings=state.settings, token=token
            ).address
        except accounts_exc.AccountsError:
            return None
        entered = is_entrant(session=session, tournament_id=tournament_id, address=address)
        return address if entered else None


@router.websocket("/{tournament_id}/ws")
async def tournament_socket(
    websocket: WebSocket,
    tournament_id: TournamentId,
    token: Annotated[str | None, Query(max_length=4096)] = None,
) -> None:
    """Events ``tournament``, ``registration``, ``bracket`` and ``standings`` (docs/competitions.md,
    section 8): each is sent when it changes, the first time all four; the socket closes after
    the tournament finishes or is cancelled. An id outside 1..2**31-1 is refused like the HTTP
    routes refuse it (closed with 1008 before it is accepted).

    The socket is public, so it is bounded instead: one poll per tournament however many
    watch it (``TournamentWatch``), at most ``tournament_per_address`` sockets per client
    address and ``tournament_per_tournament`` per tournament (else error ``too_many_sockets``
    and close 4429), and the handler reads as well as writes, so a gone client is noticed at
    once (a client that sends anything is closed with 1003: this socket only speaks). A
    signed-in entrant's ``token`` claims the entrant's own ``tournament_per_entrant`` slots
    instead, so a tournament full of watchers never shuts its players out."""
    watch: TournamentWatch = websocket.app.state.tournament_watch
    await websocket.accept()
    address = client_key(websocket.client.host) if websocket.client else "unknown"
    entrant = await run_in_threadpool(_entrant, websocket, tournament_id, token) if token else None
    try:
        watcher = watch.subscribe(tournament_id, address, entrant)
    except TooManySockets as refused:
        await websocket.send_text(error_text(refused.code, str(refused)))
        await websocket.close(CLOSE_TOO_MANY)
        return
    reader = asyncio.create_task(_until_gone(websocket))
    try:
        while True:
            upcoming = asyncio.ensure_future(watcher.next())
            await asyncio.wait({reader, upcoming}, return_when=asyncio.FIRST_COMPLETED)
            if not upcoming.done():
                upcoming.cancel()
                if reader.result() == "spoke":
                    await websocket.send_text(
                        error_text("unsupported", "this socket only sends; messages are refused")
                    )
                    await websocket.close(CLOSE_UNSUPPORTED)
                return
            item = upcoming.result()
            if isinstance(item, int):
                await websocket.close(item)
                return
            await websocket.send_text(item)
    except (WebSocketDisconnect, RuntimeError, ConnectionError, OSError):
        return
    finally:
        reader.cancel()
        watch.unsubscribe(watcher)
