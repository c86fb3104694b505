"""Request and response bodies of the tables API."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from backend.kit.schemas import ADDRESS_PATTERN, StrictIn
from backend.protocol.messages import REPORT_REASONS
from backend.tables.moderation import complaints

Address = str
BotLevel = Literal["easy", "medium", "hard", "expert"]


class _TableRules(BaseModel):
    """The game a new table plays: the first fields of a player's table (``TableCreate``) and
    of a center's (``CenterTableIn``)."""

    preset: str = Field(max_length=64, examples=["dew200"])
    options: dict[str, int | str | bool] = Field(default_factory=dict, max_length=16)
    seats: int = Field(default=4, ge=2, le=4)
    stake: int = Field(default=0, ge=0, le=10**30, description="DEW base units; earning only")
    earning: bool = False


class TableCreate(_TableRules):
    kind: Literal["human", "practice", "ai", "same_device"] = "human"
    visibility: Literal["public", "private"] = "public"
    bot_level: BotLevel = "medium"
    bot_levels: list[BotLevel] | None = Field(
        default=None, min_length=2, max_length=4, description="One bot level per seat, seat 0 first"
    )
    invite: list[str] = Field(default_factory=list, max_length=8)
    avatar_id: int | None = Field(default=None, ge=0, le=2**63 - 1)
    turn_timeout_s: float | None = Field(default=None, ge=1, le=600)
    spectators_allowed: bool = True
    spectator_delay_s: float = Field(default=0.0, ge=0, le=600)


class JoinRequest(BaseModel):
    seat: int | None = Field(default=None, ge=0, le=3)
    avatar_id: int | None = Field(default=None, ge=0, le=2**63 - 1)
    invite_code: str | None = Field(default=None, max_length=64)


class InviteRequest(BaseModel):
    addresses: list[str] = Field(min_length=1, max_length=8)


class SeatOut(BaseModel):
    seat: int
    address: str | None
    bot_level: str | None
    avatar_id: int | None


class FeesOut(BaseModel):
    """A table's fees before a join (docs/economy.md, "Fees"): the rake on its pot, and how
    that fee is shared (bps of the fee): the treasury, the hosting center, a referred
    player's creator."""

    rake_bps: int
    treasury_bps: int
    center_bps: int
    creator_bps: int
    center_id: int | None = None


class TableOut(BaseModel):
    id: str
    preset: str
    options: dict[str, Any]
    seat_count: int
    stake: str
    earning: bool
    kind: str
    visibility: str
    status: str
    creator: str | None
    bot_level: str
    bot_levels: list[str] | None = None
    turn_timeout_s: float
    spectators_allowed: bool
    spectator_delay_s: float
    match_id: str | None
    created_at: datetime
    seats: list[SeatOut] = Field(default_factory=list)
    invite_code: str | None = Field(default=None, description="Only shown to the creator")
    invite_link: str | None = None
    ws_path: str
    fees: FeesOut | None = None


class QueueRequest(BaseModel):
    preset: str = Field(max_length=64)
    options: dict[str, int | str | bool] = Field(default_factory=dict, max_length=16)
    stake: int = Field(default=0, ge=0, le=10**30, description="DEW base units; earning only")
    earning: bool = False
    avatar_id: int | None = Field(default=None, ge=0, le=2**63 - 1)
    seats: int | None = Field(
        default=None, ge=2, le=4, description="Table size (None: the preset's usual, 4 if it has 4)"
    )


class TicketOut(BaseModel):
    id: str
    preset: str
    options: dict[str, Any]
    stake: str
    seat_count: int | None
    earning: bool
    status: str
    table_id: str | None
    created_at: datetime


class MatchOut(BaseModel):
    id: str
    table_id: str
    preset: str
    options: dict[str, Any]
    seats: list[dict[str, Any]]
    status: str
    seed_commitment: str
    server_seed: str | None = Field(description="Revealed once the match is over")
    result: dict[str, Any] | None
    result_hash: str | None
    record: dict[str, Any] | None
    created_at: datetime
    finished_at: datetime | None


class ResultOut(BaseModel):
    match_id: str
    seat: int
    address: str | None
    avatar_id: int | None
    is_bot: bool
    team: int | None
    placement: int
    points: int
    won: bool
    forfeited: bool
    finished_at: datetime


class TableLimits(BaseModel):
    """What the create-table form may offer: the server's bounds."""

    kinds: list[str]
    bot_levels: list[str]
    min_turn_timeout_s: float
    max_turn_timeout_s: float
    min_earning_turn_timeout_s: float
    default_turn_timeout_s: float
    same_device_seats: int


class CenterTableIn(_TableRules):
    """A table under the center: a public or private human table its host does not sit at."""

    visibility: Literal["public", "private"] = "public"
    bot_level: BotLevel = "medium"
    turn_timeout_s: float | None = Field(default=None, ge=1, le=600)
    spectators_allowed: bool = True
    spectator_delay_s: float = Field(default=0.0, ge=0, le=600)

    model_config = {"extra": "forbid"}


# --- reports of players ("Complaints") -------------------------------------------------------

Reason = Annotated[str, Field(max_length=32, description=", ".join(REPORT_REASONS))]


class ReportIn(StrictIn):
    table_id: str = Field(pattern=r"^[0-9a-f]{32}$", description="where you sit or sat together")
    address: str = Field(pattern=ADDRESS_PATTERN, description="the reported player")
    reason: Reason
    # The service counts characters once control characters are stripped; this bounds the
    # raw body first.
    note: str | None = Field(default=None, max_length=4 * complaints.NOTE_MAX_CHARS)


class MessageReportIn(StrictIn):
    reason: Reason
    note: str | None = Field(default=None, max_length=4 * complaints.NOTE_MAX_CHARS)


class ComplaintOut(BaseModel):
    id: int
    table_id: str | None = Field(description="the table shared; null: a private message")
    message_id: int | None = Field(default=None, description="the private message reported")
    message: str | None = Field(
        default=None, description="the reported message's text (null once its author closed)"
    )
    reported: str
    reason: str
    note: str | None
    status: str
    created_at: datetime
