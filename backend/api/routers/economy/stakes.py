"""A wallet's stake balance (``/economy/stakes``): DEW deposited into the vault, not staked."""

from __future__ import annotations

from fastapi import APIRouter

from backend.api.deps import SessionDep
from backend.api.params import described_errors
from backend.economy import reports, schemas, stakes

router = APIRouter(prefix="/stakes")
_ERRORS = described_errors(404, 409, 422, 503)


@router.get("/{address}", response_model=schemas.StakeBalanceOut, responses=_ERRORS)
def stake(address: str, session: SessionDep) -> schemas.StakeBalanceOut:
    """DEW the wallet deposited into the vault and has not staked (or withdrawn) yet."""
    balance = stakes.stake_balance(session=session, address=address)
    return schemas.StakeBalanceOut(address=reports.checksum(address), balance=str(balance))
