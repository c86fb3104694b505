"""Errors of the markets package: one root, each with a stable ``code`` for the API edge."""

from __future__ import annotations

from backend.kit import errors as kind


class MarketsError(kind.DewError):
    """Root of every error raised by ``backend.markets``."""

    code = "markets_error"


class MarketsValueError(MarketsError, kind.Invalid):
    """Bad input; nothing was written."""

    code = "invalid_request"


class NotFound(MarketsError, kind.NotFound):
    code = "not_found"


class ListingNotFound(NotFound):
    code = "listing_not_found"


class AvatarNotFound(NotFound):
    code = "avatar_not_found"


class NotOwner(MarketsError, kind.Forbidden):
    """The signed-in wallet does not own what it wants to list, cancel or dress."""

    code = "not_owner"


class Refused(MarketsError, kind.Conflict):
    """The chain would refuse this call (checked before a wallet is asked to sign it)."""

    code = "refused"


class StaleListing(Refused):
    """The listing is sold, cancelled, expired, or its seller no longer owns or approved it."""

    code = "listing_stale"


class Conflict(MarketsError, kind.Conflict):
    code = "conflict"


class Unavailable(MarketsError, kind.Unavailable):
    """The chain node or the deployment cannot be reached; try again later."""

    code = "chain_unavailable"
