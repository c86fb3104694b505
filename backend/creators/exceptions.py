"""Errors of the creators package: one root, each with a stable ``code`` for the API edge."""

from __future__ import annotations

from backend.kit import errors as kind


class CreatorsError(kind.Conflict):
    code = "creators_error"


class InvalidCode(CreatorsError, kind.Invalid):
    """A code outside the charset or length, or a reserved word; nothing was written."""

    code = "invalid_creator_code"


class CodeTaken(CreatorsError):
    code = "creator_code_taken"


class AlreadyCreator(CreatorsError):
    """One code per wallet."""

    code = "already_creator"


class CreatorNotFound(CreatorsError, kind.NotFound):
    code = "creator_not_found"


class AlreadyBound(CreatorsError):
    """A player binds to one creator, once."""

    code = "already_bound"


class BindRefused(CreatorsError, kind.Forbidden):
    """Self-referral, a wallet the server links to the creator, or a binding cycle."""

    code = "bind_refused"


class BadStatement(CreatorsError, kind.Forbidden, ValueError):
    """The signed statement is unknown, used, expired, someone else's, or badly signed."""

    code = "bad_bind_statement"


class TooManyStatements(CreatorsError, kind.TooMany):
    """A wallet asked for more open bind statements than allowed at once."""

    code = "too_many_statements"
