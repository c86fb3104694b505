"""Errors of the tables aggregate: its root, each error a kind of ``backend.kit.errors``."""

from __future__ import annotations

from backend.kit import errors as kind


class TablesError(kind.DewError):
    """Root of every tables error."""


class ChainUnavailable(TablesError, kind.ChainUnavailable):
    """The chain node could not be read to gate a seat; the caller may try again."""


class TableNotFound(TablesError, kind.NotFound):
    """No table has the id asked for."""


class MatchNotFound(TablesError, kind.NotFound):
    """No match has the id asked for."""


class TicketNotFound(TablesError, kind.NotFound):
    """No matchmaking ticket has the id asked for."""


class ComplaintNotFound(TablesError, kind.NotFound):
    """No complaint has the id asked for."""


class NotInvited(TablesError, kind.Forbidden):
    """The table is private and the wallet brings neither its invitation link nor address."""


class NotEligible(TablesError, kind.Forbidden):
    """The wallet holds no avatar it may play and no valid VIP pass (earning tables)."""


class VipRequired(TablesError, kind.Forbidden):
    """Premium options (creating such a table, or queueing for one) need a VIP pass."""


class FreeTextOff(TablesError, kind.Forbidden):
    """A talk message of free text at a server that allows phrases and emotes only."""


class NotTableMate(TablesError, kind.Forbidden):
    """Only a player who shares or shared a table with you can be reported."""


class TableFull(TablesError, kind.Conflict):
    """Every seat of the table is taken."""


class SeatTaken(TablesError, kind.Conflict):
    """The seat asked for is held by another wallet."""


class AlreadySeated(TablesError, kind.Conflict):
    """The wallet already has a seat at this table."""


class AlreadyQueued(TablesError, kind.Conflict):
    """The wallet already has a waiting matchmaking ticket (one per wallet)."""


class AlreadyPlaying(TablesError, kind.Conflict):
    """The wallet or avatar already sits at an open or playing earning table."""


class TooManyTables(TablesError, kind.Conflict):
    """The wallet already has as many open or playing tables as it may create."""


class CenterFull(TablesError, kind.Conflict):
    """The Game Center already hosts as many open or playing tables as its capacity."""


class TableNotOpen(TablesError, kind.Conflict):
    """The table is no longer open (playing, finished or closed): no seat, no start."""


class InsufficientStake(TablesError, kind.Conflict):
    """A seated wallet has not deposited the table's stake; the match did not start."""


class AlreadyReported(TablesError, kind.Conflict):
    """The wallet already reported this player at this table."""


class UnknownPreset(TablesError, kind.Invalid):
    """No preset has the name asked for."""


class InvalidOptions(TablesError, kind.Invalid):
    """The options do not make a valid game of the preset."""


class InvalidTalk(TablesError, kind.Invalid):
    """A talk message (or one relayed by another process) that is not one known phrase,
    emote or clean text within its bounds."""


class TalkRateLimited(TablesError, kind.TooMany, code="rate_limited"):
    """A seat talks faster than the talk rate allows."""


class TooManyReports(TablesError, kind.TooMany):
    """The wallet filed as many reports in 24 hours as it may."""


# A tables refusal that has no class of its own is one of these.
class NotFound(TablesError, kind.NotFound): ...


class Forbidden(TablesError, kind.Forbidden): ...


class Conflict(TablesError, kind.Conflict): ...


class InvalidRequest(TablesError, kind.Invalid): ...


class Unavailable(TablesError, kind.Unavailable): ...


# Live-play errors, sent over the WebSocket (the same shape as HTTP errors).
class PlayError(TablesError):
    """Root of the refusals of a move or a live match's action."""


class IllegalMove(PlayError):
    """The text is not a move, or not one the rules allow now."""


class NotYourTurn(PlayError):
    """A move from a seat whose turn it is not."""


class StalePly(PlayError):
    """The client's move was for a position that is no longer current."""


class MatchNotLive(PlayError):
    """The match is over (or was abandoned): it takes no more moves."""
