"""Accounts, one-time sign-in nonces, sessions and rotating refresh tokens."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, DateTime, ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column

from backend.db.base import Base, TimestampMixin


class Account(TimestampMixin, Base):
    """A wallet that has signed in at least once; the address is its identity."""

    __tablename__ = "accounts"

    address: Mapped[str] = mapped_column(String(42), primary_key=True)  # EIP-55 checksum
    last_signin_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class SignInNonce(TimestampMixin, Base):
    """A nonce handed out for one sign-in message; ``used_at`` makes it single use."""

    __tablename__ = "signin_nonces"

    nonce: Mapped[str] = mapped_column(String(64), primary_key=True)
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
    used_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class AuthSession(TimestampMixin, Base):
    """One signed-in device; logout or refresh-token reuse revokes it and all its tokens."""

    __tablename__ = "auth_sessions"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    address: Mapped[str] = mapped_column(ForeignKey("accounts.address"), index=True)
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class RefreshToken(TimestampMixin, Base):
    """A refresh token, stored only as its SHA-256; each one can be exchanged once."""

    __tablename__ = "refresh_tokens"

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    session_id: Mapped[str] = mapped_column(ForeignKey("auth_sessions.id"), index=True)
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    used_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class TermsAcceptance(TimestampMixin, Base):
    """A wallet's signed acceptance of one version of the terms, with its confirmation that
    it is of legal age: both stated in the sign-in message whose SHA-256 is kept here (the
    message's nonce is single use, so one message records at most one acceptance)."""

    __tablename__ = "terms_acceptances"

    message_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    address: Mapped[str] = mapped_column(ForeignKey("accounts.address"), index=True)
    terms_version: Mapped[str] = mapped_column(String(32))
    legal_age_confirmed: Mapped[bool] = mapped_column(Boolean)
    accepted_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class DisplayName(TimestampMixin, Base):
    """The name a wallet or guest shows at tables. ``name_key`` is the name folded for
    comparison (case, accents, look-alike letters and separators): its unique index keeps
    two names that read the same apart, whatever the race."""

    __tablename__ = "display_names"

    address: Mapped[str] = mapped_column(ForeignKey("accounts.address"), primary_key=True)
    name: Mapped[str] = mapped_column(String(32))
    name_key: Mapped[str] = mapped_column(String(96), unique=True)
    changed_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
