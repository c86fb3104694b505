"""Tournaments, their entrants and their games (one per pairing of a round).

A game's match is a normal server match (``matches`` / ``game_tables``); the game row only
says which entrants it pairs and, once the match is over, who won. Entry fees are stake
escrow entries (``economy_stake_entries``) keyed by :func:`escrow_key`; prizes are one
planned settlement under the same key (``economy_settlements``).
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
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from backend.db.base import Base, TimestampMixin, utcnow

TIERS = ("campeonato", "campeonisimo", "supercampeones")
FORMATS = ("swiss", "elimination")


class TournamentStatus:
    REGISTERING = "registering"
    RUNNING = "running"
    FINISHED = "finished"  # standings final, prizes planned into the settlement outbox
    CANCELLED = "cancelled"  # every entry fee back in its wallet's stake balance


class GameStatus:
    LIVE = "live"
    FINISHED = "finished"
    BYE = "bye"


def escrow_key(tournament_id: int) -> str:
    """The stake-escrow and settlement key of a tournament (fits the 32-character match id)."""
    return f"tournament-{tournament_id:020d}"


class Tournament(TimestampMixin, Base):
    __tablename__ = "competitions_tournaments"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(64), unique=True)
    tier: Mapped[str] = mapped_column(String(16))
    format: Mapped[str] = mapped_column(String(16))
    preset: Mapped[str] = mapped_column(String(64))
    options: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    season_id: Mapped[int | None] = mapped_column(ForeignKey("economy_seasons.id"))
    # DEW wei as decimal strings.
    entry_fee: Mapped[str] = mapped_column(String(80), default="0")
    added_prize: Mapped[str] = mapped_column(String(80), default="0")
    fee_bps: Mapped[int] = mapped_column(Integer, default=0)
    prize_bps: Mapped[list[int]] = mapped_column(JSON)
    qualify_top: Mapped[int] = mapped_column(Integer, default=0)
    # Entry rules.
    qualifier_of: Mapped[int | None] = mapped_column(ForeignKey("competitions_tournaments.id"))
    max_rank: Mapped[int | None] = mapped_column(Integer)
    requires_vip: Mapped[bool] = mapped_column(Boolean, default=False)
    requires_avatar: Mapped[bool] = mapped_column(Boolean, default=False)
    min_entrants: Mapped[int] = mapped_column(Integer, default=2)
    max_entrants: Mapped[int] = mapped_column(Integer, default=64)
    # Schedule: registration closes, round 1 starts; round k no earlier than
    # starts_at + (k - 1) * round_every_s, and never before round k - 1 is over.
    starts_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    round_every_s: Mapped[float] = mapped_column(Float, default=0.0)
    turn_timeout_s: Mapped[float] = mapped_column(Float)
    bot_level: Mapped[str] = mapped_column(String(16), default="medium")
    status: Mapped[str] = mapped_column(String(16), default="registering", index=True)
    rounds_total: Mapped[int] = mapped_column(Integer, default=0)
    current_round: Mapped[int] = mapped_column(Integer, default=0)
    # Bumped on every change a WebSocket watcher should hear about.
    version: Mapped[int] = mapped_column(Integer, default=0)
    created_by: Mapped[str | None] = mapped_column(String(42))
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    cancel_reason: Mapped[str | None] = mapped_column(Text)
    # The Game Center the Campeonato is run at (``backend.centers``), None for none.
    center_id: Mapped[int | None] = mapped_column(BigInteger, index=True)


class Entrant(Base):
    __tablename__ = "competitions_entrants"
    __table_args__ = (UniqueConstraint("tournament_id", "address"),)

    tournament_id: Mapped[int] = mapped_column(
        ForeignKey("competitions_tournaments.id"), primary_key=True
    )
    number: Mapped[int] = mapped_column(Integer, primary_key=True)  # registration order, 1..n
    address: Mapped[str | None] = mapped_column(String(42), index=True)  # None: a bot
    bot_level: Mapped[str | None] = mapped_column(String(16))
    avatar_id: Mapped[int | None] = mapped_column(BigInteger)
    admitted_as: Mapped[str | None] = mapped_column(String(16))
    fee_paid: Mapped[str] = mapped_column(String(80), default="0")
    seed: Mapped[int | None] = mapped_column(Integer)
    place: Mapped[int | None] = mapped_column(Integer)
    score: Mapped[int] = mapped_column(Integer, default=0)
    prize: Mapped[str] = mapped_column(String(80), default="0")
    qualified: Mapped[bool] = mapped_column(Boolean, default=False)
    registered_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class Game(Base):
    __tablename__ = "competitions_games"

    tournament_id: Mapped[int] = mapped_column(
        ForeignKey("competitions_tournaments.id"), primary_key=True
    )
    round: Mapped[int] = mapped_column(Integer, primary_key=True)
    board: Mapped[int] = mapped_column(Integer, primary_key=True)  # bracket order
    a: Mapped[int] = mapped_column(Integer)
    b: Mapped[int | None] = mapped_column(Integer)  # None: a bye
    table_id: Mapped[str | None] = mapped_column(ForeignKey("game_tables.id"))
    match_id: Mapped[str | None] = mapped_column(ForeignKey("matches.id"), index=True)
    status: Mapped[str] = mapped_column(String(16), default="live", index=True)
    winner: Mapped[int | None] = mapped_column(Integer)  # None when finished: a draw
    outcome: Mapped[str | None] = mapped_column(String(16))  # won|draw|abandoned|bye
