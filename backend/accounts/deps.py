"""The signed-in wallet of a request: one bearer-token dependency for every router."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from backend.accounts import exceptions as accounts_exc
from backend.accounts import service as accounts
from backend.accounts.service import Principal
from backend.config import Settings
from backend.db.deps import read_sessions


async def get_settings(request: Request) -> Settings:
    return request.app.state.settings


# Trivial dependencies are ``async def`` so that FastAPI calls them inline instead of in a
# worker thread (a thread hop costs more than a sign-in's own work).
SettingsDep = Annotated[Settings, Depends(get_settings)]

_bearer = HTTPBearer(auto_error=False, description="Access token from /auth/signin")


def get_current_player(
    request: Request,
    settings: SettingsDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> Principal:
    if credentials is None or credentials.scheme.lower() != "bearer":
        raise accounts_exc.NotAuthenticated("send 'Authorization: Bearer <access token>'")
    # Its own read-only session, closed before the route runs: the route's session (and on
    # SQLite the write lock) is not opened by authentication and not held across the
    # route's slow work (the chain gate).
    with read_sessions(request.app.state)() as session:
        return accounts.authenticate(
            session=session, settings=settings, token=credentials.credentials
        )


CurrentPlayer = Annotated[Principal, Depends(get_current_player)]
