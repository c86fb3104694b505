"""A finished match's settlement (``/economy/matches``): its reward plan and payment."""

from __future__ import annotations

from fastapi import APIRouter

from backend.api.deps import SessionDep
from backend.api.params import described_errors, out_of
from backend.economy import schemas
from backend.economy.models import PlannedSettlement
from backend.kit import errors as kind

router = APIRouter(prefix="/matches")
_ERRORS = described_errors(404, 409, 422, 503)


@router.get("/{match_id}", response_model=schemas.SettlementOut, responses=_ERRORS)
def settlement(match_id: str, session: SessionDep) -> schemas.SettlementOut:
    """A finished match's reward plan and where its payment stands."""
    s = session.get(PlannedSettlement, match_id)
    if s is None:
        raise kind.NotFound(f"match {match_id!r} has not been planned")
    return out_of(schemas.SettlementOut, s)
