"""The operator wallet's nonces: its row, its pump lease, its open slots and the chain's view.

A *slot* is one nonce of the wallet with every transaction signed at it (the first one
and its fee replacements or filler). The wallet row (``chain_wallets``) holds the next
nonce we will sign at; it is read and advanced only under the row's exclusive lock
(``Wallet.lock``), so two senders can never sign different calls at one nonce. The lease
keeps one pump per wallet for efficiency only; correctness never depends on it.
"""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import ColumnElement, CursorResult, and_, func, select, update
from sqlalchemy.orm import Session, aliased, sessionmaker

from backend.chain.exceptions import RpcError
from backend.chain.models import (
    OPEN_TX_STATUSES,
    ChainRequest,
    ChainTx,
    ChainTxEvent,
    ChainWallet,
    RequestStatus,
    TxStatus,
)
from backend.chain.rpc import Rpc
from backend.db import dialect
from backend.db.base import utcnow

DEFAULT_BLOCK_GAS_LIMIT = 30_000_000


@dataclass
class ChainView:
    """What the node says at ``latest``: one batch read at the start of every pump round."""

    head: int
    nonce: int  # the wallet's transaction count at ``latest``
    base_fee: int
    gas_limit: int = DEFAULT_BLOCK_GAS_LIMIT  # of the latest block: no tx of ours may need more


def _ok(reply: Any | RpcError) -> Any:
    """A batch reply's JSON result (quantities are 0x-hex strings), or its error raised."""
    if isinstance(reply, RpcError):
        raise reply
    return reply


def read_view(rpc: Rpc, address: str) -> ChainView:
    """The head, the wallet's mined nonce and the latest block's base fee and gas limit."""
    head_hex, nonce_hex, block = (
        _ok(reply)
        for reply in rpc.batch(
            [
                ("eth_blockNumber", []),
                ("eth_getTransactionCount", [address, "latest"]),
                ("eth_getBlockByNumber", ["latest", False]),
            ]
        )
    )
    return ChainView(
        head=int(head_hex, 16),
        nonce=int(nonce_hex, 16),
        base_fee=int(block.get("baseFeePerGas") or "0x0", 16),
        gas_limit=int(block.get("gasLimit") or hex(DEFAULT_BLOCK_GAS_LIMIT), 16),
    )


def set_status(session: Session, tx: ChainTx, status: TxStatus, detail: str | None = None) -> None:
    """Move ``tx`` to ``status``, stamp the time, and append the event to its history."""
    now = utcnow()
    tx.status = status
    tx.updated_at = now
    stamp = {
        TxStatus.SENT: "sent_at",
        TxStatus.MINED: "mined_at",
        TxStatus.CONFIRMED: "confirmed_at",
        TxStatus.FAILED: "failed_at",
        TxStatus.REPLACED: "replaced_at",
    }.get(status)
    if stamp is not None:
        setattr(tx, stamp, now)
    if detail is not None and status == TxStatus.FAILED:
        tx.failure_reason = detail
    session.add(ChainTxEvent(tx_id=tx.id, status=status, detail=detail, at=now))


def requeue(request: ChainRequest, now: datetime, *, alone: bool) -> None:
    """Free a request from its slot: it goes back to the queue for any later nonce."""
    request.status = RequestStatus.QUEUED
    request.wallet_id = None
    request.nonce = None
    request.position = None
    request.tx_hash = None
    request.alone = alone
    request.updated_at = now


@dataclass(eq=False, kw_only=True)
class Wallet:
    """The ``chain_wallets`` row of one (chain, address): nonce lock, lease and open slots."""

    sessions: sessionmaker[Session]
    chain_id: int
    address: str
    lease_s: float
    owner: str
    id: int = field(init=False)

    def __post_init__(self) -> None:
        self.id = self._ensure()

    @staticmethod
    def owner_name(instance: object) -> str:
        """A lease owner unique to this process and object: host, pid and object id."""
        return f"{socket.gethostname()}:{os.getpid()}:{id(instance):x}"

    def _ensure(self) -> int:
        with self.sessions.begin() as session:
            session.execute(
                dialect.insert(session, ChainWallet)
                .values(chain_id=self.chain_id, address=self.address, next_nonce=0)
                .on_conflict_do_nothing(index_elements=["chain_id", "address"])
            )
            return session.scalars(
                select(ChainWallet.id).where(
                    ChainWallet.chain_id == self.chain_id, ChainWallet.address == self.address
                )
            ).one()

    def lock(self, session: Session) -> ChainWallet:
        """The wallet row under an exclusive lock until ``session`` commits."""
        stmt = dialect.for_update(session, select(ChainWallet).where(ChainWallet.id == self.id))
        # On SQLite the engine's BEGIN IMMEDIATE already holds the database write lock.
        return session.scalars(stmt.execution_options(populate_existing=True)).one()

    def next_nonce(self) -> int:
        """The nonce the next new call would be signed at (without the lock: a hint)."""
        with self.sessions() as session:
            wallet = session.get(ChainWallet, self.id)
            assert wallet is not None  # created in __init__ and never deleted
            return wallet.next_nonce

    def acquire_lease(self) -> bool:
        now = utcnow()
        with self.sessions.begin() as session:
            result = session.execute(
                update(ChainWallet)
                .where(
                    ChainWallet.id == self.id,
                    (ChainWallet.lease_until.is_(None))
                    | (ChainWallet.lease_until < now)
                    | (ChainWallet.lease_owner == self.owner),
                )
                .values(lease_owner=self.owner, lease_until=now + timedelta(seconds=self.lease_s))
            )
            assert isinstance(result, CursorResult)  # an UPDATE returns a cursor result
            return result.rowcount == 1

    def release_lease(self) -> None:
        with self.sessions.begin() as session:
            session.execute(
                update(ChainWallet)
                .where(ChainWallet.id == self.id, ChainWallet.lease_owner == self.owner)
                .values(lease_owner=None, lease_until=None)
            )

    def open_tx(self) -> ColumnElement[bool]:
        """Our txs whose nonce is not yet settled: no tx of that slot is final on chain."""
        final = aliased(ChainTx)
        settled = (
            select(final.id)
            .where(
                final.wallet_id == ChainTx.wallet_id,
                final.nonce == ChainTx.nonce,
                final.status.in_((TxStatus.CONFIRMED, TxStatus.FAILED)),
                final.block_number.is_not(None),
            )
            .exists()
        )
        return and_(ChainTx.wallet_id == self.id, ChainTx.status.in_(OPEN_TX_STATUSES), ~settled)

    def open_slots(self, session: Session) -> int:
        """How many nonces have a transaction in flight."""
        count = session.scalar(
            select(func.count(func.distinct(ChainTx.nonce))).where(self.open_tx())
        )
        return count or 0

    def has_open_tx(self, session: Session) -> bool:
        return bool(session.scalar(select(func.count()).select_from(ChainTx).where(self.open_tx())))
