"""Errors of the economy package: its root, each error a kind of ``backend.kit.errors``."""

from __future__ import annotations

from backend.kit import errors as kind


class EconomyError(kind.DewError):
    """Root of every error raised by ``backend.economy``."""


class SeasonNotFound(EconomyError, kind.NotFound):
    """No season has the id asked for."""


class AgreementNotFound(EconomyError, kind.NotFound):
    """The agreement id is not (yet) in the mirror of the chain's agreements."""


class ApplicationNotFound(EconomyError, kind.NotFound):
    """No scholarship application has this id, or the wallet has not applied."""


class NotScreener(EconomyError, kind.Forbidden):
    """The wallet does not hold the registry's SCREENER_ROLE."""


class InsufficientBudget(EconomyError, kind.Conflict):
    """A season's reward table asks for more than the season's emission budget left."""


class ApplicationOpen(EconomyError, kind.Conflict):
    """The wallet applies while an application of its own is still open."""


class ApplicationClosed(EconomyError, kind.Conflict):
    """The application was already decided."""


class AlreadyScreened(EconomyError, kind.Conflict):
    """The wallet applies although the chain already records it as screened."""


class NotOnChain(EconomyError, kind.Conflict, code="approval_not_on_chain"):
    """The transaction given does not (yet) show the approval the chain must record."""


class TooManyApplications(EconomyError, kind.TooMany):
    """A wallet applied to be screened more times in a day than allowed."""


# An economy refusal that has no class of its own is one of these.
class EconomyValueError(EconomyError, kind.Invalid, code="invalid_request"): ...


class Conflict(EconomyError, kind.Conflict): ...


class Refused(EconomyError, kind.Refused): ...


class Unavailable(EconomyError, kind.ChainUnavailable, code="chain_unavailable"): ...
