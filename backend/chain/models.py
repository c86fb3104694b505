"""Outbox requests, the operator wallets that send them, and every transaction we signed.

A request (a match settlement, a batch of avatar mints, a VIP pass issued or revoked)
is written in the caller's database transaction under a unique idempotency key. The sender packs
queued requests into one transaction at one nonce: the *slot* ``(wallet, nonce)``.
Every transaction we ever sign for a slot (the first one, fee-bumped
replacements, a filler that cancels it) carries the same requests, so at most
one of them can be mined and a request is never carried by two nonces at once.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from backend.db.base import Base, utcnow


class RequestKind(StrEnum):
    SETTLE = "settle"  # one match: MatchSettlement.settle entry with its payouts
    MINT = "mint"  # a list of avatar recipients: AvatarNFT.mintBatch
    VIP_ISSUE = "vip_issue"  # one holder and expiry: VIPPass.issue, one per transaction
    VIP_REVOKE = "vip_revoke"  # one holder: VIPPass.revoke, one per transaction
    SHOP_LIST = "shop_list"  # the operator lists an item type: Shop.list, one per transaction
    SHOP_SET = "shop_set"  # a shop listing's price or open flag: Shop.setListing
    ACCESSORY_TYPE = "accessory_type"  # Accessories.defineType, one per transaction
    # Game Centers: GameCenter.mintCenter, one center per transaction.
    CENTER_MINT = "center_mint"


# The shop's operator calls (backend.markets.operator): one request per transaction.
SHOP_KINDS = frozenset({RequestKind.SHOP_LIST, RequestKind.SHOP_SET, RequestKind.ACCESSORY_TYPE})
# Kinds whose contract call takes one request: the sender never packs two in a transaction.
SINGLE_KINDS = (
    frozenset({RequestKind.VIP_ISSUE, RequestKind.VIP_REVOKE, RequestKind.CENTER_MINT}) | SHOP_KINDS
)


class RequestStatus(StrEnum):
    QUEUED = "queued"  # waiting for a slot
    SUBMITTED = "submitted"  # carried by the transactions of one slot (see ChainTx.status)
    CONFIRMED = "confirmed"  # its transaction is final at the confirmation depth
    FAILED = "failed"  # final, with failure_reason; never sent again
    # Held back by the vault (MatchSettlement's outflow limit, per-match maximum or pause),
    # with the reason in failure_reason; not failed: it is tried again every
    # ``limit_retry_s`` and paid once the limit resets, the admin raises it or unpauses.
    WAITING = "waiting"


class TxKind(StrEnum):
    SETTLE = "settle"
    MINT = "mint"
    VIP_ISSUE = "vip_issue"
    VIP_REVOKE = "vip_revoke"
    SHOP_LIST = "shop_list"
    SHOP_SET = "shop_set"
    ACCESSORY_TYPE = "accessory_type"
    CENTER_MINT = "center_mint"
    FILLER = "filler"  # a zero-value self-transfer that consumes a nonce (gap fill, cancel)


class TxStatus(StrEnum):
    SIGNED = "signed"  # raw bytes stored; broadcast not yet acknowledged
    SENT = "sent"  # the node accepted it (or already knew it)
    MINED = "mined"  # a receipt exists, not yet at the confirmation depth
    CONFIRMED = "confirmed"  # receipt at the confirmation depth; effects applied
    FAILED = "failed"  # final: reverted, or its nonce was consumed by another tx
    REPLACED = "replaced"  # another tx of ours at the same nonce superseded it


OPEN_TX_STATUSES = (TxStatus.SIGNED, TxStatus.SENT, TxStatus.MINED, TxStatus.REPLACED)


class ChainWallet(Base):
    """An operator hot wallet on one chain; its row is the nonce lock."""

    __tablename__ = "chain_wallets"
    __table_args__ = (UniqueConstraint("chain_id", "address"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    chain_id: Mapped[int] = mapped_column(BigInteger)
    address: Mapped[str] = mapped_column(String(42))
    # The nonce the next new slot gets. Only ever read and advanced under the row lock.
    next_nonce: Mapped[int] = mapped_column(BigInteger, default=0)
    # Efficiency only (one pump loop per wallet at a time); correctness never relies on it.
    lease_owner: Mapped[str | None] = mapped_column(String(100), default=None)
    lease_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)


class ChainRequest(Base):
    """One outbox entry: what the business asked the chain to do."""

    __tablename__ = "chain_requests"
    __table_args__ = (
        Index("ix_chain_requests_status_id", "status", "id"),
        Index("ix_chain_requests_slot", "wallet_id", "nonce"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    idempotency_key: Mapped[str] = mapped_column(String(200), unique=True)
    kind: Mapped[str] = mapped_column(String(16))
    chain_id: Mapped[int] = mapped_column(BigInteger)
    payload: Mapped[dict[str, Any]] = mapped_column(JSON)
    payload_digest: Mapped[str] = mapped_column(String(64))
    status: Mapped[str] = mapped_column(String(16), default=RequestStatus.QUEUED)
    failure_reason: Mapped[str | None] = mapped_column(Text, default=None)
    # The slot carrying it while submitted (and the one that confirmed it afterwards).
    wallet_id: Mapped[int | None] = mapped_column(ForeignKey("chain_wallets.id"), default=None)
    nonce: Mapped[int | None] = mapped_column(BigInteger, default=None)
    position: Mapped[int | None] = mapped_column(Integer, default=None)
    # Times it was put back in the queue after a confirmed revert of a packed batch.
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    # After a batch reverted, each of its requests is sent alone to find the culprit.
    alone: Mapped[bool] = mapped_column(default=False)
    result: Mapped[dict[str, Any] | None] = mapped_column(JSON, default=None)
    tx_hash: Mapped[str | None] = mapped_column(String(66), default=None)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    submitted_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    confirmed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    failed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)


class ChainTx(Base):
    """A transaction we signed. The raw bytes are stored before the first broadcast."""

    __tablename__ = "chain_txs"
    __table_args__ = (
        Index("ix_chain_txs_wallet_nonce", "wallet_id", "nonce"),
        Index("ix_chain_txs_status", "status"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    wallet_id: Mapped[int] = mapped_column(ForeignKey("chain_wallets.id"))
    nonce: Mapped[int] = mapped_column(BigInteger)
    kind: Mapped[str] = mapped_column(String(16))
    status: Mapped[str] = mapped_column(String(16), default=TxStatus.SIGNED)
    tx_hash: Mapped[str] = mapped_column(String(66), unique=True)
    raw: Mapped[bytes] = mapped_column(LargeBinary)
    to_address: Mapped[str] = mapped_column(String(42))
    gas_limit: Mapped[int] = mapped_column(BigInteger)
    max_fee_per_gas: Mapped[int] = mapped_column(BigInteger)
    max_priority_fee_per_gas: Mapped[int] = mapped_column(BigInteger)
    replaces_id: Mapped[int | None] = mapped_column(ForeignKey("chain_txs.id"), default=None)
    request_count: Mapped[int] = mapped_column(Integer, default=0)
    block_number: Mapped[int | None] = mapped_column(BigInteger, default=None)
    block_hash: Mapped[str | None] = mapped_column(String(66), default=None)
    receipt_status: Mapped[int | None] = mapped_column(Integer, default=None)
    gas_used: Mapped[int | None] = mapped_column(BigInteger, default=None)
    failure_reason: Mapped[str | None] = mapped_column(Text, default=None)
    broadcasts: Mapped[int] = mapped_column(Integer, default=0)
    reorgs: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    signed_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    sent_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    last_broadcast_at: Mapped[datetime | None] = mapped_column(
        DateTime(timezone=True), default=None
    )
    mined_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    confirmed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    failed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    replaced_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)


class ChainTxEvent(Base):
    """Append-only history of every state change of a transaction (API, metrics, audits)."""

    __tablename__ = "chain_tx_events"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    tx_id: Mapped[int] = mapped_column(ForeignKey("chain_txs.id"), index=True)
    status: Mapped[str] = mapped_column(String(16))
    detail: Mapped[str | None] = mapped_column(Text, default=None)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
