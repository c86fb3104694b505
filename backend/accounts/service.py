"""Sign-In with Ethereum (EIP-4361): nonces, verification, access and refresh tokens.

Every function that touches the database takes a keyword-only ``session`` and commits
its own unit of work, so routes stay thin and never commit.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import logging
import re
import secrets
import time
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any, cast
from urllib.parse import urlsplit

import jwt
import orjson
import psycopg
from sqlalchemy import CursorResult, Engine, select, update
from sqlalchemy.orm import Session

from backend.accounts import exceptions as exc
from backend.accounts import siwe_message, terms
from backend.accounts.models import Account as WalletAccount
from backend.accounts.models import AuthSession, RefreshToken, SignInNonce, TermsAcceptance
from backend.config import Settings
from backend.db import dialect
from backend.db.base import aware, utcnow
from backend.kit.rows import columns

log = logging.getLogger(__name__)

JWT_ALGORITHM = "HS256"


@dataclass(frozen=True)
class NonceGrant:
    """What a wallet needs to compose its sign-in message."""

    nonce: str
    domain: str
    uri: str
    chain_id: int
    statement: str
    issued_at: datetime
    expires_at: datetime
    # Set when the grant is for accepting the terms (statement and resources to sign).
    resources: tuple[str, ...] = ()


@dataclass(frozen=True)
class TokenPair:
    address: str
    session_id: str
    access_token: str
    access_expires_at: datetime
    refresh_token: str
    refresh_expires_at: datetime
    # The terms version this sign-in accepted (backend/accounts/terms.py), if any.
    terms_version: str | None = None


@dataclass(frozen=True)
class Principal:
    """The signed-in wallet behind an access token."""

    address: str
    session_id: str


def _hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _nonce_mac(settings: Settings, body: str) -> str:
    key = hashlib.sha256(b"dew-signin-nonce/" + settings.auth.jwt_secret.encode()).digest()
    return hmac.new(key, body.encode(), hashlib.sha256).hexdigest()[:20]


def issue_nonce(
    *, settings: Settings, now: datetime | None = None, accept_terms: bool = False
) -> NonceGrant:
    """A fresh nonce and the fields of the message to sign.

    The nonce carries its own expiry and a MAC under the server's secret (16 random hex,
    8 hex of expiry, 20 hex of MAC: alphanumeric, as EIP-4361 requires), so issuing one
    writes nothing; single use is enforced when it is consumed (``signin_nonces``).
    With ``accept_terms`` the message to sign also accepts the current terms and confirms
    legal age (backend/accounts/terms.py).
    """
    statement = settings.auth.statement
    resources: tuple[str, ...] = ()
    if accept_terms:
        current = terms.current(settings)
        if current is None:
            raise exc.TermsResourceInvalid("this server has no terms to accept")
        statement, resources = current.statement, current.resources
    now = now or utcnow()
    expires_at = now + timedelta(seconds=settings.auth.nonce_ttl_s)
    body = secrets.token_hex(8) + f"{int(expires_at.timestamp()):08x}"
    nonce = body + _nonce_mac(settings, body)
    return NonceGrant(
        nonce=nonce,
        domain=settings.auth.domain,
        uri=settings.auth.uri,
        chain_id=settings.chain.chain_id,
        statement=statement,
        issued_at=now,
        expires_at=expires_at,
        resources=resources,
    )


def compose_message(grant: NonceGrant, address: str) -> str:
    """The EIP-4361 text a wallet signs for ``grant`` (clients, tests and the demo use it)."""
    return siwe_message.compose_message(
        **columns(grant, "domain statement uri chain_id nonce issued_at resources"),
        address=address,
        expiration_time=grant.expires_at,
    )


def _parse(message: str) -> siwe_message.SiweFields:
    if not isinstance(message, str) or len(message) > 4096:
        raise exc.MalformedSignIn(
            "the sign-in message must be an EIP-4361 text of at most 4096 chars"
        )
    try:
        # Our own strict parser of the EIP-4361 grammar (backend/accounts/siwe_message.py):
        # the siwe package's pydantic model costs more than the rest of a sign-in.
        return siwe_message.parse_message(message)
    except siwe_message.MessageError as error:
        raise exc.MalformedSignIn(f"not an EIP-4361 sign-in message: {error}") from None


def sign_in(
    *,
    engine: Engine,
    settings: Settings,
    message: str,
    signature: str,
    now: datetime | None = None,
) -> TokenPair:
    """Verify a signed EIP-4361 message, consume its nonce and open a session.

    It takes the engine, not a session: on PostgreSQL its whole write is one autocommit
    statement sent straight through the driver (``_consume_pg``), its own unit of work.
    """
    now = now or utcnow()
    parsed = _parse(message)
    if parsed.domain != settings.auth.domain:
        raise exc.WrongDomain(
            f"message is for domain {parsed.domain!r}, this server is {settings.auth.domain!r}"
        )
    # EIP-4361: a scheme on the domain line must be the server's own (the wallet showed the
    # user that origin); none means the domain alone, which is checked above.
    scheme = urlsplit(settings.auth.uri).scheme.lower()
    if parsed.scheme is not None and parsed.scheme.lower() != scheme:
        raise exc.WrongScheme(
            f"message is for {parsed.scheme}://{parsed.domain}, this server is served over {scheme}"
        )
    if parsed.uri != settings.auth.uri:
        raise exc.WrongUri(f"message is for URI {parsed.uri!r}, expected {settings.auth.uri!r}")
    if parsed.chain_id != settings.chain.chain_id:
        raise exc.WrongChain(
            f"message is for chain id {parsed.chain_id!r}, expected {settings.chain.chain_id}"
        )
    if parsed.expiration_time is None:
        raise exc.MalformedSignIn("the message must state an Expiration Time")
    skew = timedelta(seconds=settings.auth.clock_skew_s)
    if parsed.expiration_time <= now:
        raise exc.SignInExpired(
            f"the message expired at {siwe_message.format_time(parsed.expiration_time)}"
        )
    if parsed.issued_at > now + skew:
        raise exc.SignInNotYetValid(
            f"the message is issued in the future ({siwe_message.format_time(parsed.issued_at)})"
        )
    # A message lives no longer than the nonce it carries: issued within a nonce's lifetime
    # of now, and expiring at most a nonce's lifetime after it was issued.
    window = timedelta(seconds=settings.auth.nonce_ttl_s)
    if parsed.issued_at < now - window - skew:
        raise exc.SignInExpired(
            f"the message was issued at {siwe_message.format_time(parsed.issued_at)}, more "
            f"than {settings.auth.nonce_ttl_s} s ago"
        )
    if parsed.expiration_time - parsed.issued_at > window + skew:
        raise exc.SignInTooLong(
            f"the message is valid until {siwe_message.format_time(parsed.expiration_time)}: "
            f"at most {settings.auth.nonce_ttl_s} s after its Issued At"
        )
    if parsed.not_before is not None and parsed.not_before > now + skew:
        raise exc.SignInNotYetValid(
            f"the message is not valid before {siwe_message.format_time(parsed.not_before)}"
        )
    terms_version = terms.accepted_version(settings, parsed)
    # EIP-191 recovery over the exact text the wallet signed.
    try:
        signer = siwe_message.recover_signer_bytes(message, signature)
    except siwe_message.SignatureError as error:
        raise exc.BadSignature(
            f"the signature is not a valid 65-byte hex signature: {error}"
        ) from None
    # The parser has checked the address's EIP-55 case, so its bytes are the identity.
    if signer != bytes.fromhex(parsed.address[2:]):
        raise exc.BadSignature(f"the signature is not by {parsed.address}")

    nonce = parsed.nonce
    body, mac = nonce[:24], nonce[24:]
    if len(nonce) != 44 or not hmac.compare_digest(mac, _nonce_mac(settings, body)):
        raise exc.UnknownNonce(f"nonce {nonce!r} was not issued by this server")
    nonce_expires = datetime.fromtimestamp(int(body[16:], 16), tz=UTC)
    if nonce_expires <= now:
        raise exc.NonceExpired(f"nonce {nonce!r} expired at {nonce_expires.isoformat()}")
    # Consumed last, so that a refused message leaves its nonce usable; the primary key
    # makes two racing sign-ins with one nonce succeed at most once.
    address = parsed.address
    session_id = secrets.token_hex(16)
    pair = _issue_tokens(settings, address, session_id, now)
    row = {
        "nonce": nonce,
        "now": now,
        "nonce_expires": nonce_expires,
        "address": address,
        "session_id": session_id,
        "token_hash": _hash_token(pair.refresh_token),
        "refresh_expires": pair.refresh_expires_at,
        "terms_version": terms_version,
        "message_hash": terms.message_hash(message),
    }
    if dialect.is_postgresql(engine):
        consumed = _consume_pg(engine, row)
    else:
        with Session(engine) as session:
            consumed = _sign_in_rows(session, row)
            if consumed:
                session.commit()
    if not consumed:
        raise exc.NonceReplayed(f"nonce {nonce!r} has already been used")
    if terms_version is None:
        log.info("signed in %s (session %s)", address, session_id)
        return pair
    log.info("signed in %s (session %s), accepting terms %s", address, session_id, terms_version)
    return replace(pair, terms_version=terms_version)


# Every insert is conditional on the nonce insert succeeding, so the one statement is the
# whole sign-in: run in autocommit it is its own transaction (no BEGIN, no COMMIT round
# trips), and the primary key on the nonce lets two racing sign-ins with it succeed once.
_SIGNIN_PG = """
    WITH used AS (
        INSERT INTO signin_nonces (nonce, created_at, expires_at, used_at)
        VALUES (%(nonce)s, %(now)s, %(nonce_expires)s, %(now)s)
        ON CONFLICT (nonce) DO NOTHING
        RETURNING nonce
    ), account AS (
        INSERT INTO accounts (address, created_at, last_signin_at)
        SELECT %(address)s, %(now)s, %(now)s FROM used
        ON CONFLICT (address) DO UPDATE SET last_signin_at = EXCLUDED.last_signin_at
        RETURNING address
    ), opened AS (
        INSERT INTO auth_sessions (id, address, created_at)
        SELECT %(session_id)s, %(address)s, %(now)s FROM used
        RETURNING id
    ), token AS (
        INSERT INTO refresh_tokens (token_hash, session_id, created_at, expires_at)
        SELECT %(token_hash)s, %(session_id)s, %(now)s, %(refresh_expires)s FROM used
        RETURNING token_hash
    )
    SELECT (SELECT count(*) FROM used) + (SELECT count(*) FROM token) - 1
