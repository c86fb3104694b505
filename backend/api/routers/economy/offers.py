"""Scholarship offers (``/economy/offers``): an unsigned transaction for the owner's wallet."""

from __future__ import annotations

from fastapi import APIRouter

from backend.api.deps import BuilderDep
from backend.api.params import described_errors
from backend.economy import schemas
from backend.economy.policy import Party, Terms
from backend.economy.scholarships.transactions import OfferTerms

router = APIRouter(prefix="/offers")
_ERRORS = described_errors(404, 409, 422, 503)


@router.post("", response_model=schemas.TransactionsOut, responses=_ERRORS)
def offer(body: schemas.OfferIn, builder: BuilderDep) -> schemas.TransactionsOut:
    """An owner offers an avatar to a scholar, or lists it for any scholar."""
    terms = OfferTerms(
        terms=Terms.FIXED_RENT if body.terms == "fixed_rent" else Terms.REWARDS_DIVISION,
        duration_s=body.duration_s,
        rent=int(body.rent),
        owner_bps=body.owner_bps,
        manager_bps=body.manager_bps,
        manager=body.manager,
        dust_to=Party[body.dust_to.upper()],
        valid_until=body.valid_until,
    )
    return schemas.TransactionsOut.of(
        builder.offer(
            owner=body.owner,
            avatar_id=body.avatar_id,
            terms=terms,
            scholar=body.scholar,
            valid_for_s=body.valid_for_s,
        )
    )
