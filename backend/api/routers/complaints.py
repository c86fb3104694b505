"""Reports of players ("Complaints", ``/complaints``): a signed-in wallet reports a table mate.

Table talk itself goes over the play socket (``backend.api.ws``, ``backend.tables.live.talk``);
the operator reads reports with ``dew complaints``.
"""

from __future__ import annotations

from fastapi import APIRouter

from backend.api.deps import CurrentPlayer, SessionDep, SettingsDep
from backend.api.params import error_responses, out_of
from backend.kit.rows import columns
from backend.tables.moderation import complaints
from backend.tables.schemas import ComplaintOut, ReportIn

router = APIRouter(prefix="/complaints", tags=["talk"])
_ERRORS = error_responses(401, 403, 409, 422, 429)


@router.post("", response_model=ComplaintOut, status_code=201, responses=_ERRORS)
def report_player(
    body: ReportIn, session: SessionDep, player: CurrentPlayer, settings: SettingsDep
) -> ComplaintOut:
    """Report a player you share or shared a table with, for one of the fixed reasons."""
    row = complaints.report(
        session=session,
        reporter=player.address,
        reported=body.address,
        **columns(body, "table_id reason note"),
        per_day=settings.talk.reports_per_day,
    )
    return out_of(ComplaintOut, row)
