"""A screener approves (or withdraws) an owner on chain (``/economy/screenings``): an
unsigned transaction for the screener's own wallet."""

from __future__ import annotations

from fastapi import APIRouter

from backend.api.deps import BuilderDep
from backend.api.params import described_errors
from backend.economy import schemas

router = APIRouter(prefix="/screenings")
_ERRORS = described_errors(404, 409, 422, 503)


@router.post("", response_model=schemas.TransactionsOut, responses=_ERRORS)
def screen_owner(body: schemas.ScreeningIn, builder: BuilderDep) -> schemas.TransactionsOut:
    """A screener approves (or withdraws) an owner: the screener's wallet signs it."""
    return schemas.TransactionsOut.of(
        builder.screen_owner(screener=body.screener, owner=body.owner, approved=body.approved)
    )
