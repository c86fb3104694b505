"""FastAPI dependencies, named with ``Annotated`` so routes read as plain parameters."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy.orm import Session

from backend.accounts import exceptions as accounts_exc
from backend.accounts import service as accounts
from backend.accounts.service import Principal
from backend.config import Settings
from backend.tables.gating import Gate
from backend.tables.live import MatchHub


async def get_settings(request: Request) -> Settings:
    return request.app.state.settings


def get_session(request: Request) -> Iterator[Session]:
    """A session per request; services commit their own unit of work."""
    session: Session = request.app.state.session_factory()
    try:
        yield session
    finally:
        session.close()


# Trivial dependencies are ``async def`` so that FastAPI calls them inline instead of in a
# worker thread (a thread hop costs more than a sign-in's own work).
SettingsDep = Annotated[Settings, Depends(get_settings)]
SessionDep = Annotated[Session, Depends(get_session)]

_bearer = HTTPBearer(auto_error=False, description="Access token from /auth/signin")


def get_current_player(
    session: SessionDep,
    settings: SettingsDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> Principal:
    if credentials is None or credentials.scheme.lower() != "bearer":
        raise accounts_exc.NotAuthenticated("send 'Authorization: Bearer <access token>'")
    return accounts.authenticate(session=session, settings=settings, token=credentials.credentials)


CurrentPlayer = Annotated[Principal, Depends(get_current_player)]


async def get_gate(request: Request) -> Gate:
    return request.app.state.gate


async def get_hub(request: Request) -> MatchHub:
    return request.app.state.hub


GateDep = Annotated[Gate, Depends(get_gate)]
HubDep = Annotated[MatchHub, Depends(get_hub)]
