"""Tables, seats, invitations, matchmaking tickets, matches, their move logs and results.
(The settlement outbox a finished match is queued in is the economy's:
``backend.economy.models.SettlementRequest``.)

A match's move log is the truth: ``(match_id, ply)`` is the primary key, so two server
processes can never both commit a move for the same position, and any process can
rebuild a live match by replaying the log through the engine.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    text,
)
from sqlalchemy.orm import Mapped, mapped_column

from backend.db.base import Base, TimestampMixin, utcnow


class Table(TimestampMixin, Base):
    __tablename__ = "game_tables"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    preset: Mapped[str] = mapped_column(String(64))
    options: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    seat_count: Mapped[int] = mapped_column(Integer)
    # DEW base units as a decimal string: amounts exceed 64-bit integers.
    stake: Mapped[str] = mapped_column(String(80), default="0")
    earning: Mapped[bool] = mapped_column(Boolean, default=False)
    kind: Mapped[str] = mapped_column(String(16), default="human")  # human|practice|ai|matchmade
    visibility: Mapped[str] = mapped_column(String(16), default="public")  # public|private
    invite_code: Mapped[str] = mapped_column(String(32), unique=True)
    creator: Mapped[str | None] = mapped_column(String(42))
    bot_level: Mapped[str] = mapped_column(String(16), default="medium")
    # The level of each seat's bot when bots fill the empty seats (None: ``bot_level``).
    bot_levels: Mapped[list[str] | None] = mapped_column(JSON, nullable=True)
    turn_timeout_s: Mapped[float] = mapped_column(Float)
    spectators_allowed: Mapped[bool] = mapped_column(Boolean, default=True)
    spectator_delay_s: Mapped[float] = mapped_column(Float, default=0.0)
    status: Mapped[str] = mapped_column(String(16), default="open", index=True)
    match_id: Mapped[str | None] = mapped_column(String(32))
    # The Game Center hosting the table (``backend.centers``), None for none. Its fee legs go
    # to the center's payee; its host alone opens tables under it, up to its capacity.
    center_id: Mapped[int | None] = mapped_column(BigInteger, index=True)


class TableSeat(Base):
    __tablename__ = "table_seats"

    table_id: Mapped[str] = mapped_column(ForeignKey("game_tables.id"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    address: Mapped[str | None] = mapped_column(String(42), index=True)
    bot_level: Mapped[str | None] = mapped_column(String(16))
    avatar_id: Mapped[int | None] = mapped_column(BigInteger)
    # Why the wallet was admitted to an earning table: avatar_user|avatar_owner|vip.
    admitted_as: Mapped[str | None] = mapped_column(String(16))
    joined_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class TableInvitation(TimestampMixin, Base):
    __tablename__ = "table_invitations"

    table_id: Mapped[str] = mapped_column(ForeignKey("game_tables.id"), primary_key=True)
    address: Mapped[str] = mapped_column(String(42), primary_key=True)


_WAITING = text("status = 'waiting'")


class MatchmakingTicket(TimestampMixin, Base):
    __tablename__ = "matchmaking_tickets"
    # One waiting ticket per wallet, whatever the race: the database refuses the second.
    __table_args__ = (
        Index(
            "uq_matchmaking_tickets_waiting_address",
            "address",
            unique=True,
            postgresql_where=_WAITING,
            sqlite_where=_WAITING,
        ),
    )

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    address: Mapped[str] = mapped_column(String(42), index=True)
    preset: Mapped[str] = mapped_column(String(64))
    earning: Mapped[bool] = mapped_column(Boolean, default=False)
    # The resolved rule options and the stake (DEW wei, decimal) the ticket waits for: only
    # tickets with the same preset, options, earning flag and stake meet.
    options: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    stake: Mapped[str] = mapped_column(String(80), default="0")
    # The table size it waits for; only tickets of one size meet (null: the preset's usual).
    seat_count: Mapped[int | None] = mapped_column(Integer)
    avatar_id: Mapped[int | None] = mapped_column(BigInteger)
    admitted_as: Mapped[str | None] = mapped_column(String(16))
    status: Mapped[str] = mapped_column(String(16), default="waiting", index=True)
    table_id: Mapped[str | None] = mapped_column(String(32))


class EarningHold(Base):
    """A wallet or an avatar seated at an open or playing earning table.

    ``holder`` is ``wallet:<address>`` or ``avatar:<id>``; as the primary key it lets each sit
    at one earning table at a time, whatever the race. Written with the seat, deleted when
    the seat is left or the table's match ends (finished, abandoned).
    """

    __tablename__ = "earning_holds"

    holder: Mapped[str] = mapped_column(String(64), primary_key=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("game_tables.id"), index=True)
    address: Mapped[str] = mapped_column(String(42))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class Match(TimestampMixin, Base):
    __tablename__ = "matches"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("game_tables.id"), index=True)
    preset: Mapped[str] = mapped_column(String(64))
    options: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    # [{"seat": 0, "address": "0x..", "bot_level": null, "avatar_id": 7}, ...]
    seats: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    # Secret until the match ends; the commitment (sha256 of the seed) is public from the start.
    seed: Mapped[str] = mapped_column(String(64))
    seed_commitment: Mapped[str] = mapped_column(String(64))
    status: Mapped[str] = mapped_column(String(16), default="live", index=True)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    result: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    record: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    result_hash: Mapped[str | None] = mapped_column(String(66))


class MatchMove(Base):
    __tablename__ = "match_moves"

    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id"), primary_key=True)
    ply: Mapped[int] = mapped_column(Integer, primary_key=True)
    seat: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(16), default="move")  # move|forfeit
    move: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    actor: Mapped[str] = mapped_column(String(16), default="player")  # player|bot|timeout
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class MatchResult(Base):
    """One seat's outcome, for player and avatar histories."""

    __tablename__ = "match_results"

    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    address: Mapped[str | None] = mapped_column(String(42), index=True)
    avatar_id: Mapped[int | None] = mapped_column(BigInteger, index=True)
    is_bot: Mapped[bool] = mapped_column(Boolean)
    team: Mapped[int | None] = mapped_column(Integer)
    placement: Mapped[int] = mapped_column(Integer)
    points: Mapped[int] = mapped_column(Integer, default=0)
    won: Mapped[bool] = mapped_column(Boolean)
    forfeited: Mapped[bool] = mapped_column(Boolean, default=False)
    finished_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class ChainMatchSequence(Base):
    """The last sequence number issued under one deployment prefix (``backend.chain.match_ids``).

    Advanced by an upsert inside the transaction that finishes an earning match
    (``store.next_chain_match_id``): the row lock serializes concurrent finishes, so no two
    matches get the same number, and a rolled-back finish gives its number back.
    """

    __tablename__ = "chain_match_sequences"

    # The 8-byte prefix as 16 hex digits (unsigned 64 bits do not fit a signed BIGINT).
    prefix: Mapped[str] = mapped_column(String(16), primary_key=True)
    last: Mapped[int] = mapped_column(BigInteger)
