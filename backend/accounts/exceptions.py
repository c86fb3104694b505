"""Errors of the accounts aggregate; each carries a stable ``code`` for clients."""

from __future__ import annotations

from backend.kit import errors as kind


class AccountsError(kind.DewError):
    """Root of every accounts error."""

    code = "accounts_error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class SignInRefused(AccountsError, kind.Unauthenticated):
    """A sign-in message or signature was not accepted."""

    code = "signin_refused"


class MalformedSignIn(SignInRefused, kind.BadRequest):
    code = "signin_malformed"


class WrongDomain(SignInRefused):
    code = "signin_wrong_domain"


class WrongScheme(SignInRefused):
    code = "signin_wrong_scheme"


class WrongUri(SignInRefused):
    code = "signin_wrong_uri"


class WrongChain(SignInRefused):
    code = "signin_wrong_chain"


class SignInExpired(SignInRefused):
    code = "signin_expired"


class SignInNotYetValid(SignInRefused):
    code = "signin_not_yet_valid"


class SignInTooLong(SignInRefused):
    """The message claims a validity longer than a nonce's (``DEW_AUTH_NONCE_TTL_S``)."""

    code = "signin_validity_too_long"


class BadSignature(SignInRefused):
    code = "signin_bad_signature"


class UnknownNonce(SignInRefused):
    code = "signin_unknown_nonce"


class NonceReplayed(SignInRefused):
    code = "signin_nonce_replayed"


class NonceExpired(SignInRefused):
    code = "signin_nonce_expired"


class NotAuthenticated(AccountsError, kind.Unauthenticated):
    """A request needs a valid access token and did not bring one."""

    code = "not_authenticated"


class TokenExpired(NotAuthenticated):
    code = "token_expired"


class TokenInvalid(NotAuthenticated):
    code = "token_invalid"


class SessionRevoked(NotAuthenticated):
    code = "session_revoked"


class SessionUnknown(NotAuthenticated):
    """The token names a session this server never opened (or not for its wallet)."""

    code = "session_unknown"


class RefreshRefused(AccountsError, kind.Unauthenticated):
    code = "refresh_refused"


class RefreshTokenReused(RefreshRefused):
    """A refresh token was presented twice: treated as theft, the whole session is revoked."""

    code = "refresh_token_reused"


class TermsResourceInvalid(MalformedSignIn):
    """A resource in the sign-in message is not one this server's terms name."""

    code = "signin_bad_resource"


class TermsIncomplete(MalformedSignIn):
    """The message accepts the terms without all three parts: the terms resource, the
    legal-age resource and the terms statement."""

    code = "signin_terms_incomplete"


class TermsOutdated(SignInRefused):
    """The message accepts a version of the terms that is no longer the current one."""

    code = "signin_terms_outdated"


class PlayRefused(AccountsError, kind.Forbidden):
    """This wallet may not take part in this kind of play (HTTP 403)."""

    code = "play_refused"


class TermsRequired(PlayRefused):
    """Earning and staked play need the current terms accepted and legal age confirmed."""

    code = "terms_required"


class StakedPlayDisabled(PlayRefused):
    """This deployment does not offer staked tables (DEW_TABLES_STAKED_PLAY=false)."""

    code = "staked_play_disabled"


class GuestNotAllowed(PlayRefused):
    """A guest (no wallet) plays free only: never earning, staked or ranked play."""

    code = "guest_not_allowed"


class GuestTokenRefused(AccountsError, kind.BadRequest):
    """A guest token given at sign-in that is not a live guest session's."""

    code = "guest_token_refused"
