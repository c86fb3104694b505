"""Results (``/results``): the finished matches of a wallet and/or an avatar."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from backend.api.deps import SessionDep
from backend.api.params import error_responses
from backend.api.routers.tables import checksum_address
from backend.tables import schemas
from backend.tables import service as tables

router = APIRouter(prefix="/results", tags=["tables"])
_ERRORS = error_responses(401, 403, 404, 409, 422, 503)


@router.get("", response_model=list[schemas.ResultOut], responses=_ERRORS)
def results(
    session: SessionDep,
    address: Annotated[str | None, Query(max_length=42)] = None,
    avatar_id: Annotated[int | None, Query(ge=0, le=2**63 - 1)] = None,
) -> list[schemas.ResultOut]:
    """Finished-match results of a wallet and/or an avatar, newest first."""
    found = tables.results_for(
        session=session,
        address=checksum_address(address) if address else None,
        avatar_id=avatar_id,
    )
    return [schemas.ResultOut.model_validate(r, from_attributes=True) for r in found]
