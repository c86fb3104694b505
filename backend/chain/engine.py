"""The sender and tracker for one (chain, wallet): outbox requests in, confirmed effects out.

One ``pump`` loop per wallet (a lease keeps it to one, for efficiency only) repeats:

1. *track*: read the wallet's chain nonce and receipts of open slots, record
   mined transactions, confirm them at the configured depth (applying their
   effects to the requests), detect reorgs, re-broadcast stored bytes, replace
   stuck ones at the same nonce with higher fees, and fill nonce gaps;
2. *send*: pack queued requests into one call, sign it, and store the signed
   bytes with its nonce under the wallet's row lock; only then broadcast.

Correctness never depends on the lease: a nonce and a set of requests are
claimed by a compare-and-set under the wallet lock (see ``_claim``), and every
other action is an idempotent re-send of stored bytes or a state change
guarded by the current state. docs/transactions.md walks through the argument.
"""

from __future__ import annotations

import logging
import os
import socket
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Protocol

from eth_account.signers.local import LocalAccount
from eth_account.typed_transactions import TypedTransaction
from eth_utils import to_checksum_address
from hexbytes import HexBytes
from sqlalchemy import ColumnElement, and_, func, select, update
from sqlalchemy.orm import Session, aliased, sessionmaker

from backend.chain.crash import crash_point
from backend.chain.exceptions import ChainError, ChainValueError, RpcError
from backend.chain.models import (
    OPEN_TX_STATUSES,
    ChainRequest,
    ChainTx,
    ChainTxEvent,
    ChainWallet,
    RequestKind,
    RequestStatus,
    TxKind,
    TxStatus,
)
from backend.chain.rpc import Rpc
from backend.config import ChainSettings
from backend.db import dialect
from backend.db.base import aware, utcnow
from backend.ops.metrics import (
    BUMP_REASONS,
    CHAIN_BUMPS,
    CHAIN_CONFIRM_SECONDS,
    CHAIN_GAS_USED,
    CHAIN_NONCE_GAPS,
    CHAIN_TXS,
    bounded,
)

logger = logging.getLogger(__name__)

FILLER_GAS = 21_000
# MatchSettlement's refusals that pass with time or an admin's action (docs/contracts.md): a
# settlement they stop waits (RequestStatus.WAITING) instead of failing.
WAIT_ERRORS = frozenset(
    {
        "SettlementOutflowLimit",
        "SettlementMatchLimit",
        "SettlementMatchOverLimit",
        "SettlementPaused",
    }
)
# How many queued requests one send round looks at, and how long it may sign before the
# tracker runs again (confirmations must not wait behind a long queue).
QUEUE_WINDOW = 1_000
SEND_SLICE_S = 0.25


class CallBuilder(Protocol):
    """Turns requests into contract calls and receipts back into per-request results."""

    def to_address(self, kind: RequestKind) -> str: ...

    def gas_for(self, kind: RequestKind, payload: dict[str, Any]) -> int:
        """Gas this request adds to a packed call (an upper estimate)."""
        ...

    def base_gas(self, kind: RequestKind) -> int: ...

    def encode(self, kind: RequestKind, payloads: Sequence[dict[str, Any]]) -> bytes: ...

    def effects(
        self, kind: RequestKind, receipt: dict[str, Any], payloads: Sequence[dict[str, Any]]
    ) -> list[dict[str, Any]]:
        """One result per payload, read from the receipt's logs."""
        ...

    def decode_error(self, data: Any) -> str:
        """A readable reason from revert data, naming the custom error when known."""
        ...


@dataclass
class ChainView:
    head: int
    nonce: int  # the wallet's transaction count at ``latest``
    base_fee: int
    gas_limit: int = 30_000_000  # of the latest block: no tx of ours may need more


@dataclass
class PumpReport:
    sent: int = 0
    confirmed: int = 0
    failed: int = 0
    waiting: int = 0  # requests put to WAITING by this pump (vault limit or pause)
    rounds: int = 0
    errors: list[str] = field(default_factory=list)


def _age_s(value: datetime | None) -> float:
    value = aware(value)
    return float("inf") if value is None else (utcnow() - value).total_seconds()


def _hex(data: bytes) -> str:
    return "0x" + bytes(data).hex()


def is_wait_reason(reason: str | None) -> bool:
    """Does this revert reason (as ``decode_error`` names it) mean "wait", not "failed"?"""
    return reason is not None and reason.split("(", 1)[0].strip() in WAIT_ERRORS


def classify_broadcast_error(message: str) -> str:
    """Map a node's refusal of ``eth_sendRawTransaction`` to what the engine does next."""
    text = message.lower()
    if "already known" in text or "known transaction" in text or "already imported" in text:
        return "known"
    if (
        "nonce too low" in text
        or "nonce has already been used" in text
        or "nonce is too low" in text
    ):
        return "nonce_too_low"
    if "underpriced" in text or "replacement fee too low" in text:
        return "underpriced"
    if "insufficient funds" in text:
        return "unfunded"
    if "base fee" in text or ("fee cap" in text and "less than" in text):
        return "fee_too_low"
    return "rejected"


