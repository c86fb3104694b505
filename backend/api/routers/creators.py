"""Creators and the fee schedule: register a code, bind a player to a creator once with a
statement the player's wallet signs, a creator's public page and dashboard; ``GET /fees``.

Writes need the wallet's access token; the statement is issued by the server (single use,
ten minutes) and signed by the wallet (EIP-191), so only the wallet itself can bind.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Path
from pydantic import BaseModel, Field

from backend.api.deps import CurrentPlayer, SessionDep, SettingsDep
from backend.api.errors import ErrorResponse
from backend.creators import service
from backend.economy.fees.schedule import FeeSchedule

router = APIRouter(tags=["creators"])

_ERRORS: dict[int | str, dict[str, Any]] = {
    s: {"model": ErrorResponse} for s in (401, 403, 404, 409, 422, 429)
}
Code = Annotated[str, Path(min_length=4, max_length=16, pattern=r"^[A-Za-z0-9]+$")]


class RegisterIn(BaseModel):
    code: str = Field(min_length=4, max_length=16, pattern=r"^[A-Za-z0-9]+$")


class StatementIn(BaseModel):
    code: str = Field(min_length=4, max_length=16, pattern=r"^[A-Za-z0-9]+$")


class StatementOut(BaseModel):
    nonce: str
    code: str
    message: str
    expires_at: datetime


class BindIn(BaseModel):
    nonce: str = Field(min_length=32, max_length=32, pattern=r"^[0-9a-f]+$")
    signature: str = Field(min_length=130, max_length=132, pattern=r"^(0x)?[0-9a-fA-F]+$")


class BindingOut(BaseModel):
    player: str
    code: str
    creator: str
    bound_at: datetime
    earns_until: datetime


@router.get("/fees", tags=["fees"], summary="The one fee schedule")
def fees(settings: SettingsDep) -> dict[str, int]:
    return FeeSchedule.from_settings(settings.fees).public()


@router.post("/creators", status_code=201, responses=_ERRORS, summary="Register a creator code")
def register(session: SessionDep, player: CurrentPlayer, body: RegisterIn) -> dict[str, Any]:
    creator = service.register(session=session, address=player.address, code=body.code)
    return service.public_view(session=session, code=creator.code)


@router.post(
    "/creators/bind/statement",
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
    return StatementOut(
        nonce=row.nonce, code=row.code, message=row.message, expires_at=row.expires_at
    )


@router.post(
    "/creators/bind",
    status_code=201,
    responses=_ERRORS,
    summary="Bind the signed-in wallet to a creator, once",
)
def bind(
    session: SessionDep, settings: SettingsDep, player: CurrentPlayer, body: BindIn
) -> BindingOut:
    b = service.bind(
        session=session,
        player=player.address,
        nonce=body.nonce,
        signature=body.signature,
        schedule=FeeSchedule.from_settings(settings.fees),
    )
    return BindingOut(
        player=b.player, code=b.code, creator=b.creator, bound_at=b.bound_at,
        earns_until=b.earns_until,
    )  # fmt: skip


@router.get("/creators/me/dashboard", responses=_ERRORS, summary="The signed-in creator's data")
def dashboard(session: SessionDep, player: CurrentPlayer) -> dict[str, Any]:
    return service.dashboard(session=session, address=player.address)


@router.get("/creators/{code}", responses=_ERRORS, summary="A creator's public page")
def public(session: SessionDep, code: Code) -> dict[str, Any]:
    return service.public_view(session=session, code=code)
