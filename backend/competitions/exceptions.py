"""Errors of the competitions package: one root, each with a stable ``code`` for the API edge."""

from __future__ import annotations

from backend.kit import errors as kind


class CompetitionsError(kind.Conflict):
    code = "competitions_error"


class InvalidTournament(CompetitionsError, kind.Invalid):
    """Bad input; nothing was written."""

    code = "invalid_request"


class TournamentNotFound(CompetitionsError, kind.NotFound):
    code = "tournament_not_found"


class NotEligible(CompetitionsError, kind.Forbidden):
    """An entry rule (qualification, season rank, VIP pass, avatar) refuses the entrant."""

    code = "not_eligible"


class RegistrationClosed(CompetitionsError):
    code = "registration_closed"


class AlreadyRegistered(CompetitionsError):
    code = "already_registered"


class NotRegistered(CompetitionsError):
    """The wallet has no entry to withdraw."""

    code = "not_registered"


class TournamentFull(CompetitionsError):
    code = "tournament_full"


class InsufficientFunds(CompetitionsError):
    """The wallet's stake balance (DEW deposited into the vault) is short of the entry fee."""

    code = "insufficient_stake"


class NotCancellable(CompetitionsError):
    code = "not_cancellable"
