"""Creators, the players bound to them, and the single-use statements players sign to bind.

Addresses are EIP-55 strings; the tables reference no other aggregate (a creator is any
wallet that signed in, a player any wallet), so the aggregate migrates on its own branch.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, ForeignKey, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from backend.db.base import Base, utcnow


class Creator(Base):
    """A registered creator code; one per wallet (the unique address)."""

    __tablename__ = "creators"

    code: Mapped[str] = mapped_column(String(16), primary_key=True)  # upper case
    address: Mapped[str] = mapped_column(String(42), unique=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class CreatorBinding(Base):
    """A player bound to a creator: once (the player is the key), for a bounded period."""

    __tablename__ = "creator_bindings"

    player: Mapped[str] = mapped_column(String(42), primary_key=True)
    code: Mapped[str] = mapped_column(ForeignKey("creators.code"), index=True)
    creator: Mapped[str] = mapped_column(String(42), index=True)
    bound_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    # The creator earns from the player's fees until then (FeeSettings.creator_period_days).
    earns_until: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    # The statement's nonce: the signed text is kept with it (creator_statements).
    nonce: Mapped[str] = mapped_column(String(64), unique=True)
    signature: Mapped[str] = mapped_column(String(132))


class BindStatement(Base):
    """The exact text a player is asked to sign to bind to a code; single use, short lived."""

    __tablename__ = "creator_statements"

    nonce: Mapped[str] = mapped_column(String(64), primary_key=True)
    player: Mapped[str] = mapped_column(String(42), index=True)
    code: Mapped[str] = mapped_column(String(16))
    message: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
    used_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
