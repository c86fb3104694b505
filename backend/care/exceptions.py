"""The refusals of the gate, of moderation and of a player's own limits."""

from __future__ import annotations

from backend.kit import errors as kind


class CareError(kind.DewError):
    """Root of the care package's errors."""


class InvalidCare(CareError, kind.Invalid, code="invalid_request"):
    """A sanction, limit or break asked for with a bad value."""


class Banned(CareError, kind.Forbidden):
    """A moderator banned the wallet: every door but a withdrawal is closed."""


class Suspended(CareError, kind.Forbidden):
    """A moderator suspended the wallet's play: no seat, queue or tournament entry."""


class Muted(CareError, kind.Forbidden):
    """A moderator muted the wallet's table talk."""


class TimedOut(CareError, kind.Forbidden):
    """The player took a time-out: play, deposits and purchases are closed until it ends."""


class SelfExcluded(CareError, kind.Forbidden):
    """The player excluded itself: staked play, entry fees and deposits are closed."""


class LimitReached(CareError, kind.Conflict):
    """The deposit or stake would pass a limit the player set itself."""


class SanctionNotFound(CareError, kind.NotFound):
    """No such sanction (or not the caller's)."""


class AlreadyAppealed(CareError, kind.Conflict):
    """A sanction is appealed once."""


class NotAppealed(CareError, kind.Conflict):
    """Only an appealed, unanswered sanction can have its appeal answered."""


class AlreadyLifted(CareError, kind.Conflict):
    """The sanction was already lifted or has ended."""


class NotModerator(CareError, kind.Forbidden):
    """The caller is neither the operator nor a moderator the operator granted."""


class AccountClosed(CareError, kind.Forbidden):
    """The player closed this wallet's account: only a withdrawal still passes."""


class WithdrawFirst(CareError, kind.Conflict):
    """An account is closed with nothing left in play: a stake balance, a seat, a queue
    ticket or an escrow is withdrawn, left or played out first."""


class TicketNotFound(CareError, kind.NotFound):
    """No such ticket (or not the caller's)."""


class LinkNotFound(CareError, kind.NotFound):
    """The payout, match, rental or purchase a ticket names is not one of the wallet's (one
    answer for a missing object and someone else's: a ticket reveals nothing)."""


class TicketClosed(CareError, kind.Conflict):
    """A closed ticket takes no more messages."""


class TooManyTickets(CareError, kind.TooMany):
    """The wallet opened as many tickets, or wrote as many messages, as it may for now."""