"""

# The same, also recording the terms the message accepts (fed by the account CTE's RETURNING,
# so the acceptance row is written after the account row its foreign key names).
_SIGNIN_TERMS_PG = _SIGNIN_PG.replace(
    "    SELECT (SELECT count(*) FROM used)",
    """    , accepted AS (
        INSERT INTO terms_acceptances
            (message_hash, address, terms_version, legal_age_confirmed, accepted_at, created_at)
        SELECT %(message_hash)s, address, %(terms_version)s, TRUE, %(now)s, %(now)s FROM account
        RETURNING message_hash
    )
    SELECT (SELECT count(*) FROM accepted) - 1 + (SELECT count(*) FROM used)""",
)


def _consume_pg(engine: Engine, row: dict[str, Any]) -> bool:
    """Run ``_SIGNIN_PG`` on a pooled connection through psycopg itself: SQLAlchemy's
    session and statement machinery cost more CPU than the rest of the write (measured:
    ~700 us against ~290 us per sign-in). True if the nonce was fresh and all is stored."""
    pooled = engine.raw_connection()
    try:
        driver = pooled.driver_connection
        assert isinstance(driver, psycopg.Connection)
        driver.autocommit = True
        try:
            sql = _SIGNIN_PG if row["terms_version"] is None else _SIGNIN_TERMS_PG
            found = driver.execute(sql, row).fetchone()
        finally:
            # Never hand the pool a connection left in autocommit (or a dead one).
            try:
                driver.autocommit = False
            except psycopg.Error:
                pooled.invalidate()
            else:
                if driver.broken:
                    pooled.invalidate()
        return found is not None and found[0] == 1
    finally:
        pooled.close()


def _sign_in_rows(session: Session, row: dict[str, Any]) -> bool:
    """The same writes as ``_SIGNIN_PG``, statement by statement (SQLite)."""
    consumed = session.execute(
        dialect.insert(session, SignInNonce)
        .values(
            nonce=row["nonce"],
            created_at=row["now"],
            expires_at=row["nonce_expires"],
            used_at=row["now"],
        )
        .on_conflict_do_nothing(index_elements=["nonce"])
        .returning(SignInNonce.nonce)
    ).first()
    if consumed is None:
        return False
    _add_session_rows(
        session,
        address=row["address"],
        session_id=row["session_id"],
        token_hash=row["token_hash"],
        refresh_expires=row["refresh_expires"],
        now=row["now"],
    )
    if row["terms_version"] is not None:
        session.add(
            TermsAcceptance(
                message_hash=row["message_hash"],
                address=row["address"],
                terms_version=row["terms_version"],
                legal_age_confirmed=True,
                accepted_at=row["now"],
                created_at=row["now"],
            )
        )
    return True


def _add_session_rows(
    session: Session,
    *,
    address: str,
    session_id: str,
    token_hash: str,
    refresh_expires: datetime,
    now: datetime,
) -> None:
    """The rows of a new signed-in session: its account (if new), the session and its
    refresh token. Not committed: the caller's unit of work does."""
    _ensure_account(session, address, now)
    session.add(AuthSession(id=session_id, address=address, created_at=now))
    session.flush()
    session.add(
        RefreshToken(
            token_hash=token_hash, session_id=session_id, created_at=now, expires_at=refresh_expires
        )
    )


