"""Friendships (a request until it is accepted), blocks and one-to-one messages.

A pair of wallets is stored once, in the order of their lower-case spelling (``low``,
``high``), so that a unique index, not a check-then-insert, keeps one friendship per pair
whatever the race. A message keeps its pair too: a conversation is one index range."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from backend.db.base import Base, TimestampMixin

MESSAGE_MAX_CHARS = 500


class Friendship(TimestampMixin, Base):
    """``requester`` asked; ``status`` is "pending" until the other accepts ("friends")."""

    __tablename__ = "friendships"
    __table_args__ = (
        Index("uq_friendships_low_high", "low", "high", unique=True),
        Index("ix_friendships_high", "high"),
        Index("ix_friendships_requester_created_at", "requester", "created_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    low: Mapped[str] = mapped_column(String(42))
    high: Mapped[str] = mapped_column(String(42))
    requester: Mapped[str] = mapped_column(String(42))
    status: Mapped[str] = mapped_column(String(16))
    accepted_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class FriendBlock(TimestampMixin, Base):
    """``blocker`` blocked ``blocked``: nothing passes between them, either way."""

    __tablename__ = "friend_blocks"
    __table_args__ = (Index("ix_friend_blocks_blocked", "blocked"),)

    blocker: Mapped[str] = mapped_column(String(42), primary_key=True)
    blocked: Mapped[str] = mapped_column(String(42), primary_key=True)


class FriendMessage(TimestampMixin, Base):
    """One message from ``sender`` to ``recipient``; ``body`` is None once the sender closed
    its account (its words are removed)."""

    __tablename__ = "friend_messages"
    __table_args__ = (
        Index("ix_friend_messages_low_high_id", "low", "high", "id"),
        Index("ix_friend_messages_sender_created_at", "sender", "created_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    sender: Mapped[str] = mapped_column(String(42))
    recipient: Mapped[str] = mapped_column(String(42))
    low: Mapped[str] = mapped_column(String(42))
    high: Mapped[str] = mapped_column(String(42))
    body: Mapped[str | None] = mapped_column(String(MESSAGE_MAX_CHARS))
