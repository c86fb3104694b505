"""Errors of the economy package: one root, each with a stable ``code`` for the API edge."""

from __future__ import annotations

from backend.kit import errors as kind


class EconomyError(kind.DewError):
    """Root of every error raised by ``backend.economy``."""

    code = "economy_error"


class EconomyValueError(EconomyError, kind.Invalid):
    """Bad input; nothing was written."""

    code = "invalid_request"


class NotFound(EconomyError, kind.NotFound):
    code = "not_found"


class SeasonNotFound(NotFound):
    code = "season_not_found"


class AgreementNotFound(NotFound):
    code = "agreement_not_found"


class Refused(EconomyError, kind.Conflict):
    """The chain would refuse this call (checked before a wallet is asked to sign it)."""

    code = "refused"


class Conflict(EconomyError, kind.Conflict):
    code = "conflict"


class InsufficientBudget(Conflict):
    code = "insufficient_budget"


class Unavailable(EconomyError, kind.Unavailable):
    """The chain node or the deployment manifest cannot be reached; try again later."""

    code = "chain_unavailable"


class ApplicationNotFound(NotFound):
    code = "application_not_found"


class NotScreener(EconomyError, kind.Forbidden):
    """The wallet does not hold the registry's SCREENER_ROLE."""

    code = "not_screener"


class ApplicationOpen(Conflict):
    code = "application_open"


class ApplicationClosed(Conflict):
    """The application was already decided."""

    code = "application_closed"


class AlreadyScreened(Conflict):
    code = "already_screened"


class TooManyApplications(EconomyError, kind.TooMany):
    code = "too_many_applications"


class NotOnChain(Conflict):
    """The transaction given does not (yet) show the approval the chain must record."""

    code = "approval_not_on_chain"
