"""An owner's avatars (``/economy/owners``): per avatar, its matches, gross and shares."""

from __future__ import annotations

from fastapi import APIRouter

from backend.api.deps import ChainNowDep, SessionDep
from backend.api.params import described_errors
from backend.economy import reports, schemas

router = APIRouter(prefix="/owners")
_ERRORS = described_errors(404, 409, 422, 503)


@router.get("/{address}/avatars", response_model=list[schemas.AvatarReportOut], responses=_ERRORS)
def owner_avatars(
    address: str, session: SessionDep, now_s: ChainNowDep
) -> list[schemas.AvatarReportOut]:
    """Per avatar: matches, wins, gross, owner and scholar shares, agreement status (an
    agreement whose term ran out by chain time is ``expired``, for anyone to close)."""
    rows = reports.owner_view(session=session, owner=address, now_s=now_s)
    return [
        schemas.AvatarReportOut(**schemas.wei_strings(r, *schemas.AVATAR_REPORT_WEI)) for r in rows
    ]
