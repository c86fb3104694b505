"""Errors of the accounts aggregate: its root, each error a kind of ``backend.kit.errors``.

Three families share a kind and a prefix of their codes: a refused sign-in (``signin_*``), a
request without a valid access token, and play the wallet may not take part in.
"""

from __future__ import annotations

from backend.kit import errors as kind


class AccountsError(kind.DewError):
    """Root of every accounts error."""


class SignInRefused(AccountsError, kind.Unauthenticated, code="signin_refused"):
    """A sign-in message or signature was not accepted."""


class MalformedSignIn(SignInRefused, kind.BadRequest, code="signin_malformed"):
    """The sign-in is not an EIP-4361 message this server can read, or lacks its expiry."""


# Why a sign-in was refused: the name says it, the code is what a client translates.
class WrongDomain(SignInRefused, code="signin_wrong_domain"): ...


class WrongScheme(SignInRefused, code="signin_wrong_scheme"): ...


class WrongUri(SignInRefused, code="signin_wrong_uri"): ...


class WrongChain(SignInRefused, code="signin_wrong_chain"): ...


class SignInExpired(SignInRefused, code="signin_expired"): ...


class SignInNotYetValid(SignInRefused, code="signin_not_yet_valid"): ...


class SignInTooLong(SignInRefused, code="signin_validity_too_long"):
    """The message claims a validity longer than a nonce's (``DEW_AUTH_NONCE_TTL_S``)."""


class BadSignature(SignInRefused, code="signin_bad_signature"): ...


class UnknownNonce(SignInRefused, code="signin_unknown_nonce"): ...


class NonceReplayed(SignInRefused, code="signin_nonce_replayed"): ...


class NonceExpired(SignInRefused, code="signin_nonce_expired"): ...


class TermsResourceInvalid(MalformedSignIn, code="signin_bad_resource"):
    """A resource in the sign-in message is not one this server's terms name."""


class TermsIncomplete(MalformedSignIn, code="signin_terms_incomplete"):
    """The message accepts the terms without all three parts: the terms resource, the
    legal-age resource and the terms statement."""


class TermsOutdated(SignInRefused, code="signin_terms_outdated"):
    """The message accepts a version of the terms that is no longer the current one."""


class NotAuthenticated(AccountsError, kind.Unauthenticated):
    """A request needs a valid access token and did not bring one."""


class TokenExpired(NotAuthenticated):
    """The access token has expired; the client refreshes it."""


class TokenInvalid(NotAuthenticated):
    """The access token is not one this server issued, or is malformed."""


class SessionRevoked(NotAuthenticated):
    """The token's session has been logged out (or revoked after a refresh token's reuse)."""


class SessionUnknown(NotAuthenticated):
    """The token names a session this server never opened (or not for its wallet)."""


class RefreshRefused(AccountsError, kind.Unauthenticated):
    """The refresh token is unknown or expired: the wallet signs in again."""


class RefreshTokenReused(RefreshRefused):
    """A refresh token was presented twice: treated as theft, the whole session is revoked."""


class PlayRefused(AccountsError, kind.Forbidden):
    """This wallet may not take part in this kind of play (HTTP 403)."""


class TermsRequired(PlayRefused):
    """Earning and staked play need the current terms accepted and legal age confirmed."""


class StakedPlayDisabled(PlayRefused):
    """This deployment does not offer staked tables (DEW_TABLES_STAKED_PLAY=false)."""


class GuestNotAllowed(PlayRefused):
    """A guest (no wallet) plays free only: never earning, staked or ranked play."""


class GuestTokenRefused(AccountsError, kind.BadRequest):
    """A guest token given at sign-in that is not a live guest session's."""


class NameRefused(AccountsError, kind.Invalid, code="name_invalid"):
    """A display name this server does not accept (HTTP 422); the code says why."""


class NameLength(NameRefused, code="name_length"): ...


class NameCharacters(NameRefused, code="name_characters"):
    """A character outside letters, digits, spaces and ``_ - . '``, or hidden characters."""


class NameScripts(NameRefused, code="name_scripts"):
    """Letters of more than one alphabet (the way look-alike names are made)."""


class NameReserved(NameRefused, code="name_reserved"):
    """A name that reads as an address, a bot or a default seat name."""


class NameTaken(AccountsError, kind.Conflict, code="name_taken"):
    """Another wallet or guest shows a name that reads the same (case and look-alikes)."""


class NameChangeTooSoon(AccountsError, kind.TooMany, code="name_change_too_soon"):
    """The name was changed less than the configured interval ago."""
