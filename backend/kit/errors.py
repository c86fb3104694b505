"""The kinds of error every package raises, each with the HTTP status the API gives it.

A package's errors subclass its own root (``TablesError``, ``EconomyError``, ...) and one kind
below; the kind alone decides the status (``backend.api.errors.STATUS_BY_ERROR``), so a new
error needs no new row there. Each carries a stable ``code`` that clients turn into a sentence.

    class SeatTaken(TablesError, Conflict):
        code = "seat_taken"

A family whose root already has a kind (a competitions error is a ``Conflict`` unless it says
otherwise) may give a member a second, narrower kind: the API checks the kinds in the order
of ``KINDS``, ``Conflict`` and the bare ``DewError`` last.
"""

from __future__ import annotations


class DewError(Exception):
    """Root of every error a caller may see: the request was refused and nothing changed."""

    code = "error"
    status = 400


class BadRequest(DewError):
    """Malformed input that no retry fixes (400), even inside a family of another kind."""

    code = "bad_request"
    status = 400


class Unauthenticated(DewError):
    code = "not_authenticated"
    status = 401


class Forbidden(DewError):
    code = "forbidden"
    status = 403


class NotFound(DewError, LookupError):
    code = "not_found"
    status = 404


class Invalid(DewError, ValueError):
    """Well-formed but unacceptable input (422)."""

    code = "invalid_request"
    status = 422


class TooMany(DewError):
    """A per-wallet cap or rate was reached; the caller may try again later."""

    code = "rate_limited"
    status = 429


class Unavailable(DewError):
    """Something the request needs (the chain node, the manifest) cannot be reached now."""

    code = "unavailable"
    status = 503


class Conflict(DewError):
    """The request collides with the current state (taken, full, closed, already done)."""

    code = "conflict"
    status = 409


# The order the API checks them in: narrow kinds first, Conflict and the bare root last.
KINDS: tuple[type[DewError], ...] = (
    BadRequest,
    Unauthenticated,
    Forbidden,
    NotFound,
    Invalid,
    TooMany,
    Unavailable,
    Conflict,
    DewError,
)