class Engine:
    """Sends and tracks the transactions of one operator wallet on one chain."""

    def __init__(
        self,
        *,
        session_factory: sessionmaker[Session],
        rpc: Rpc,
        account: LocalAccount,
        chain_id: int,
        calls: CallBuilder,
        settings: ChainSettings,
    ):
        self.sessions = session_factory
        self.rpc = rpc
        self.account = account
        self.address = account.address
        self.chain_id = chain_id
        self.calls = calls
        self.settings = settings
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{id(self):x}"
        self.wallet_id = self._ensure_wallet()
        # Receipts of mined, not yet confirmed txs: read once, applied at the depth.
        self._receipt_cache: dict[int, dict[str, Any]] = {}

    # ------------------------------------------------------------------ wallet and lease
    def _ensure_wallet(self) -> int:
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

    def _lock_wallet(self, session: Session) -> ChainWallet:
        """The wallet row under an exclusive lock until ``session`` commits."""
        stmt = dialect.for_update(
            session, select(ChainWallet).where(ChainWallet.id == self.wallet_id)
        )
        # On SQLite the engine's BEGIN IMMEDIATE already holds the database write lock.
        return session.scalars(stmt.execution_options(populate_existing=True)).one()

    def acquire_lease(self) -> bool:
        now = utcnow()
        with self.sessions.begin() as session:
            result = session.execute(
                update(ChainWallet)
                .where(
                    ChainWallet.id == self.wallet_id,
                    (ChainWallet.lease_until.is_(None))
                    | (ChainWallet.lease_until < now)
                    | (ChainWallet.lease_owner == self.owner),
                )
                .values(
                    lease_owner=self.owner,
                    lease_until=now + timedelta(seconds=self.settings.pump_lease_s),
                )
            )
            return result.rowcount == 1

    def release_lease(self) -> None:
        with self.sessions.begin() as session:
            session.execute(
                update(ChainWallet)
                .where(ChainWallet.id == self.wallet_id, ChainWallet.lease_owner == self.owner)
                .values(lease_owner=None, lease_until=None)
            )

    def _open_tx(self) -> ColumnElement[bool]:
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
        return and_(
            ChainTx.wallet_id == self.wallet_id, ChainTx.status.in_(OPEN_TX_STATUSES), ~settled
        )

    # ------------------------------------------------------------------ the loop
    def has_work(self) -> bool:
        with self.sessions() as session:
            open_tx = session.scalar(
                select(func.count()).select_from(ChainTx).where(self._open_tx())
            )
            queued = session.scalar(
                select(func.count())
                .select_from(ChainRequest)
                .where(
                    ChainRequest.chain_id == self.chain_id,
                    ChainRequest.status == RequestStatus.QUEUED,
                )
            )
            return bool(open_tx or queued)

    def pump(self, *, run_s: float | None = None) -> PumpReport:
        """Track and send until idle or ``run_s`` elapsed; returns at once if another pump runs."""
        report = PumpReport()
        deadline = time.monotonic() + (run_s if run_s is not None else self.settings.pump_run_s)
        if not self.acquire_lease():
            return report
        try:
            while time.monotonic() < deadline:
                report.rounds += 1
                try:
                    self.step(report)
                except ChainError as exc:
                    # A flaky node: every step is idempotent, so just try again next round.
                    logger.warning("pump round failed: %s", exc)
                    report.errors = [*report.errors[-9:], str(exc)]
                if not self.has_work():
                    break
                if not self.acquire_lease():
                    break
                time.sleep(self.settings.poll_interval_s)
        finally:
            self.release_lease()
        return report

    def view(self) -> ChainView:
        head_r, nonce_r, block_r = self.rpc.batch(
            [
                ("eth_blockNumber", []),
                ("eth_getTransactionCount", [self.address, "latest"]),
                ("eth_getBlockByNumber", ["latest", False]),
            ]
        )
        for r in (head_r, nonce_r, block_r):
            if isinstance(r, RpcError):
                raise r
        base_fee = int(block_r.get("baseFeePerGas") or "0x0", 16)
        return ChainView(
            head=int(head_r, 16),
            nonce=int(nonce_r, 16),
            base_fee=base_fee,
            gas_limit=int(block_r.get("gasLimit") or hex(30_000_000), 16),
        )

    def step(self, report: PumpReport | None = None) -> None:
        report = report if report is not None else PumpReport()
        view = self.view()
        self.track(view, report)
        self.send(view, report)

    # ------------------------------------------------------------------ sending
    def _fees(self, base_fee: int) -> tuple[int, int]:
        priority = self.settings.priority_fee_wei
        max_fee = int(base_fee * self.settings.base_fee_multiplier) + priority
        return min(max_fee, self.settings.max_fee_cap_wei), min(
            priority, self.settings.max_fee_cap_wei
        )

    def _pick(self, queued: Sequence[ChainRequest], budget: int) -> list[ChainRequest]:
        """The next batch: one lone request, or as many same-kind requests as fit ``budget``."""
        first = queued[0]
        if first.alone:
            return [first]
        kind = RequestKind(first.kind)
        gas = self.calls.base_gas(kind)
        batch: list[ChainRequest] = []
        for request in queued:
            if request.kind != first.kind or request.alone:
                continue
            need = self.calls.gas_for(kind, request.payload)
            if batch and gas + need > budget:
                break
            gas += need
            batch.append(request)
        return batch

    def send(self, view: ChainView, report: PumpReport) -> None:
        """Sign and broadcast batches for a short slice of time, then let tracking run again."""
        slice_ends = time.monotonic() + SEND_SLICE_S
        self._wake_waiting()
        with self.sessions() as session:
            in_flight = session.scalar(
                select(func.count(func.distinct(ChainTx.nonce))).where(self._open_tx())
            )
            queued = list(
                session.scalars(
                    select(ChainRequest)
                    .where(
                        ChainRequest.chain_id == self.chain_id,
                        ChainRequest.status == RequestStatus.QUEUED,
                    )
                    .order_by(ChainRequest.id)
                    .limit(QUEUE_WINDOW)
                )
            )
        while queued and in_flight < self.settings.max_in_flight:
            if time.monotonic() > slice_ends:
                return
            # A tx must fit in a block; leave room for other senders' transactions.
            budget = min(self.settings.max_gas_per_tx, view.gas_limit * 9 // 10)
            batch = self._pick(queued, budget)
            picked = {r.id for r in batch}
            queued = [r for r in queued if r.id not in picked]
            kind = RequestKind(batch[0].kind)
            payloads = [r.payload for r in batch]
            gas = self.calls.base_gas(kind) + sum(self.calls.gas_for(kind, p) for p in payloads)
            if gas > budget:  # one request alone is too big for any block: it can never go
                self._fail_queued(batch[0].id, f"needs {gas} gas; a transaction may use {budget}")
                report.failed += 1
                continue
            data = self.calls.encode(kind, payloads)
            reason = self._simulate(kind, data, gas)
            if reason is not None:
                if is_wait_reason(reason) and (
                    len(batch) == 1 or reason.startswith("SettlementPaused")
                ):
                    # Held back by the vault's limits or pause: not failed, tried again later.
                    self._wait([r.id for r in batch], reason)
                    report.waiting += len(batch)
                elif len(batch) == 1:
                    self._fail_queued(batch[0].id, f"would revert: {reason}")
                    report.failed += 1
                else:
                    # One of them makes the batch revert: send each alone to find which.
                    self._isolate([r.id for r in batch], reason)
                    return
                continue
            tx = self._claim(batch, kind, data, gas, view)
            if tx is None:
                return  # lost a race for the nonce or the requests: look again next round
            crash_point("after_sign", self.settings.crash_at)
            self._broadcast(tx.id, tx.raw)
            in_flight += 1
            report.sent += 1

    def _simulate(self, kind: RequestKind, data: bytes, gas: int) -> str | None:
        """The revert reason if this call would revert at the latest block, else None.

        One ``eth_call`` (not ``eth_estimateGas``'s search): the gas limit is the
        CallBuilder's planning figure, an upper bound by construction.
        """
        try:
            self.rpc.call(
                "eth_call",
                {
                    "from": self.address,
                    "to": self.calls.to_address(kind),
                    "data": _hex(data),
                    "gas": hex(gas),
                },
                "latest",
            )
        except RpcError as exc:
            if exc.data is None and "revert" not in exc.message.lower():
                raise
            return self.calls.decode_error(exc.data) if exc.data else exc.message
        return None

    def _isolate(self, request_ids: list[int], reason: str) -> None:
        with self.sessions.begin() as session:
            session.execute(
                update(ChainRequest)
                .where(
                    ChainRequest.id.in_(request_ids), ChainRequest.status == RequestStatus.QUEUED
                )
                .values(alone=True, updated_at=utcnow())
            )
        logger.warning("a batch of %d would revert (%s); sending alone", len(request_ids), reason)

    def _wait(self, request_ids: list[int], reason: str) -> None:
        """Queued requests the vault refuses for now: WAITING, tried again after a while."""
        now = utcnow()
        with self.sessions.begin() as session:
            session.execute(
                update(ChainRequest)
                .where(
                    ChainRequest.id.in_(request_ids), ChainRequest.status == RequestStatus.QUEUED
                )
                .values(
                    status=RequestStatus.WAITING,
                    failure_reason=f"waiting: {reason}",
                    alone=False,
                    updated_at=now,
                )
            )
        logger.warning("%d settlement(s) wait for the vault: %s", len(request_ids), reason)

    def _wake_waiting(self) -> None:
        """Queue again the waiting requests last tried ``limit_retry_s`` ago or earlier."""
        due = utcnow() - timedelta(seconds=self.settings.limit_retry_s)
        with self.sessions.begin() as session:
            woken = session.execute(
                update(ChainRequest)
                .where(
                    ChainRequest.chain_id == self.chain_id,
                    ChainRequest.status == RequestStatus.WAITING,
                    ChainRequest.updated_at <= due,
                )
                .values(status=RequestStatus.QUEUED, updated_at=utcnow())
            ).rowcount
        if woken:
            logger.info("%d waiting settlement(s) queued again", woken)

    def _fail_queued(self, request_id: int, reason: str) -> None:
        now = utcnow()
        with self.sessions.begin() as session:
            session.execute(
                update(ChainRequest)
                .where(ChainRequest.id == request_id, ChainRequest.status == RequestStatus.QUEUED)
                .values(
                    status=RequestStatus.FAILED,
                    failure_reason=reason,
                    failed_at=now,
                    updated_at=now,
                )
            )
        logger.warning("request %s failed before sending (%s)", request_id, reason)

    def _sign(self, *, nonce: int, to: str, data: bytes, gas: int, max_fee: int, tip: int) -> Any:
        return self.account.sign_transaction(
            {
                "type": 2,
                "chainId": self.chain_id,
                "nonce": nonce,
                "to": to_checksum_address(to),
                "value": 0,
                "data": data,
                "gas": gas,
                "maxFeePerGas": max_fee,
                "maxPriorityFeePerGas": tip,
            }
        )

    def _claim(
        self,
        batch: Sequence[ChainRequest],
        kind: RequestKind,
        data: bytes,
        gas: int,
        view: ChainView,
    ) -> ChainTx | None:
        """Take the next nonce and the requests atomically, storing the signed bytes with them."""
        max_fee, tip = self._fees(view.base_fee)
        to = self.calls.to_address(kind)
        ids = [r.id for r in batch]
        with self.sessions.begin() as session:
            wallet = self._lock_wallet(session)
            # Nonces below the chain's count are spent (by us or by anyone): never reuse them.
            nonce = max(wallet.next_nonce, view.nonce)
            stmt = dialect.for_update(
                session,
                select(ChainRequest.id).where(
                    ChainRequest.id.in_(ids), ChainRequest.status == RequestStatus.QUEUED
                ),
            )
            still_queued = set(session.scalars(stmt))
            if still_queued != set(ids):
                return None
            signed = self._sign(nonce=nonce, to=to, data=data, gas=gas, max_fee=max_fee, tip=tip)
            now = utcnow()
            tx = ChainTx(
                wallet_id=self.wallet_id,
                nonce=nonce,
                kind=str(kind),
                status=TxStatus.SIGNED,
                tx_hash=_hex(signed.hash),
                raw=bytes(signed.raw_transaction),
                to_address=to,
                gas_limit=gas,
                max_fee_per_gas=max_fee,
                max_priority_fee_per_gas=tip,
                request_count=len(ids),
                signed_at=now,
                created_at=now,
                updated_at=now,
            )
            session.add(tx)
            session.flush()
            session.add(ChainTxEvent(tx_id=tx.id, status=TxStatus.SIGNED, detail=f"nonce {nonce}"))
            session.execute(
                update(ChainRequest),
                [
                    {
                        "id": rid,
                        "status": RequestStatus.SUBMITTED,
                        "wallet_id": self.wallet_id,
                        "nonce": nonce,
                        "position": position,
                        "submitted_at": now,
                        "updated_at": now,
                        "tx_hash": tx.tx_hash,
                    }
                    for position, rid in enumerate(ids)
                ],
            )
            wallet.next_nonce = nonce + 1
        logger.info("signed %s tx %s nonce %s with %d requests", kind, tx.tx_hash, nonce, len(ids))
        return tx

    # ------------------------------------------------------------------ broadcasting
    def _set_status(
        self, session: Session, tx: ChainTx, status: TxStatus, detail: str | None = None
    ) -> None:
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

    def _broadcast(self, tx_id: int, raw: bytes) -> str:
        """Send stored bytes; record what the node said. Returns the outcome class."""
        try:
            self.rpc.send_raw(raw)
            outcome = "accepted"
        except RpcError as exc:
            outcome = classify_broadcast_error(exc.message)
            if outcome not in ("known", "nonce_too_low"):
                logger.warning("broadcast of tx %s refused (%s): %s", tx_id, outcome, exc.message)
            message = exc.message
        else:
            message = None
        crash_point("after_broadcast", self.settings.crash_at)
        with self.sessions.begin() as session:
            tx = session.get(ChainTx, tx_id)
            assert tx is not None
            tx.last_broadcast_at = utcnow()
            tx.broadcasts += 1
            if outcome in ("accepted", "known", "nonce_too_low") and tx.status == TxStatus.SIGNED:
                self._set_status(session, tx, TxStatus.SENT, message)
            elif outcome == "rejected" and tx.status in (TxStatus.SIGNED, TxStatus.SENT):
                # The node refused the bytes outright, so nothing can mine them; the slot's
                # nonce is cancelled with a filler before its requests may go anywhere else.
                self._set_status(session, tx, TxStatus.FAILED, f"rejected by node: {message}")
        return outcome

    # ------------------------------------------------------------------ tracking
    def track(self, view: ChainView, report: PumpReport) -> None:
        with self.sessions() as session:
            open_txs = list(
                session.scalars(
                    select(ChainTx).where(self._open_tx()).order_by(ChainTx.nonce, ChainTx.id)
                )
            )
        slots: dict[int, list[ChainTx]] = defaultdict(list)
        for tx in open_txs:
            slots[tx.nonce].append(tx)
        # Receipts of every tx of a spent nonce not yet known mined. Mined ones are watched
        # through their block's hash (small); their receipt is read again only if it moved.
        wanted = [
            tx
            for nonce, txs in slots.items()
            for tx in txs
            if nonce < view.nonce and tx.status != TxStatus.MINED
        ]
        receipts = self._receipts_of(wanted)
        mined_blocks = sorted({tx.block_number for tx in open_txs if tx.status == TxStatus.MINED})
        canonical: dict[int, str | None] = {}
        for start in range(0, len(mined_blocks), 100):
            chunk = mined_blocks[start : start + 100]
            results = self.rpc.batch([("eth_getBlockByNumber", [hex(n), False]) for n in chunk])
            for number, block in zip(chunk, results, strict=True):
                if isinstance(block, RpcError):
                    raise block
                canonical[number] = block["hash"] if block else None
        confirmed_nonce: int | None = None
        for nonce in sorted(slots):
            txs = slots[nonce]
            found = [(tx, receipts[tx.id]) for tx in txs if receipts.get(tx.id)]
            if found:
                tx, receipt = found[0]
                self._on_receipt(tx, txs, receipt, view, report)
                continue
            mined = [tx for tx in txs if tx.status == TxStatus.MINED]
            if mined:
                tx = mined[0]
                if canonical.get(tx.block_number) == tx.block_hash:
                    if view.head - tx.block_number + 1 >= self.settings.confirmations:
                        receipt = self._receipt_cache.pop(tx.id, None)
                        if receipt is None or receipt["blockHash"] != tx.block_hash:
                            receipt = self._receipts_of([tx]).get(tx.id)
                        if receipt is not None:
                            self._on_receipt(tx, txs, receipt, view, report)
                    continue
                # Its block is no longer canonical: re-mined elsewhere, or back in the pool.
                receipt = self._receipts_of([tx]).get(tx.id)
                if receipt is not None:
                    self._on_receipt(tx, txs, receipt, view, report)
                else:
                    self._on_reorg(txs)
                continue
            if nonce < view.nonce:
                # Spent, but none of our receipts: wait until the spend is final, then give up.
                if confirmed_nonce is None:
                    depth_block = max(view.head - self.settings.confirmations + 1, 0)
                    confirmed_nonce = self.rpc.nonce(self.address, depth_block)
                if nonce < confirmed_nonce and not self._any_known_mined(txs):
                    self._on_foreign_spend(nonce, txs, report)
                continue
            self._keep_pending(nonce, txs, view)
        self._fill_gaps(view, slots)

    def _receipts_of(self, txs: Sequence[ChainTx]) -> dict[int, dict[str, Any] | None]:
        receipts: dict[int, dict[str, Any] | None] = {}
        for start in range(0, len(txs), 100):
            chunk = txs[start : start + 100]
            results = self.rpc.batch([("eth_getTransactionReceipt", [tx.tx_hash]) for tx in chunk])
            for tx, result in zip(chunk, results, strict=True):
                if isinstance(result, RpcError):
                    raise result
                receipts[tx.id] = result
        return receipts

    def _on_receipt(
        self,
        tx: ChainTx,
        slot: list[ChainTx],
        receipt: dict[str, Any],
        view: ChainView,
        report: PumpReport,
    ) -> None:
        block_number = int(receipt["blockNumber"], 16)
        block_hash = receipt["blockHash"]
        if tx.status != TxStatus.MINED or tx.block_hash != block_hash:
            with self.sessions.begin() as session:
                row = session.get(ChainTx, tx.id)
                assert row is not None
                if row.status == TxStatus.MINED and row.block_hash != block_hash:
                    row.reorgs += 1
                    detail = f"reorg: moved from block {row.block_hash} to {block_hash}"
                else:
                    detail = f"block {block_number}"
                row.block_number = block_number
                row.block_hash = block_hash
                row.receipt_status = int(receipt["status"], 16)
                row.gas_used = int(receipt["gasUsed"], 16)
                self._set_status(session, row, TxStatus.MINED, detail)
                for other in slot:
                    if other.id != tx.id and other.status != TxStatus.REPLACED:
                        self._set_status(
                            session,
                            session.get(ChainTx, other.id),
                            TxStatus.REPLACED,
                            f"nonce {tx.nonce} mined by {tx.tx_hash}",
                        )
            crash_point("after_receipt", self.settings.crash_at)
            tx.block_number, tx.block_hash = block_number, block_hash
        if view.head - block_number + 1 >= self.settings.confirmations:
            self._receipt_cache.pop(tx.id, None)
            self._confirm(tx.id, slot, receipt, report)
        else:
            self._receipt_cache[tx.id] = receipt

    def _revert_reason(self, tx: ChainTx, block_number: int) -> str:
        """The custom error a mined tx reverted with: from a call trace, else by replaying it."""
        try:
            trace = self.rpc.call("debug_traceTransaction", tx.tx_hash, {"tracer": "callTracer"})
            output = trace.get("output") if isinstance(trace, dict) else None
            if output and output != "0x":
                return self.calls.decode_error(output)
        except RpcError:
            pass  # nodes without the debug namespace: replay instead
        decoded = TypedTransaction.from_bytes(HexBytes(tx.raw)).as_dict()
        call = {
            "from": self.address,
            "to": tx.to_address,
            "data": _hex(decoded["data"]),
            "gas": hex(tx.gas_limit),
        }
        # State at the end of its block, then before it: one of them usually reproduces it.
        for block in (block_number, max(block_number - 1, 0)):
            try:
                self.rpc.call("eth_call", call, hex(block))
            except RpcError as exc:
                return self.calls.decode_error(exc.data) if exc.data else exc.message
        return "reverted (not reproducible by replay: out of gas, or state changed since)"

    def _confirm(
        self, tx_id: int, slot: list[ChainTx], receipt: dict[str, Any], report: PumpReport
    ) -> None:
        succeeded = int(receipt["status"], 16) == 1
        with self.sessions() as session:
            tx = session.get(ChainTx, tx_id)
            assert tx is not None
        reason = (
            None
            if succeeded or tx.kind == TxKind.FILLER
            else self._revert_reason(tx, int(receipt["blockNumber"], 16))
        )
        now = utcnow()
        with self.sessions.begin() as session:
            tx = session.get(ChainTx, tx_id, populate_existing=True)
            assert tx is not None
            if tx.status != TxStatus.MINED:
                return  # someone else confirmed it meanwhile
            requests = list(
                session.scalars(
                    select(ChainRequest)
                    .where(
                        ChainRequest.wallet_id == self.wallet_id,
                        ChainRequest.nonce == tx.nonce,
                        ChainRequest.status == RequestStatus.SUBMITTED,
                    )
                    .order_by(ChainRequest.position)
                )
            )
            if tx.kind == TxKind.FILLER:
                self._set_status(session, tx, TxStatus.CONFIRMED, "filler")
                refused = session.scalars(
                    select(ChainTx.failure_reason)
                    .where(
                        ChainTx.wallet_id == self.wallet_id,
                        ChainTx.nonce == tx.nonce,
                        ChainTx.status == TxStatus.FAILED,
                    )
                    .order_by(ChainTx.id.desc())
                    .limit(1)
                ).first()
                for request in requests:
                    # Cancelled (operator) or refused by the node: try again, a few times.
                    request.attempts += 1
                    if refused and request.attempts >= self.settings.max_attempts:
                        request.status = RequestStatus.FAILED
                        request.failure_reason = refused
                        request.failed_at = now
                        request.updated_at = now
                        report.failed += 1
                    else:
                        self._requeue(request, now, alone=request.alone)
            elif succeeded:
                self._set_status(session, tx, TxStatus.CONFIRMED)
                results = self.calls.effects(
                    RequestKind(tx.kind), receipt, [r.payload for r in requests]
                )
                for request, result in zip(requests, results, strict=True):
                    CHAIN_CONFIRM_SECONDS.labels(tx.kind).observe(
                        max(0.0, (now - aware(request.created_at)).total_seconds())
                    )
                    request.status = RequestStatus.CONFIRMED
                    request.failure_reason = None  # e.g. "waiting: ..." from an earlier try
                    request.result = result
                    request.tx_hash = tx.tx_hash
                    request.confirmed_at = now
                    request.updated_at = now
                report.confirmed += len(requests)
            elif is_wait_reason(reason):
                # The vault refused it for now (limit or pause): its settlements wait, unpaid.
                self._set_status(session, tx, TxStatus.FAILED, f"reverted: {reason}")
                for request in requests:
                    self._requeue(request, now, alone=False)
                    request.status = RequestStatus.WAITING
                    request.failure_reason = f"waiting: {reason}"
                report.waiting += len(requests)
            else:
                self._set_status(session, tx, TxStatus.FAILED, f"reverted: {reason}")
                for request in requests:
                    if len(requests) == 1 or request.attempts + 1 >= self.settings.max_attempts:
                        request.status = RequestStatus.FAILED
                        request.failure_reason = f"reverted: {reason}"
                        request.failed_at = now
                        request.updated_at = now
                        report.failed += 1
                    else:
                        # Some request of the batch makes it revert: send each alone to find it.
                        request.attempts += 1
                        self._requeue(request, now, alone=True)
            for other in slot:
                if other.id != tx_id:
                    row = session.get(ChainTx, other.id)
                    if row is not None and row.status in (TxStatus.SIGNED, TxStatus.SENT):
                        self._set_status(
                            session, row, TxStatus.REPLACED, f"nonce spent by {tx.tx_hash}"
                        )
        if tx.status in (TxStatus.CONFIRMED, TxStatus.FAILED):
            CHAIN_TXS.labels(tx.kind).inc()
            if tx.gas_used:
                CHAIN_GAS_USED.labels(tx.kind).inc(tx.gas_used)
        logger.info("tx %s (nonce %s) final: %s", tx.tx_hash, tx.nonce, tx.status)

    @staticmethod
    def _requeue(request: ChainRequest, now: datetime, *, alone: bool) -> None:
        request.status = RequestStatus.QUEUED
        request.wallet_id = None
        request.nonce = None
        request.position = None
        request.tx_hash = None
        request.alone = alone
        request.updated_at = now

    def _on_reorg(self, slot: list[ChainTx]) -> None:
        """A mined tx's receipt vanished: it is pending again; send its bytes again at once."""
        for tx in slot:
            if tx.status != TxStatus.MINED:
                continue
            logger.warning("reorg: tx %s left block %s; re-broadcasting", tx.tx_hash, tx.block_hash)
            with self.sessions.begin() as session:
                row = session.get(ChainTx, tx.id)
                assert row is not None
                row.reorgs += 1
                detail = f"reorg: receipt in block {row.block_hash} vanished"
                row.block_number = row.block_hash = row.receipt_status = row.gas_used = None
                self._set_status(session, row, TxStatus.SENT, detail)
            self._broadcast(tx.id, tx.raw)

    def _any_known_mined(self, txs: Sequence[ChainTx]) -> bool:
        """Does the node know one of these txs in a block, receipt or not? Then it is ours.

        A node that lost receipts (pruned, restored) must not make us re-send a mint.
        """
        results = self.rpc.batch([("eth_getTransactionByHash", [tx.tx_hash]) for tx in txs])
        for tx, result in zip(txs, results, strict=True):
            if isinstance(result, RpcError):
                raise result
            if result and result.get("blockNumber"):
                logger.error("tx %s is in a block but its receipt is missing; waiting", tx.tx_hash)
                return True
        return False

    def _on_foreign_spend(self, nonce: int, slot: list[ChainTx], report: PumpReport) -> None:
        """Our nonce was spent, finally, by a transaction we did not sign: free its requests."""
        now = utcnow()
        with self.sessions.begin() as session:
            for tx in slot:
                row = session.get(ChainTx, tx.id)
                if row is not None and row.status in OPEN_TX_STATUSES:
                    self._set_status(
                        session,
                        row,
                        TxStatus.FAILED,
                        f"nonce {nonce} was spent by a transaction we did not sign",
                    )
            for request in session.scalars(
                select(ChainRequest).where(
                    ChainRequest.wallet_id == self.wallet_id,
                    ChainRequest.nonce == nonce,
                    ChainRequest.status == RequestStatus.SUBMITTED,
                )
            ):
                self._requeue(request, now, alone=request.alone)
        logger.error("nonce %s of %s spent by a foreign transaction", nonce, self.address)

    def _keep_pending(self, nonce: int, slot: list[ChainTx], view: ChainView) -> None:
        current = max(slot, key=lambda tx: tx.id)
        if _age_s(current.last_broadcast_at) >= self.settings.rebroadcast_after_s:
            # Never-broadcast bytes (a crash after signing) go at once; pending ones again after
            # a while: that covers dropped txs, a node restarted without its pool, and a wallet
            # that could not pay for gas until it was refilled. Same bytes, same hash.
            outcome = self._broadcast(current.id, current.raw)
        else:
            outcome = None
        stuck = _age_s(current.signed_at) >= self.settings.stuck_after_s
        if outcome == "fee_too_low" or (stuck and nonce == view.nonce):
            self._replace(current, view, reason="fee too low" if outcome else "stuck")

    def _replace(
        self, current: ChainTx, view: ChainView, *, reason: str, filler: bool = False
    ) -> ChainTx | None:
        """Sign the same call (or a filler) at the same nonce with fees raised >= the bump."""
        bump = 100 + self.settings.fee_bump_percent
        tip = max(
            current.max_priority_fee_per_gas * bump // 100 + 1, self.settings.priority_fee_wei
        )
        max_fee = max(
            current.max_fee_per_gas * bump // 100 + 1,
            int(view.base_fee * self.settings.base_fee_multiplier) + tip,
        )
        cap = self.settings.max_fee_cap_wei
        if max_fee > cap:
            if current.max_fee_per_gas >= cap:
                logger.error(
                    "tx %s at nonce %s is %s but fees are at the cap %s wei; operator needed",
                    current.tx_hash,
                    current.nonce,
                    reason,
                    cap,
                )
                return None
            max_fee = cap
            tip = min(tip, cap)
        if filler:
            to, data, gas, kind = self.address, b"", FILLER_GAS, TxKind.FILLER
        else:
            decoded = TypedTransaction.from_bytes(HexBytes(current.raw)).as_dict()
            to, data, gas, kind = (
                current.to_address,
                bytes(decoded["data"]),
                current.gas_limit,
                TxKind(current.kind),
            )
        signed = self._sign(
            nonce=current.nonce, to=to, data=data, gas=gas, max_fee=max_fee, tip=tip
        )
        now = utcnow()
        with self.sessions.begin() as session:
            self._lock_wallet(session)
            row = session.get(ChainTx, current.id, populate_existing=True)
            assert row is not None
            newer = session.scalar(
                select(func.count())
                .select_from(ChainTx)
                .where(
                    ChainTx.wallet_id == self.wallet_id,
                    ChainTx.nonce == current.nonce,
                    ChainTx.id > current.id,
                    ChainTx.status != TxStatus.FAILED,
                )
            )
            if newer or row.status in (TxStatus.MINED, TxStatus.CONFIRMED):
                return None
            new = ChainTx(
                wallet_id=self.wallet_id,
                nonce=current.nonce,
                kind=str(kind),
                status=TxStatus.SIGNED,
                tx_hash=_hex(signed.hash),
                raw=bytes(signed.raw_transaction),
                to_address=to,
                gas_limit=gas,
                max_fee_per_gas=max_fee,
                max_priority_fee_per_gas=tip,
                replaces_id=current.id,
                request_count=0 if filler else row.request_count,
                signed_at=now,
                created_at=now,
                updated_at=now,
            )
            session.add(new)
            session.flush()
            session.add(
                ChainTxEvent(
                    tx_id=new.id, status=TxStatus.SIGNED, detail=f"replaces {row.tx_hash}: {reason}"
                )
            )
            if row.status in (TxStatus.SIGNED, TxStatus.SENT):
                # Still a candidate for the nonce until one of them is mined (tracked above).
                self._set_status(session, row, TxStatus.REPLACED, f"{reason}; by {new.tx_hash}")
        CHAIN_BUMPS.labels(bounded(reason, BUMP_REASONS)).inc()
        logger.warning(
            "replacing tx %s at nonce %s (%s): max fee %s -> %s",
            current.tx_hash,
            current.nonce,
            reason,
            current.max_fee_per_gas,
            max_fee,
        )
        crash_point("after_sign", self.settings.crash_at)
        outcome = self._broadcast(new.id, new.raw)
        if outcome == "underpriced":
            with self.sessions.begin() as session:
                row = session.get(ChainTx, new.id)
                self._set_status(session, row, TxStatus.FAILED, "replacement underpriced")
        return new

    def _fill_gaps(self, view: ChainView, slots: dict[int, list[ChainTx]]) -> None:
        """Make every unspent nonce below our next one carry a live tx, so none blocks the rest."""
        with self.sessions() as session:
            next_nonce = session.get(ChainWallet, self.wallet_id).next_nonce
        for nonce in range(view.nonce, next_nonce):
            if nonce in slots:
                continue
            with self.sessions() as session:
                last = session.scalars(
                    select(ChainTx)
                    .where(ChainTx.wallet_id == self.wallet_id, ChainTx.nonce == nonce)
                    .order_by(ChainTx.id.desc())
                    .limit(1)
                ).one_or_none()
            if last is None:
                continue  # cannot happen: a nonce is assigned in the same commit as its tx
            if last.status == TxStatus.CONFIRMED:
                # Final by our depth, yet the chain forgot it (a deeper reorg or a node reset to
                # an older state): the same bytes are still valid at that nonce, so send them.
                logger.error("confirmed tx %s vanished from the chain; re-sending", last.tx_hash)
                self._broadcast(last.id, last.raw)
            else:
                logger.warning(
                    "nonce gap at %s (tx %s %s): filler", nonce, last.tx_hash, last.status
                )
                CHAIN_NONCE_GAPS.inc()
                self._replace(last, view, reason="nonce gap", filler=True)

    # ------------------------------------------------------------------ operator actions
    def cancel_tx(self, tx_hash: str) -> ChainTx | None:
        """Replace a pending tx with a filler at its nonce; its requests go back to the queue."""
        with self.sessions() as session:
            tx = session.scalars(
                select(ChainTx).where(
                    ChainTx.tx_hash == tx_hash.lower(), ChainTx.wallet_id == self.wallet_id
                )
            ).one_or_none()
        if tx is None:
            raise ChainValueError(f"no transaction of this wallet with hash {tx_hash!r}")
        if tx.status not in (TxStatus.SIGNED, TxStatus.SENT, TxStatus.REPLACED):
            raise ChainValueError(f"transaction {tx_hash!r} is {tx.status}; only pending ones")
        return self._replace(tx, self.view(), reason="cancelled by operator", filler=True)
