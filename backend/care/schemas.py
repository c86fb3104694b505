"""The shapes of ``/care``: a wallet's standing (sanctions, breaks, limits), its appeal, the
limits and breaks it sets, and what moderators send and read; support tickets, the outcome
of a wallet's reports, and closing an account."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

from backend.care.models import (
    APPEAL_MAX_CHARS,
    MESSAGE_MAX_CHARS,
    REASON_MAX_CHARS,
    SUBJECT_MAX_CHARS,
)
from backend.kit.schemas import Address, StrictIn, Wei

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


# --- support tickets, reports' outcomes, closing an account -------------------------------


class TicketIn(StrictIn):
    about: Literal["payout", "match", "rental", "purchase"] = Field(
        description="payout: a ledger leg's id; match: a match id; rental: an agreement id; "
        "purchase: a market ledger entry's id"
    )
    # Every id it names is ASCII letters, digits, "-" or "_" (a ledger leg's, an agreement's
    # or a market entry's number, a match id): anything else is refused before a lookup.
    ref: str = Field(pattern=r"^[A-Za-z0-9_-]{1,80}$")
    subject: str = Field(min_length=1, max_length=SUBJECT_MAX_CHARS)
    text: str = Field(min_length=1, max_length=MESSAGE_MAX_CHARS)


class TicketMessageIn(StrictIn):
    text: str = Field(min_length=1, max_length=MESSAGE_MAX_CHARS)


class TicketAnswerIn(TicketMessageIn):
    close: bool = False


class MessageOut(BaseModel):
    staff: bool = Field(description="an answer of the operator or a moderator")
    body: str | None = Field(description="null: removed when its author closed its account")
    created_at: datetime


class StaffMessageOut(MessageOut):
    author: str


class TicketOut(BaseModel):
    id: int
    about: str
    ref: str
    subject: str
    status: str = Field(description="open (waiting for an answer), answered or closed")
    created_at: datetime
    closed_at: datetime | None
    messages: list[MessageOut] = Field(default_factory=list)


class StaffTicketOut(TicketOut):
    address: str
    messages: list[StaffMessageOut] = Field(default_factory=list)  # type: ignore[assignment]


class ReportOutcomeOut(BaseModel):
    id: int
    table_id: str | None = Field(description="the table shared; null: a private message")
    message_id: int | None = Field(default=None, description="the private message reported")
    reported: str
    reason: str
    status: str
    created_at: datetime
    closed_at: datetime | None
    action: str | None = Field(
        description="null while open; then warn, mute, suspend, ban, or none (closed with no "
        "sanction)"
    )


class ClosureIn(StrictIn):
    confirm: Literal[True] = Field(description="true: close this wallet's account for good")


class ClosureOut(BaseModel):
    address: str
    closed_at: datetime
