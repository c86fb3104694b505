"""The shapes of ``/care``: a wallet's standing (sanctions, breaks, limits), its appeal, the
limits and breaks it sets, and what moderators send and read."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

from backend.care.models import APPEAL_MAX_CHARS, REASON_MAX_CHARS
from backend.kit.schemas import Address, Wei

SanctionKind = Literal["warn", "mute", "suspend", "ban"]
# Hours a sanction lasts: ten years at most (each kind's own bounds are the service's).
Hours = Field(ge=1, le=87_600)


class SanctionOut(BaseModel):
    id: int
    address: str
    kind: str
    reason: str
    complaint_id: int | None
    created_at: datetime
    expires_at: datetime
    lifted_at: datetime | None
    appeal: str | None
    appealed_at: datetime | None
    answer: str | None
    answered_at: datetime | None
    active: bool = False


class BreakOut(BaseModel):
    id: int
    kind: str
    starts_at: datetime
    ends_at: datetime


class LimitOut(BaseModel):
    kind: str
    period: str
    amount: str | None = Field(description="DEW wei in force; null: no limit")
    pending: str | None = Field(description="a raise (null: removal) waiting its cooling")
    pending_from: datetime | None
    used: str


class StandingOut(BaseModel):
    address: str
    sanctions: list[SanctionOut]
    breaks: list[BreakOut]
    limits: list[LimitOut]


class AppealIn(BaseModel):
    text: str = Field(min_length=1, max_length=APPEAL_MAX_CHARS)


class LimitIn(BaseModel):
    kind: Literal["deposit", "stake"]
    period: Literal["day", "week", "month"]
    amount: Wei | None = Field(default=None, description="DEW wei; null removes the limit")


class BreakIn(BaseModel):
    kind: Literal["timeout", "exclusion"]
    days: int = Field(ge=1, le=5 * 365, description="timeout 1..42, exclusion 183 or more")


class SanctionIn(BaseModel):
    kind: SanctionKind
    reason: str = Field(min_length=1, max_length=REASON_MAX_CHARS)
    hours: int = Hours


class WalletSanctionIn(SanctionIn):
    address: Address


class LiftIn(BaseModel):
    note: str = Field(min_length=1, max_length=REASON_MAX_CHARS)


class AnswerIn(LiftIn):
    uphold: bool


class AuditOut(BaseModel):
    action: str
    actor: str
    note: str | None
    at: datetime
