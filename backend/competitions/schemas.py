"""Request and response bodies of the competitions routes, and of the tournaments and the
detail page a Game Center hosts (``/centers``)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

from backend.centers.schemas import CenterOut
from backend.economy.schemas import MoneyWei
from backend.kit.schemas import StrictIn
from backend.tables.schemas import BotLevel, TableOut


class RegisterIn(BaseModel):
    avatar_id: int | None = Field(default=None, ge=1, le=2**63 - 1)


class ContributionIn(StrictIn):
    """DEW (in wei) the signed-in wallet adds to a tournament's prizes."""

    amount: MoneyWei


class ContributionOut(BaseModel):
    contributor: str
    amount: str = Field(description="DEW wei")
    at: datetime


class ContributionsOut(BaseModel):
    """What contributions add to a tournament's prizes, and who gave it."""

    total: str = Field(description="DEW wei")
    contributions: list[ContributionOut]


class CenterDetail(CenterOut):
    tables: list[TableOut]
    tournaments: list[dict[str, Any]]


class CenterTournamentIn(StrictIn):
    """A Campeonato at the center (no added prize; the fee is the house's)."""

    name: str = Field(min_length=1, max_length=64)
    preset: str = Field(max_length=64)
    format: Literal["swiss", "elimination"] = "swiss"
    options: dict[str, int | str | bool] = Field(default_factory=dict, max_length=16)
    season_id: int | None = Field(default=None, ge=1, le=2**31 - 1)
    entry_fee: int = Field(default=0, ge=0, le=2**88 - 1, description="DEW wei")
    fee_bps: int = Field(default=0, ge=0, le=2_000)
    prize_bps: list[int] = Field(default_factory=lambda: [5000, 3000, 2000], max_length=16)
    min_entrants: int = Field(default=4, ge=2, le=4096)
    max_entrants: int = Field(default=16, ge=2, le=4096)
    starts_at: datetime | None = None
    round_every_s: float = Field(default=0.0, ge=0, le=7 * 86400)
    turn_timeout_s: float = Field(default=30.0, ge=1, le=600)
    bot_level: BotLevel = "medium"
