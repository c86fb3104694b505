"""The rule presets (``/presets``): their options, and which option values are premium."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

router = APIRouter(prefix="/presets", tags=["tables"])


@router.get("")
def list_presets() -> list[dict[str, Any]]:
    """Rule presets, their options, and which option values are premium (VIP pass)."""
    from backend.tables import play

    return play.presets()