def open_session(*, session: Session, settings: Settings, address: str) -> TokenPair:
    """A new session for ``address`` without a signed message (the guests' door, whose
    addresses no key signs for): its rows and token pair, committed."""
    now = utcnow()
    session_id = secrets.token_hex(16)
    pair = _issue_tokens(settings, address, session_id, now)
    _add_session_rows(
        session,
        address=address,
        session_id=session_id,
        token_hash=_hash_token(pair.refresh_token),
        refresh_expires=pair.refresh_expires_at,
        now=now,
    )
    session.commit()
    return pair


def _ensure_account(session: Session, address: str, now: datetime) -> None:
    """Create the wallet's account or stamp its sign-in, in one race-free statement."""
    insert = dialect.insert(session, WalletAccount)
    session.execute(
        insert.values(address=address, created_at=now, last_signin_at=now).on_conflict_do_update(
            index_elements=["address"], set_={"last_signin_at": now}
        )
    )


def _b64url(data: bytes) -> bytes:
    return base64.urlsafe_b64encode(data).rstrip(b"=")


# What PyJWT writes for HS256 (sorted keys, no spaces).
_JWT_HEAD = _b64url(b'{"alg":"HS256","typ":"JWT"}') + b"."


def encode_access_token(secret: str, claims: dict[str, Any]) -> str:
    """An HS256 JWT, byte for byte what ``jwt.encode(claims, secret, "HS256")`` returns for
    string and integer claims, in a tenth of its time (sign-in's hot path; decoding and
    every check stay with PyJWT)."""
    signing_input = _JWT_HEAD + _b64url(orjson.dumps(claims))
    mac = hmac.digest(secret.encode(), signing_input, "sha256")
    return (signing_input + b"." + _b64url(mac)).decode()


