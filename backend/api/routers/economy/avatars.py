"""An avatar under scholarship (``/economy/avatars``): its report, and the owner's
transaction that withdraws every open offer for it."""

from __future__ import annotations

from fastapi import APIRouter

from backend.api.deps import BuilderDep, SessionDep
from backend.api.params import Id63 as AvatarId
from backend.api.params import described_errors
from backend.economy import reports, schemas

router = APIRouter(prefix="/avatars")
_ERRORS = described_errors(404, 409, 422, 503)


@router.post(
    "/{avatar_id}/offers/cancel",
    response_model=schemas.TransactionsOut,
    responses=_ERRORS,
)
def cancel_offers(
    avatar_id: AvatarId, body: schemas.OwnerIn, builder: BuilderDep
) -> schemas.TransactionsOut:
    """The owner withdraws every offer they have open for the avatar, in one transaction."""
    return schemas.TransactionsOut.of(builder.cancel_offers(owner=body.owner, avatar_id=avatar_id))


@router.get("/{avatar_id}", response_model=schemas.AvatarReportOut)
def avatar(avatar_id: AvatarId, session: SessionDep) -> schemas.AvatarReportOut:
    row = reports.avatar_report(session=session, avatar_id=avatar_id)
    return schemas.AvatarReportOut(**schemas.wei_strings(row, *schemas.AVATAR_REPORT_WEI))
