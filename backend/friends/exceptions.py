"""The refusals of friends and private messages."""

from __future__ import annotations

from backend.kit import errors as kind


class FriendsError(kind.DewError):
    """Root of the friends package's errors."""


class InvalidFriends(FriendsError, kind.Invalid, code="invalid_request"):
    """A request or message asked for with a bad value (yourself, empty or too long text)."""


class GuestNotAllowed(FriendsError, kind.Forbidden):
    """A guest has no friends list: friends are between wallets."""


class PlayerNotFound(FriendsError, kind.NotFound):
    """No player of that name or address has signed in here."""


class NotReachable(FriendsError, kind.Forbidden):
    """One of the two blocked the other: no request, message or invitation passes (one
    answer for both directions)."""


class NotFriends(FriendsError, kind.Forbidden):
    """Messages and invitations go to friends only."""


class AlreadyFriends(FriendsError, kind.Conflict):
    """The two are friends already."""


class AlreadyRequested(FriendsError, kind.Conflict):
    """The request was sent already and waits for an answer."""


class FriendNotFound(FriendsError, kind.NotFound):
    """No such request, friendship, block or message of yours."""


class TooManyFriendRequests(FriendsError, kind.TooMany):
    """The wallet sent as many requests, or has as many waiting, as it may for now."""


class TooManyMessages(FriendsError, kind.TooMany):
    """The wallet wrote as many messages as it may for now (per minute and per day)."""