def _issue_tokens(settings: Settings, address: str, session_id: str, now: datetime) -> TokenPair:
    """A signed access token and a fresh refresh token (the caller stores its hash)."""
    access_expires = now + timedelta(seconds=settings.auth.access_token_ttl_s)
    access = encode_access_token(
        settings.auth.jwt_secret,
        {
            "sub": address,
            "sid": session_id,
            "typ": "access",
            "iat": int(now.timestamp()),
            "exp": int(access_expires.timestamp()),
        },
    )
    refresh = secrets.token_urlsafe(32)
    refresh_expires = now + timedelta(seconds=settings.auth.refresh_token_ttl_s)
    return TokenPair(
        address=address,
        session_id=session_id,
        access_token=access,
        access_expires_at=access_expires,
        refresh_token=refresh,
        refresh_expires_at=refresh_expires,
    )


def refresh(*, session: Session, settings: Settings, refresh_token: str) -> TokenPair:
    """Exchange a refresh token for a new pair; the old one can never be used again."""
    now = utcnow()
    token = session.get(RefreshToken, _hash_token(refresh_token))
    if token is None:
        raise exc.RefreshRefused("unknown refresh token")
    auth_session = session.get(AuthSession, token.session_id)
    if auth_session is None or auth_session.revoked_at is not None:
        raise exc.SessionRevoked("this session has been logged out")
    if aware(token.expires_at) <= now:
        raise exc.RefreshRefused("the refresh token has expired; sign in again")
    # An UPDATE's result is a CursorResult (SQLAlchemy types Session.execute more loosely).
    rotated = cast(
        "CursorResult[Any]",
        session.execute(
            update(RefreshToken)
            .where(RefreshToken.token_hash == token.token_hash, RefreshToken.used_at.is_(None))
            .values(used_at=now)
        ),
    ).rowcount
    if rotated != 1:
        # A second use of one refresh token means it leaked: end the whole session.
        auth_session.revoked_at = now
        session.commit()
        raise exc.RefreshTokenReused("refresh token already used; the session is revoked")
    pair = _issue_tokens(settings, auth_session.address, auth_session.id, now)
    session.add(
        RefreshToken(
            token_hash=_hash_token(pair.refresh_token),
            session_id=auth_session.id,
            created_at=now,
            expires_at=pair.refresh_expires_at,
        )
    )
    session.commit()
    return pair


