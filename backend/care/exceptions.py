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
