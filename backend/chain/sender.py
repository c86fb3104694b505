"""Sending: queued outbox requests packed into calls, signed at a nonce, stored, then broadcast.

A send round reads the queue, packs the next batch (one kind, as many as fit the gas
budget), simulates it with one ``eth_call`` (a batch that would revert is split; a
settlement the vault refuses for now waits), and *claims* it: under the wallet's row
lock it takes the next nonce and the still-queued requests, signs, and stores the signed
bytes with them in one commit. Only then are the bytes broadcast, so a crash between the
two leaves bytes that the tracker re-sends unchanged. ``replace`` signs the same call (or
a filler) at a nonce already taken, with fees raised by at least the bump.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Protocol

from eth_account.datastructures import SignedTransaction
from eth_account.signers.local import LocalAccount
from eth_account.typed_transactions.typed_transaction import TypedTransaction
from eth_utils.address import to_checksum_address
from hexbytes import HexBytes
from sqlalchemy import CursorResult, func, select, update
from sqlalchemy.orm import Session, sessionmaker

from backend.chain.crash import crash_point
from backend.chain.exceptions import RpcError
from backend.chain.fees import Fees, initial_fees, replacement_fees
from backend.chain.models import (
    SINGLE_KINDS,
    ChainRequest,
    ChainTx,
    ChainTxEvent,
    RequestKind,
    RequestStatus,
    TxKind,
    TxStatus,
)
from backend.chain.nonces import ChainView, Wallet, set_status
from backend.chain.rpc import Rpc
from backend.config import ChainSettings
from backend.db import dialect
from backend.db.base import utcnow
from backend.ops.metrics import BUMP_REASONS, CHAIN_BUMPS, bounded

logger = logging.getLogger(__name__)

FILLER_GAS = 21_000  # a plain transfer of 0 to ourselves: it only spends the nonce
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
class PumpReport:
    sent: int = 0
    confirmed: int = 0
    failed: int = 0
    waiting: int = 0  # requests put to WAITING by this pump (vault limit or pause)
    rounds: int = 0
    errors: list[str] = field(default_factory=list)


def hex_data(data: bytes) -> str:
    return "0x" + bytes(data).hex()


def call_data(raw: bytes) -> bytes:
    """The call data inside signed transaction bytes."""
    return bytes(TypedTransaction.from_bytes(HexBytes(raw)).as_dict()["data"])


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


@dataclass(eq=False, kw_only=True)
class WalletPart:
    """What the sender and the tracker of one wallet share (``Engine`` makes both)."""

    sessions: sessionmaker[Session]
    rpc: Rpc
    wallet: Wallet
    calls: CallBuilder
    settings: ChainSettings


@dataclass(eq=False, kw_only=True)
class Sender(WalletPart):
    """Signs and broadcasts the calls of one wallet; every write is guarded by current state."""

    account: LocalAccount
    chain_id: int

    # ------------------------------------------------------------------ a send round
    def _pick(self, queued: Sequence[ChainRequest], budget: int) -> list[ChainRequest]:
        """The next batch: one lone request, or as many same-kind requests as fit ``budget``."""
        first = queued[0]
        kind = RequestKind(first.kind)
        if first.alone or kind in SINGLE_KINDS:
            return [first]
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
        self._wake_waiting()
        with self.sessions() as session:
            in_flight = self.wallet.open_slots(session)
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
        # The slice starts with the first batch, which is always handled: a round whose
        # queries took longer than the slice (a slow database or node) still sends.
        slice_ends: float | None = None
        while queued and in_flight < self.settings.max_in_flight:
            if slice_ends is None:
                slice_ends = time.monotonic() + SEND_SLICE_S
            elif time.monotonic() > slice_ends:
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
            self.broadcast(tx.id, tx.raw)
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
                    "from": self.wallet.address,
                    "to": self.calls.to_address(kind),
                    "data": hex_data(data),
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
            result = session.execute(
                update(ChainRequest)
                .where(
                    ChainRequest.chain_id == self.chain_id,
                    ChainRequest.status == RequestStatus.WAITING,
                    ChainRequest.updated_at <= due,
                )
                .values(status=RequestStatus.QUEUED, updated_at=utcnow())
            )
            assert isinstance(result, CursorResult)  # an UPDATE returns a cursor result
            woken = result.rowcount
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

    # ------------------------------------------------------------------ signing
    def _signed_row(
        self,
        signed: SignedTransaction,
        nonce: int,
        kind: TxKind | RequestKind,
        to: str,
        gas: int,
        fees: Fees,
        now: datetime,
        *,
        request_count: int,
        replaces_id: int | None = None,
    ) -> ChainTx:
        """The ``chain_txs`` row of a transaction just signed, with its raw bytes."""
        return ChainTx(
            wallet_id=self.wallet.id,
            nonce=nonce,
            kind=str(kind),
            status=TxStatus.SIGNED,
            tx_hash=hex_data(signed.hash),
            raw=bytes(signed.raw_transaction),
            to_address=to,
            gas_limit=gas,
            max_fee_per_gas=fees.max_fee,
            max_priority_fee_per_gas=fees.tip,
            replaces_id=replaces_id,
            request_count=request_count,
            signed_at=now,
            created_at=now,
            updated_at=now,
        )

    def sign(self, *, nonce: int, to: str, data: bytes, gas: int, fees: Fees) -> SignedTransaction:
        return self.account.sign_transaction(
            {
                "type": 2,
                "chainId": self.chain_id,
                "nonce": nonce,
                "to": to_checksum_address(to),
                "value": 0,
                "data": data,
                "gas": gas,
                "maxFeePerGas": fees.max_fee,
                "maxPriorityFeePerGas": fees.tip,
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
        fees = initial_fees(view.base_fee, self.settings)
        to = self.calls.to_address(kind)
        ids = [r.id for r in batch]
        with self.sessions.begin() as session:
            wallet = self.wallet.lock(session)
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
            signed = self.sign(nonce=nonce, to=to, data=data, gas=gas, fees=fees)
            now = utcnow()
            tx = self._signed_row(signed, nonce, kind, to, gas, fees, now, request_count=len(ids))
            session.add(tx)
            session.flush()
            session.add(ChainTxEvent(tx_id=tx.id, status=TxStatus.SIGNED, detail=f"nonce {nonce}"))
            session.execute(
                update(ChainRequest),
                [
                    {
                        "id": rid,
                        "status": RequestStatus.SUBMITTED,
                        "wallet_id": self.wallet.id,
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
    def broadcast(self, tx_id: int, raw: bytes) -> str:
        """Send stored bytes; record what the node said. Returns the outcome class."""
        message: str | None
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
                set_status(session, tx, TxStatus.SENT, message)
            elif outcome == "rejected" and tx.status in (TxStatus.SIGNED, TxStatus.SENT):
                # The node refused the bytes outright, so nothing can mine them; the slot's
                # nonce is cancelled with a filler before its requests may go anywhere else.
                set_status(session, tx, TxStatus.FAILED, f"rejected by node: {message}")
        return outcome

    # ------------------------------------------------------------------ replacing
    def replace(
        self, current: ChainTx, view: ChainView, *, reason: str, filler: bool = False
    ) -> ChainTx | None:
        """Sign the same call (or a filler) at the same nonce with fees raised >= the bump."""
        fees = replacement_fees(
            Fees(max_fee=current.max_fee_per_gas, tip=current.max_priority_fee_per_gas),
            view.base_fee,
            self.settings,
        )
        if fees is None:
            logger.error(
                "tx %s at nonce %s is %s but fees are at the cap %s wei; operator needed",
                current.tx_hash,
                current.nonce,
                reason,
                self.settings.max_fee_cap_wei,
            )
            return None
        to: str
        if filler:
            to, data, gas, kind = self.wallet.address, b"", FILLER_GAS, TxKind.FILLER
        else:
            to, data, gas, kind = (
                current.to_address,
                call_data(current.raw),
                current.gas_limit,
                TxKind(current.kind),
            )
        signed = self.sign(nonce=current.nonce, to=to, data=data, gas=gas, fees=fees)
        now = utcnow()
        with self.sessions.begin() as session:
            self.wallet.lock(session)
            row = session.get(ChainTx, current.id, populate_existing=True)
            assert row is not None
            newer = session.scalar(
                select(func.count())
                .select_from(ChainTx)
                .where(
                    ChainTx.wallet_id == self.wallet.id,
                    ChainTx.nonce == current.nonce,
                    ChainTx.id > current.id,
                    ChainTx.status != TxStatus.FAILED,
                )
            )
            if newer or row.status in (TxStatus.MINED, TxStatus.CONFIRMED):
                return None
            new = self._signed_row(
                signed,
                current.nonce,
                kind,
                to,
                gas,
                fees,
                now,
                request_count=0 if filler else row.request_count,
                replaces_id=current.id,
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
                set_status(session, row, TxStatus.REPLACED, f"{reason}; by {new.tx_hash}")
        CHAIN_BUMPS.labels(bounded(reason, BUMP_REASONS)).inc()
        logger.warning(
            "replacing tx %s at nonce %s (%s): max fee %s -> %s",
            current.tx_hash,
            current.nonce,
            reason,
            current.max_fee_per_gas,
            fees.max_fee,
        )
        crash_point("after_sign", self.settings.crash_at)
        outcome = self.broadcast(new.id, new.raw)
        if outcome == "underpriced":
            with self.sessions.begin() as session:
                replacement = session.get(ChainTx, new.id)
                assert replacement is not None
                set_status(session, replacement, TxStatus.FAILED, "replacement underpriced")
        return new
