"""Creators (``/creators``): register a code, bind a player to a creator once with a
statement the player's wallet signs, a creator's public page and dashboard.

Writes need the wallet's access token; the statement is issued by the server (single use,
ten minutes) and signed by the wallet (EIP-191), so only the wallet itself can bind.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path

from backend.api.deps import CurrentPlayer, SessionDep, SettingsDep
from backend.api.params import error_responses, out_of
from backend.creators import service
from backend.creators.schemas import (
    CODE_PATTERN,
    BindIn,
    BindingOut,
    RegisterIn,
    StatementIn,
    StatementOut,
)
from backend.economy.fees.schedule import FeeSchedule

router = APIRouter(prefix="/creators", tags=["creators"])

_ERRORS = error_responses(401, 403, 404, 409, 422, 429)
Code = Annotated[str, Path(min_length=4, max_length=16, pattern=CODE_PATTERN)]


@router.post("", status_code=201, responses=_ERRORS, summary="Register a creator code")
def register(session: SessionDep, player: CurrentPlayer, body: RegisterIn) -> dict[str, Any]:
    creator = service.register(session=session, address=player.address, code=body.code)
    return service.public_view(session=session, code=creator.code)


@router.post(
    "/bind/statement",
    status_code=201,
    responses=_ERRORS,
    summary="The statement the signed-in wallet signs to bind to a creator",
)
def statement(
    session: SessionDep, settings: SettingsDep, player: CurrentPlayer, body: StatementIn
) -> StatementOut:
    row = service.issue_statement(
        session=session, player=player.address, code=body.code, chain_id=settings.chain.chain_id
    )
    return out_of(StatementOut, row)


@router.post(
    "/bind",
    status_code=201,
    responses=_ERRORS,
    summary="Bind the signed-in wallet to a creator, once",
)
def bind(
    session: SessionDep, settings: SettingsDep, player: CurrentPlayer, body: BindIn
) -> BindingOut:
    binding = service.bind(
        session=session,
        player=player.address,
        nonce=body.nonce,
        signature=body.signature,
        schedule=FeeSchedule.from_settings(settings.fees),
    )
    return out_of(BindingOut, binding)


@router.get("/me/dashboard", responses=_ERRORS, summary="The signed-in creator's data")
def dashboard(session: SessionDep, player: CurrentPlayer) -> dict[str, Any]:
    return service.dashboard(session=session, address=player.address)


@router.get("/{code}", responses=_ERRORS, summary="A creator's public page")
def public(session: SessionDep, code: Code) -> dict[str, Any]:
    return service.public_view(session=session, code=code)
