"""Errors of the creators package: its root, each error a kind of ``backend.kit.errors``."""

from __future__ import annotations

from backend.kit import errors as kind


class CreatorsError(kind.Conflict):
    """Root of every error raised by ``backend.creators``: a conflict unless it says otherwise."""


class InvalidCode(CreatorsError, kind.Invalid, code="invalid_creator_code"):
    """A code outside the charset or length, or a reserved word; nothing was written."""


class CreatorNotFound(CreatorsError, kind.NotFound):
    """No creator has the code asked for."""


class CodeTaken(CreatorsError, code="creator_code_taken"):
    """Another creator (or a racing registration) holds the code."""


class AlreadyCreator(CreatorsError):
    """One code per wallet."""


class AlreadyBound(CreatorsError):
    """A player binds to one creator, once."""


class BindRefused(CreatorsError, kind.Forbidden):
    """Self-referral, a wallet the server links to the creator, or a binding cycle."""


class BadStatement(CreatorsError, kind.Forbidden, ValueError, code="bad_bind_statement"):
    """The signed statement is unknown, used, expired, someone else's, or badly signed."""


class TooManyStatements(CreatorsError, kind.TooMany):
    """A wallet asked for more open bind statements than allowed at once."""
