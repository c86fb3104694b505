"""Competitions routes: tournaments, registration, brackets, standings, and a WebSocket of
their events. Mount with ``app.include_router(router)`` and ``install_error_handler(app)``.

Reads are public; registering needs the wallet's access token (the fee comes from its stake
balance). Tournaments are created and cancelled by the operator (``dew create-tournament``,
``dew cancel-tournament``), not over HTTP.
"""

from __future__ import annotations

import asyncio
import json
from typing import Annotated, Any

from fastapi import APIRouter, FastAPI, Path, Query, Request, WebSocket
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from sqlalchemy.orm import Session
from starlette.websockets import WebSocketDisconnect

from backend.accounts.deps import CurrentPlayer
from backend.competitions import exceptions as exc
from backend.competitions import service
from backend.competitions.models import TournamentStatus
from backend.db.deps import SessionDep

router = APIRouter(prefix="/competitions", tags=["competitions"])

STATUS_BY_ERROR: list[tuple[type[Exception], int]] = [
    (exc.TournamentNotFound, 404),
    (exc.NotEligible, 403),
    (exc.InvalidTournament, 422),
    (exc.CompetitionsError, 409),
]
TournamentId = Annotated[int, Path(ge=1, le=2**31 - 1)]
# How often a WebSocket watcher looks for changes (tournaments move at the pace of matches).
WATCH_EVERY_S = 0.5


def _error(_request: Request, error: Exception) -> JSONResponse:
    status = next(s for cls, s in STATUS_BY_ERROR if isinstance(error, cls))
    body = {"error": {"code": getattr(error, "code", "error"), "message": str(error)}}
    return JSONResponse({"error": {**body["error"], "detail": None}}, status_code=status)


def install_error_handler(app: FastAPI) -> None:
    app.add_exception_handler(exc.CompetitionsError, _error)


class RegisterIn(BaseModel):
    avatar_id: int | None = Field(default=None, ge=1, le=2**63 - 1)


def _detail(session: Session, tournament_id: int) -> dict[str, Any]:
    t = service.get_tournament(session=session, tournament_id=tournament_id)
    return {
        **service.summary(t),
        "entrants": [
            service.entrant_view(e)
            for e in service.entrants_of(session=session, tournament_id=t.id)
        ],
    }


@router.get("", summary="Tournaments, newest first")
def list_tournaments(
    session: SessionDep, status: Annotated[str | None, Query(max_length=16)] = None
) -> list[dict[str, Any]]:
    return [service.summary(t) for t in service.list_tournaments(session=session, status=status)]


@router.get("/{tournament_id}", summary="A tournament and its entrants")
def get_tournament(session: SessionDep, tournament_id: TournamentId) -> dict[str, Any]:
    return _detail(session, tournament_id)


@router.post("/{tournament_id}/register", summary="Enter the signed-in wallet (pays the fee)")
def register(
    request: Request,
    session: SessionDep,
    tournament_id: TournamentId,
    player: CurrentPlayer,
    body: RegisterIn | None = None,
) -> dict[str, Any]:
    entrant = service.register(
        session=session,
        gate=request.app.state.gate,
        tournament_id=tournament_id,
        address=player.address,
        avatar_id=body.avatar_id if body else None,
    )
    return service.entrant_view(entrant)


@router.get("/{tournament_id}/bracket", summary="Every round's games and their matches")
def bracket(session: SessionDep, tournament_id: TournamentId) -> list[dict[str, Any]]:
    service.get_tournament(session=session, tournament_id=tournament_id)
    return service.bracket_view(session=session, tournament_id=tournament_id)


@router.get("/{tournament_id}/standings", summary="Places so far (final once finished)")
def standings(session: SessionDep, tournament_id: TournamentId) -> list[dict[str, Any]]:
    t = service.get_tournament(session=session, tournament_id=tournament_id)
    return service.standings_view(session=session, tournament=t)


def _events(
    factory: Any, tournament_id: int, seen: dict[str, Any]
) -> tuple[list[dict[str, Any]], bool]:
    """The events a watcher has not had yet: each part that changed since ``seen``."""
    with factory() as session:
        t = service.get_tournament(session=session, tournament_id=tournament_id)
        if seen.get("version") == t.version:
            return [], False
        parts = {
            "tournament": service.summary(t),
            "registration": [
                service.entrant_view(e)
                for e in service.entrants_of(session=session, tournament_id=t.id)
            ],
            "bracket": service.bracket_view(session=session, tournament_id=t.id),
            "standings": service.standings_view(session=session, tournament=t),
        }
    events = []
    for kind, data in parts.items():
        if seen.get(kind) != data:
            seen[kind] = data
            events.append({"v": 1, "type": kind, "tournament_id": tournament_id, "data": data})
    seen["version"] = parts["tournament"]["version"]
    over = parts["tournament"]["status"] in (TournamentStatus.FINISHED, TournamentStatus.CANCELLED)
    return events, over


@router.websocket("/{tournament_id}/ws")
async def tournament_socket(websocket: WebSocket, tournament_id: TournamentId) -> None:
    """Events ``tournament``, ``registration``, ``bracket`` and ``standings`` (docs/protocol.md):
    each is sent when it changes, the first time all four; the socket closes after the
    tournament finishes or is cancelled. An id outside 1..2**31-1 is refused like the HTTP
    routes refuse it (closed with 1008 before it is accepted)."""
    await websocket.accept()
    factory = websocket.app.state.session_factory
    seen: dict[str, Any] = {}
    try:
        while True:
            try:
                events, over = await run_in_threadpool(_events, factory, tournament_id, seen)
            except exc.CompetitionsError as error:
                await websocket.send_text(
                    json.dumps({"v": 1, "type": "error", "error": {"code": error.code}})
                )
                await websocket.close(4404)
                return
            for event in events:
                await websocket.send_text(json.dumps(event, default=str))
            if over:
                await websocket.close(1000)
                return
            await asyncio.sleep(WATCH_EVERY_S)
    except WebSocketDisconnect:
        return