def logout(*, session: Session, session_id: str) -> None:
    """Revoke a session: its access tokens and refresh tokens stop working at once."""
    session.execute(
        update(AuthSession)
        .where(AuthSession.id == session_id, AuthSession.revoked_at.is_(None))
        .values(revoked_at=utcnow())
    )
    session.commit()


_SESSION_ID = re.compile(r"[0-9a-f]{32}")


def decode_access_token(settings: Settings, token: str, now: float | None = None) -> Principal:
    """Check an access token's signature, type, subject and lifetime (no database): the
    subject must be an EIP-55 address, ``iat`` not in the future, and ``exp - iat`` at
    most ``access_token_ttl_s``."""
    try:
        claims = jwt.decode(
            token,
            settings.auth.jwt_secret,
            algorithms=[JWT_ALGORITHM],
            options={"require": ["exp", "iat", "sub", "sid", "typ"], "verify_iat": False},
        )
    except jwt.ExpiredSignatureError:
        raise exc.TokenExpired("the access token has expired; refresh it") from None
    except jwt.PyJWTError as error:
        raise exc.TokenInvalid(f"the access token is not valid: {error}") from None
    if claims["typ"] != "access":
        raise exc.TokenInvalid("not an access token")
    address, session_id = claims["sub"], claims["sid"]
    if not isinstance(address, str) or not siwe_message.is_checksum_address(address):
        raise exc.TokenInvalid("the access token's subject is not an EIP-55 wallet address")
    if not isinstance(session_id, str) or not _SESSION_ID.fullmatch(session_id):
        raise exc.TokenInvalid("the access token's session id is malformed")
    issued, expires = claims["iat"], claims["exp"]
    if not isinstance(issued, int) or not isinstance(expires, int):
        raise exc.TokenInvalid("the access token's iat and exp must be integers")
    now = time.time() if now is None else now
    if issued > now + settings.auth.clock_skew_s:
        raise exc.TokenInvalid("the access token is issued in the future")
    if expires - issued > settings.auth.access_token_ttl_s:
        raise exc.TokenInvalid(
            f"the access token claims a lifetime above {settings.auth.access_token_ttl_s} s"
        )
    return Principal(address=address, session_id=session_id)


def authenticate(*, session: Session, settings: Settings, token: str) -> Principal:
    """An access token's wallet, refused unless its session exists, is the same wallet's
    and has not been logged out. One read: on SQLite give it a read session (no write lock);
    its transaction ends here, before the caller's own work."""
    principal = decode_access_token(settings, token)
    try:
        found = session.execute(
            select(AuthSession.address, AuthSession.revoked_at).where(
                AuthSession.id == principal.session_id
            )
        ).first()
    finally:
        session.rollback()
    if found is None or found.address != principal.address:
        raise exc.SessionUnknown("the access token's session does not exist; sign in again")
    if found.revoked_at is not None:
        raise exc.SessionRevoked("this session has been logged out")
    return principal
