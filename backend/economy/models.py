"""Seasons, the server's settlement queue, planned settlements, the per-wallet ledger, and
the scholarship mirror.

Amounts are DEW wei as decimal strings (they exceed 64-bit integers; SQLite would turn a
NUMERIC into a float). The ledger has one row per *leg*: what one wallet receives from one
match, as the owner, manager or scholar of an avatar, as a wallet paid directly, or as the
treasury. Legs are predicted when a match is planned (``pending``) and rewritten from the
contract's own split events when the settlement is confirmed (``paid``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    ColumnElement,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    false,
    text,
)
from sqlalchemy.orm import Mapped, mapped_column

from backend.db.base import Base, TimestampMixin, utcnow
from backend.economy.counts import Count


class Season(TimestampMixin, Base):
    """A competition season: a schedule slot with an emission budget."""

    __tablename__ = "economy_seasons"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(64), unique=True)
    starts_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
    ends_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    emission_budget: Mapped[str] = mapped_column(String(80), default="0")
    # Emission committed to planned (not failed) matches; returned shares never count.
    emitted: Mapped[str] = mapped_column(String(80), default="0")


class SettlementStatus:
    NOTHING = "nothing"  # a free table, or nobody earned anything: no transaction
    SUBMITTED = "submitted"  # in the chain outbox
    PAID = "paid"  # MatchSettled confirmed, legs rewritten from the chain's split events
    FAILED = "failed"  # the chain request failed; emission went back to the season


class LegStatus:
    PENDING = "pending"
    PAID = "paid"
    FAILED = "failed"


class PlannedSettlement(Base):
    """One finished match's reward plan and where its payment stands."""

    __tablename__ = "economy_settlements"

    match_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    chain_match_id: Mapped[str] = mapped_column(String(66), unique=True)
    result_hash: Mapped[str] = mapped_column(String(66))
    season_id: Mapped[int | None] = mapped_column(ForeignKey("economy_seasons.id"), index=True)
    economy: Mapped[str] = mapped_column(String(16))
    preset: Mapped[str] = mapped_column(String(64), default="")
    finished_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    stake_pot: Mapped[str] = mapped_column(String(80), default="0")
    emission: Mapped[str] = mapped_column(String(80), default="0")
    fee: Mapped[str] = mapped_column(String(80), default="0")
    returned: Mapped[str] = mapped_column(String(80), default="0")
    paid: Mapped[str] = mapped_column(String(80), default="0")
    status: Mapped[str] = mapped_column(String(16), index=True)
    chain_request_id: Mapped[int | None] = mapped_column(Integer)
    tx_hash: Mapped[str | None] = mapped_column(String(66))
    block_number: Mapped[int | None] = mapped_column(BigInteger)
    failure_reason: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class SeatRecord(Base):
    """Every seat of a planned match: the leaderboard's and the reports' source."""

    __tablename__ = "economy_seat_records"
    __table_args__ = (Index("ix_economy_seat_records_season_address", "season_id", "address"),)

    match_id: Mapped[str] = mapped_column(
        ForeignKey("economy_settlements.match_id"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    season_id: Mapped[int | None] = mapped_column(Integer)
    address: Mapped[str | None] = mapped_column(String(42), index=True)
    avatar_id: Mapped[int | None] = mapped_column(BigInteger, index=True)
    admitted_as: Mapped[str | None] = mapped_column(String(16))
    is_bot: Mapped[bool] = mapped_column(Boolean)
    team: Mapped[int | None] = mapped_column(Integer)
    placement: Mapped[int] = mapped_column(Integer)
    points: Mapped[int] = mapped_column(Integer, default=0)
    won: Mapped[bool] = mapped_column(Boolean, default=False)
    forfeited: Mapped[bool] = mapped_column(Boolean, default=False)
    stake_share: Mapped[str] = mapped_column(String(80), default="0")
    emission_share: Mapped[str] = mapped_column(String(80), default="0")
    amount: Mapped[str] = mapped_column(String(80), default="0")
    # The payout went to the avatar (split on chain) rather than to the wallet.
    to_avatar: Mapped[bool] = mapped_column(Boolean, default=False)
    finished_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    # What the seat counts for besides its player's history (``counts.seat_counts``, a
    # ``Count`` bit set), written when the match is planned.
    counts: Mapped[int] = mapped_column(Integer, default=0, server_default=text("0"))

    @classmethod
    def counted_for(cls, what: Count) -> ColumnElement[bool]:
        """The SQL condition "this seat counts for ``what``", on the stored rule's bits."""
        return cls.counts.op("&", return_type=Integer)(int(what)) == int(what)


class LedgerLeg(Base):
    """What one wallet receives from one match, in one role."""

    __tablename__ = "economy_ledger_legs"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    match_id: Mapped[str] = mapped_column(ForeignKey("economy_settlements.match_id"), index=True)
    seat: Mapped[int | None] = mapped_column(Integer)
    avatar_id: Mapped[int | None] = mapped_column(BigInteger, index=True)
    agreement_id: Mapped[int | None] = mapped_column(BigInteger)
    party: Mapped[str] = mapped_column(String(16))  # owner|manager|scholar|wallet|treasury
    address: Mapped[str] = mapped_column(String(42), index=True)
    amount: Mapped[str] = mapped_column(String(80))
    status: Mapped[str] = mapped_column(String(16), index=True)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    # Paid by the contract's split of an avatar payout (rewritten from ``AvatarPayoutSplit``
    # once paid), not by a payout straight to ``address``.
    via_split: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())


class ScreenedOwner(Base):
    """Mirror of ``OwnerScreened``: who may offer avatars."""

    __tablename__ = "economy_screened_owners"

    address: Mapped[str] = mapped_column(String(42), primary_key=True)
    approved: Mapped[bool] = mapped_column(Boolean)
    screener: Mapped[str] = mapped_column(String(42))
    block_number: Mapped[int] = mapped_column(BigInteger)


class AgreementStatus:
    OFFERED = "offered"
    ACTIVE = "active"
    ENDED = "ended"
    CANCELLED = "cancelled"


class AgreementMirror(Base):
    """Mirror of one ``ScholarshipRegistry`` agreement, built from its events."""

    __tablename__ = "economy_agreements"

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    avatar_id: Mapped[int] = mapped_column(BigInteger, index=True)
    owner: Mapped[str] = mapped_column(String(42), index=True)
    # None while it is an open listing nobody has accepted.
    scholar: Mapped[str | None] = mapped_column(String(42), index=True)
    terms: Mapped[str] = mapped_column(String(24))  # fixed_rent|rewards_division
    duration_s: Mapped[int] = mapped_column(BigInteger)
    rent: Mapped[str] = mapped_column(String(80), default="0")
    owner_bps: Mapped[int] = mapped_column(Integer, default=0)
    manager_bps: Mapped[int] = mapped_column(Integer, default=0)
    manager: Mapped[str | None] = mapped_column(String(42))
    dust_to: Mapped[str] = mapped_column(String(16))
    status: Mapped[str] = mapped_column(String(16), index=True)
    starts_at: Mapped[int | None] = mapped_column(BigInteger)  # unix seconds, chain time
    ends_at: Mapped[int | None] = mapped_column(BigInteger)
    # When it really ended: ends_at when it ran its term, earlier when terminated or reclaimed.
    ended_at: Mapped[int | None] = mapped_column(BigInteger)
    # The offer's last second of validity (chain time).
    valid_until: Mapped[int | None] = mapped_column(BigInteger)
    rent_escrowed: Mapped[str] = mapped_column(String(80), default="0")
    rent_paid: Mapped[str] = mapped_column(String(80), default="0")
    rent_refunded: Mapped[str] = mapped_column(String(80), default="0")
    ended_by: Mapped[str | None] = mapped_column(String(16))  # terminated|expired|reclaimed
    offered_block: Mapped[int] = mapped_column(BigInteger)
    updated_block: Mapped[int] = mapped_column(BigInteger)


class StakeWallet(Base):
    """A wallet's stake balance: DEW it deposited into the vault and has not staked yet.

    The row is the lock: deposits, escrows and releases change ``balance`` under
    ``SELECT .. FOR UPDATE``, so two matches starting together cannot spend it twice."""

    __tablename__ = "economy_stake_wallets"

    address: Mapped[str] = mapped_column(String(42), primary_key=True)
    balance: Mapped[str] = mapped_column(String(80), default="0")


class StakeEntry(Base):
    """History of stake balances: ``deposit`` (a transfer into the vault), ``escrow`` (taken
    at match start), ``release`` (given back: an abandoned match, a cancelled tournament),
    ``withdrawal`` (paid out to the wallet) and ``reversal`` (a failed withdrawal credited back;
    one per withdrawal: both carry the withdrawal's id and seat 0)."""

    __tablename__ = "economy_stake_entries"
    __table_args__ = (
        UniqueConstraint("kind", "match_id", "seat"),
        UniqueConstraint("tx_hash", "log_index"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    address: Mapped[str] = mapped_column(String(42), index=True)
    kind: Mapped[str] = mapped_column(String(16))
    amount: Mapped[str] = mapped_column(String(80))
    match_id: Mapped[str | None] = mapped_column(String(32), index=True)
    seat: Mapped[int | None] = mapped_column(Integer)
    tx_hash: Mapped[str | None] = mapped_column(String(66))
    log_index: Mapped[int | None] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class BurnedMatchId(Base):
    """One of our chain match ids found settled by a transaction we did not sign (a stolen
    settler key can settle ids before we do: the contract then skips ours), and the id the
    settlement was re-issued under. The primary key makes a burned id re-issue once."""

    __tablename__ = "economy_burned_match_ids"

    chain_match_id: Mapped[str] = mapped_column(String(66), primary_key=True)
    match_id: Mapped[str] = mapped_column(ForeignKey("economy_settlements.match_id"), index=True)
    # Our request that carried the id (confirmed with the outcome "already_settled").
    request_id: Mapped[int | None] = mapped_column(Integer)
    # The MatchSettled that used the id up: its transaction, result hash and amount.
    foreign_tx_hash: Mapped[str] = mapped_column(String(66))
    foreign_result_hash: Mapped[str] = mapped_column(String(66))
    foreign_paid: Mapped[str] = mapped_column(String(80))
    foreign_block: Mapped[int] = mapped_column(BigInteger)
    reissued_as: Mapped[str] = mapped_column(String(66), unique=True)
    reissue_request_id: Mapped[int | None] = mapped_column(Integer)
    detected_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class SettlementRequest(TimestampMixin, Base):
    """A finished match queued for settlement planning: the server inserts it, through
    ``backend.economy.settlement.queue_match``, in the same transaction that finishes the match.

    ``idempotency_key`` is the match id (unique): a match can be queued for settlement
    once, however often its end is processed. The economy owns every column after
    ``status``; the server only inserts rows with ``status = "pending"``. ``match_id``
    references the server's ``matches`` table by name (the economy never imports it).
    """

    __tablename__ = "settlement_requests"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    idempotency_key: Mapped[str] = mapped_column(String(64), unique=True)
    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id"), unique=True)
    # bytes32 for MatchSettlement.settle (backend/chain/match_ids.py): sequential for an
    # earning match, the 16-byte match id left-padded for a free one.
    chain_match_id: Mapped[str] = mapped_column(String(66), unique=True)
    table_id: Mapped[str] = mapped_column(String(32))
    preset: Mapped[str] = mapped_column(String(64))
    earning: Mapped[bool] = mapped_column(Boolean)
    stake: Mapped[str] = mapped_column(String(80))
    # 0x + sha256 of the canonical JSON match record (stored in matches.record).
    result_hash: Mapped[str] = mapped_column(String(66))
    # [{"seat", "address", "avatar_id", "is_bot", "team", "placement", "points", "won",
    #   "forfeited", "admitted_as"}]
    seats: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    finished_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    status: Mapped[str] = mapped_column(String(16), default="pending", index=True)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    last_error: Mapped[str | None] = mapped_column(Text)
    updated_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class ScreeningStatus:
    PENDING = "pending"  # waiting on a screener
    APPROVED = "approved"  # the chain's OwnerScreened(owner, true) was seen for it
    REJECTED = "rejected"  # a screener refused it, off chain, with a reason
    WITHDRAWN = "withdrawn"  # approved, then a screener withdrew the owner on chain


class ScreeningApplication(Base):
    """An owner's request to be screened, and how it was decided.

    One open (``pending``) application per wallet is held by a partial unique index, so two
    racing requests cannot both insert one."""

    __tablename__ = "economy_screening_applications"
    __table_args__ = (
        Index(
            "uq_economy_screening_applications_open",
            "applicant",
            unique=True,
            sqlite_where=text("status = 'pending'"),
            postgresql_where=text("status = 'pending'"),
        ),
        UniqueConstraint("tx_hash", "applicant"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    applicant: Mapped[str] = mapped_column(String(42), index=True)
    statement: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(16), index=True)
    reason: Mapped[str | None] = mapped_column(Text)
    decided_by: Mapped[str | None] = mapped_column(String(42))
    # The approval's transaction and block, as the chain reported them.
    tx_hash: Mapped[str | None] = mapped_column(String(66))
    block_number: Mapped[int | None] = mapped_column(BigInteger)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    decided_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class SeasonReward(Base):
    """A season's reward table for its leaderboard's top places, paid once at its end.

    ``places`` are DEW wei per place (place 1 first), reserved from the season's emission
    budget when the table is set; ``planned_at`` is set in the transaction that plans the one
    settlement paying them (``economy_settlements.match_id`` = ``settlement_key``)."""

    __tablename__ = "economy_season_rewards"

    season_id: Mapped[int] = mapped_column(ForeignKey("economy_seasons.id"), primary_key=True)
    places: Mapped[list[str]] = mapped_column(JSON)
    total: Mapped[str] = mapped_column(String(80))
    settlement_key: Mapped[str] = mapped_column(String(32), unique=True)
    planned_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
