"""A scholar's earnings (``/economy/scholars``): paid and pending, per avatar and agreement."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fastapi import APIRouter

from backend.api.deps import ChainNowDep, SessionDep
from backend.api.params import described_errors
from backend.economy import reports, schemas

router = APIRouter(prefix="/scholars")
_ERRORS = described_errors(404, 409, 422, 503)


@router.get("/{address}/earnings", response_model=schemas.ScholarEarningsOut, responses=_ERRORS)
def scholar(address: str, session: SessionDep, now_s: ChainNowDep) -> schemas.ScholarEarningsOut:
    # The reports are plain mappings of wei amounts and nested rows.
    data: Mapping[str, Any] = reports.scholar_earnings(
        session=session, scholar=address, now_s=now_s
    )
    return schemas.ScholarEarningsOut(
        address=data["address"],
        paid=str(data["paid"]),
        pending=str(data["pending"]),
        avatars=[
            schemas.ScholarAvatarOut(**schemas.wei_strings(a, "pending", "paid", "failed"))
            for a in data["avatars"]
        ],
        agreements=[
            schemas.ScholarAgreementOut(**schemas.wei_strings(a, "rent", "rent_refunded"))
            for a in data["agreements"]
        ],
    )
