"""Reports of players ("Complaints"): a signed-in wallet reports a table mate.

Table talk itself goes over the play socket (``backend.api.ws``, ``backend.tables.live.talk``);
the operator reads reports with ``dew complaints``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter
from pydantic import BaseModel, Field

from backend.api.deps import CurrentPlayer, SessionDep, SettingsDep
from backend.api.errors import ErrorResponse
from backend.protocol.messages import REPORT_REASONS
from backend.tables.moderation import complaints

router = APIRouter(tags=["talk"])
_ERRORS: dict[int | str, dict[str, Any]] = {
    s: {"model": ErrorResponse} for s in (401, 403, 409, 422, 429)
}

Reason = Annotated[str, Field(max_length=32, description=", ".join(REPORT_REASONS))]


class ReportIn(BaseModel):
    table_id: str = Field(pattern=r"^[0-9a-f]{32}$", description="where you sit or sat together")
    address: str = Field(pattern=r"^0x[0-9a-fA-F]{40}$", description="the reported player")
    reason: Reason
    # The service counts characters once control characters are stripped; this bounds the
    # raw body first.
    note: str | None = Field(default=None, max_length=4 * complaints.NOTE_MAX_CHARS)

    model_config = {"extra": "forbid"}


class ComplaintOut(BaseModel):
    id: int
    table_id: str
    reported: str
    reason: str
    note: str | None
    status: str
    created_at: datetime


@router.post("/complaints", response_model=ComplaintOut, status_code=201, responses=_ERRORS)
def report_player(
    body: ReportIn, session: SessionDep, player: CurrentPlayer, settings: SettingsDep
) -> ComplaintOut:
    """Report a player you share or shared a table with, for one of the fixed reasons."""
    row = complaints.report(
        session=session,
        reporter=player.address,
        reported=body.address,
        table_id=body.table_id,
        reason=body.reason,
        note=body.note,
        per_day=settings.talk.reports_per_day,
    )
    return ComplaintOut(**{k: getattr(row, k) for k in ComplaintOut.model_fields})
