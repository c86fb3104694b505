"""Errors of the markets package: its root, each error a kind of ``backend.kit.errors``."""

from __future__ import annotations

from backend.kit import errors as kind


class MarketsError(kind.DewError):
    """Root of every error raised by ``backend.markets``."""


class ListingNotFound(MarketsError, kind.NotFound):
    """No shop or market listing has the id asked for."""


class AvatarNotFound(MarketsError, kind.NotFound):
    """No avatar has the id asked for."""


class NotOwner(MarketsError, kind.Forbidden):
    """The signed-in wallet does not own what it wants to list, cancel or dress."""


class StaleListing(MarketsError, kind.Refused, code="listing_stale"):
    """The listing is sold, cancelled, expired, or its seller no longer owns or approved it."""


# A markets refusal that has no class of its own is one of these.
class MarketsValueError(MarketsError, kind.Invalid, code="invalid_request"): ...


class Conflict(MarketsError, kind.Conflict): ...


class Refused(MarketsError, kind.Refused): ...


class Unavailable(MarketsError, kind.ChainUnavailable, code="chain_unavailable"): ...
