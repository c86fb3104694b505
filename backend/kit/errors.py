"""The kinds of error every package raises, each with the HTTP status the API gives it.

A package declares its root (``TablesError``, ``EconomyError``, ...) and its own errors, each
subclassing the root and one kind below directly; the kind alone decides the status
(``backend.api.errors.STATUS_BY_ERROR``), so a new error needs no new row there. Each carries
a stable ``code`` that clients turn into a sentence: the class name in snake case, unless the
class names another (``code="..."`` in its bases, as the codes predate some names).

    class SeatTaken(TablesError, Conflict):
        '''The seat asked for is held by another wallet.'''

A family whose root already has a kind (a competitions error is a ``Conflict`` unless it says
otherwise) may give a member a second, narrower kind: the API checks the kinds in the order
of ``KINDS``, ``Conflict`` and the bare ``DewError`` last.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

_WORD_START = re.compile(r"(?<!^)(?=[A-Z])")


class DewError(Exception):
    """Root of every error a caller may see: the request was refused and nothing changed."""

    code: ClassVar[str] = "error"
    status: ClassVar[int] = 400
    # What a client may act on besides the code (the error body's ``detail``): a chain refusal
    # names the contract's error, ``{"revert": "AgreementNotIdle"}``.
    detail: dict[str, Any] | None = None

    def __init_subclass__(
        cls, *, code: str | None = None, status: int | None = None, **kwargs: Any
    ) -> None:
        super().__init_subclass__(**kwargs)
        if code is not None:
            cls.code = code
        elif "code" not in cls.__dict__:
            cls.code = _WORD_START.sub("_", cls.__name__).lower()
        if status is not None:
            cls.status = status

    @property
    def message(self) -> str:
        """The sentence for people (logs, the CLI, the error body's ``message``)."""
        return str(self)


class BadRequest(DewError, status=400):
    """Malformed input that no retry fixes (400), even inside a family of another kind."""


class Unauthenticated(DewError, code="not_authenticated", status=401):
    """The request brings no valid sign-in (or a sign-in that is refused)."""


class Forbidden(DewError, status=403):
    """The caller is known but may not do this."""


class NotFound(DewError, LookupError, status=404):
    """What the request names does not exist (or is not the caller's to see)."""


class Invalid(DewError, ValueError, code="invalid_request", status=422):
    """Well-formed but unacceptable input (422)."""


class TooMany(DewError, code="rate_limited", status=429):
    """A per-wallet cap or rate was reached; the caller may try again later."""


class Unavailable(DewError, status=503):
    """Something the request needs (the chain node, the manifest) cannot be reached now."""


class Conflict(DewError, status=409):
    """The request collides with the current state (taken, full, closed, already done)."""


# Two meanings that several packages share, below their kinds: a package mixes them into its
# own root as it does a kind (``class Refused(MarketsError, kind.Refused)``).
class Refused(Conflict):
    """The chain would refuse this call (checked before a wallet is asked to sign it)."""


class ChainUnavailable(Unavailable):
    """The chain node or the deployment manifest cannot be reached; try again later."""


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
