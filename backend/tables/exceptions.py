"""Errors of the tables aggregate; each carries a stable ``code`` for clients."""

from __future__ import annotations

from backend.kit import errors as kind


class TablesError(kind.DewError):
    """Root of every tables error."""

    code = "tables_error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class NotFound(TablesError, kind.NotFound):
    code = "not_found"


class TableNotFound(NotFound):
    code = "table_not_found"


class MatchNotFound(NotFound):
    code = "match_not_found"


class TicketNotFound(NotFound):
    code = "ticket_not_found"


class Forbidden(TablesError, kind.Forbidden):
    code = "forbidden"


class NotInvited(Forbidden):
    code = "not_invited"


class NotEligible(Forbidden):
    """The wallet holds no avatar it may play and no valid VIP pass (earning tables)."""

    code = "not_eligible"


class VipRequired(Forbidden):
    code = "vip_required"


class Conflict(TablesError, kind.Conflict):
    code = "conflict"


class TableFull(Conflict):
    code = "table_full"


class SeatTaken(Conflict):
    code = "seat_taken"


class AlreadySeated(Conflict):
    code = "already_seated"


class AlreadyQueued(Conflict):
    """The wallet already has a waiting matchmaking ticket (one per wallet)."""

    code = "already_queued"


class AlreadyPlaying(Conflict):
    """The wallet or avatar already sits at an open or playing earning table."""

    code = "already_playing"


class TooManyTables(Conflict):
    """The wallet already has as many open or playing tables as it may create."""

    code = "too_many_tables"


class CenterFull(Conflict):
    """The Game Center already hosts as many open or playing tables as its capacity."""

    code = "center_full"


class TableNotOpen(Conflict):
    code = "table_not_open"


class InsufficientStake(Conflict):
    """A seated wallet has not deposited the table's stake; the match did not start."""

    code = "insufficient_stake"


class InvalidRequest(TablesError, kind.Invalid):
    code = "invalid_request"


class UnknownPreset(InvalidRequest):
    code = "unknown_preset"


class InvalidOptions(InvalidRequest):
    code = "invalid_options"


class Unavailable(TablesError, kind.Unavailable):
    code = "unavailable"


class ChainUnavailable(Unavailable):
    code = "chain_unavailable"


# Live-play errors, sent over the WebSocket (the same shape as HTTP errors).
class PlayError(TablesError):
    code = "play_error"


class IllegalMove(PlayError):
    code = "illegal_move"


class NotYourTurn(PlayError):
    code = "not_your_turn"


class StalePly(PlayError):
    """The client's move was for a position that is no longer current."""

    code = "stale_ply"


class MatchNotLive(PlayError):
    code = "match_not_live"


# --- table talk and reports (tables.live.talk, tables.moderation.complaints) ---------------
class InvalidTalk(InvalidRequest):
    code = "invalid_talk"


class FreeTextOff(Forbidden):
    code = "free_text_off"


class TalkRateLimited(TablesError, kind.TooMany):
    code = "rate_limited"


class NotTableMate(Forbidden):
    """Only a player who shares or shared a table with you can be reported."""

    code = "not_table_mate"


class AlreadyReported(Conflict):
    code = "already_reported"


class TooManyReports(TablesError, kind.TooMany):
    code = "too_many_reports"


class ComplaintNotFound(NotFound):
    code = "complaint_not_found"
