"""The one fee schedule (``/fees``): what each kind of match and sale pays, in basis points,
as the economy charges it (``backend/economy/fees/schedule.py``)."""

from __future__ import annotations

from fastapi import APIRouter

from backend.api.deps import SettingsDep
from backend.economy.fees.schedule import FeeSchedule

router = APIRouter(prefix="/fees", tags=["fees"])


@router.get("", summary="The one fee schedule")
def fees(settings: SettingsDep) -> dict[str, int]:
    return FeeSchedule.from_settings(settings.fees).public()
