"""Errors of the competitions package: its root, each error a kind of ``backend.kit.errors``."""

from __future__ import annotations

from backend.kit import errors as kind


class CompetitionsError(kind.Conflict):
    """Root of every competitions error: a conflict unless the error says otherwise."""


class InvalidTournament(CompetitionsError, kind.Invalid, code="invalid_request"):
    """Bad input; nothing was written."""


class TournamentNotFound(CompetitionsError, kind.NotFound):
    """No tournament has the id asked for."""


class NotEligible(CompetitionsError, kind.Forbidden):
    """An entry rule (qualification, season rank, VIP pass, avatar) refuses the entrant."""


class RegistrationClosed(CompetitionsError):
    """The tournament is not taking entries (or withdrawals) any more."""


class AlreadyRegistered(CompetitionsError):
    """The wallet is already entered in the tournament."""


class NotRegistered(CompetitionsError):
    """The wallet has no entry to withdraw."""


class TournamentFull(CompetitionsError):
    """The tournament has as many entrants as it takes (or fewer places than asked)."""


class InsufficientFunds(CompetitionsError, code="insufficient_stake"):
    """The wallet's stake balance (DEW deposited into the vault) is short of the entry fee."""


class NotCancellable(CompetitionsError):
    """The tournament is past cancelling, or its entry fees could not be released."""


class ContributionRefused(CompetitionsError, kind.Refused):
    """A contribution the chain would refuse or the prizes could not pay: nothing was built."""


class ChainUnavailable(CompetitionsError, kind.Unavailable):
    """The chain node (or its deployment) did not answer; nothing was built."""
