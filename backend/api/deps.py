"""FastAPI dependencies, named with ``Annotated`` so routes read as plain parameters."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from backend.accounts.deps import CurrentPlayer, SettingsDep
from backend.db.deps import SessionDep
from backend.tables.gating import Gate
from backend.tables.hub import MatchHub

# The routers of this package take every dependency from here.
__all__ = ["CurrentPlayer", "GateDep", "HubDep", "SessionDep", "SettingsDep"]


async def get_gate(request: Request) -> Gate:
    return request.app.state.gate


async def get_hub(request: Request) -> MatchHub:
    return request.app.state.hub


GateDep = Annotated[Gate, Depends(get_gate)]
HubDep = Annotated[MatchHub, Depends(get_hub)]
