"""Tracking: from a broadcast transaction to a confirmed (or failed) one, and its requests' fate.

Each round the tracker looks at every open slot (a nonce of ours not yet final):

- a receipt found: the tx is MINED; at the confirmation depth it is CONFIRMED and its
  effects are applied to its requests (or, if it reverted, they fail, wait for the vault,
  or go back to the queue one by one to find the bad one);
- a mined tx whose block left the canonical chain: re-mined elsewhere, or back to SENT and
  re-broadcast (a reorg);
- a nonce spent with none of our receipts, final by depth: a foreign spend, the requests
  are queued again;
- a nonce still pending: re-broadcast the stored bytes after a while, replace with higher
  fees when stuck; and every unspent nonce below ours gets a live tx (a filler if need be).
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import select

from backend.chain.crash import crash_point
from backend.chain.exceptions import RpcError
from backend.chain.models import (
    OPEN_TX_STATUSES,
    ChainRequest,
    ChainTx,
    RequestKind,
    RequestStatus,
    TxKind,
    TxStatus,
)
from backend.chain.nonces import ChainView, requeue, set_status
from backend.chain.sender import (
    PumpReport,
    Sender,
    WalletPart,
    call_data,
    hex_data,
    is_wait_reason,
)
from backend.db.base import aware, utcnow
from backend.ops.metrics import (
    CHAIN_CONFIRM_SECONDS,
    CHAIN_GAS_USED,
    CHAIN_NONCE_GAPS,
    CHAIN_TXS,
)

logger = logging.getLogger(__name__)

Receipt = dict[str, Any]  # a JSON-RPC transaction receipt, quantities as 0x-hex strings


def _age_s(value: datetime | None) -> float:
    value = aware(value)
    return float("inf") if value is None else (utcnow() - value).total_seconds()


@dataclass(eq=False, kw_only=True)
class Tracker(WalletPart):
    """Follows the open slots of one wallet to their final state; see the module docstring."""

    sender: Sender
    # Receipts of mined, not yet confirmed txs: read once, applied at the depth.
    _receipt_cache: dict[int, Receipt] = field(default_factory=dict, init=False, repr=False)

    def _deep_enough(self, view: ChainView, block_number: int) -> bool:
        return view.head - block_number + 1 >= self.settings.confirmations

    def track(self, view: ChainView, report: PumpReport) -> None:
        with self.sessions() as session:
            open_txs = list(
                session.scalars(
                    select(ChainTx).where(self.wallet.open_tx()).order_by(ChainTx.nonce, ChainTx.id)
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
        mined_blocks = sorted(
            {
                tx.block_number
                for tx in open_txs
                if tx.status == TxStatus.MINED and tx.block_number is not None
            }
        )
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
            found = [(tx, receipt) for tx in txs if (receipt := receipts.get(tx.id))]
            if found:
                tx, receipt = found[0]
                self._on_receipt(tx, txs, receipt, view, report)
                continue
            # A MINED tx always has its block (recorded with the status in _on_receipt).
            mined = [
                (tx, tx.block_number)
                for tx in txs
                if tx.status == TxStatus.MINED and tx.block_number is not None
            ]
            if mined:
                tx, block_number = mined[0]
                if canonical.get(block_number) == tx.block_hash:
                    if self._deep_enough(view, block_number):
                        cached = self._receipt_cache.pop(tx.id, None)
                        if cached is None or cached["blockHash"] != tx.block_hash:
                            cached = self._receipts_of([tx]).get(tx.id)
                        if cached is not None:
                            self._on_receipt(tx, txs, cached, view, report)
                    continue
                # Its block is no longer canonical: re-mined elsewhere, or back in the pool.
                moved = self._receipts_of([tx]).get(tx.id)
                if moved is not None:
                    self._on_receipt(tx, txs, moved, view, report)
                else:
                    self._on_reorg(txs)
                continue
            if nonce < view.nonce:
                # Spent, but none of our receipts: wait until the spend is final, then give up.
                if confirmed_nonce is None:
                    depth_block = max(view.head - self.settings.confirmations + 1, 0)
                    confirmed_nonce = self.rpc.nonce(self.wallet.address, depth_block)
                if nonce < confirmed_nonce and not self._any_known_mined(txs):
                    self._on_foreign_spend(nonce, txs, report)
                continue
            self._keep_pending(nonce, txs, view)
        self._fill_gaps(view, slots)

    def _receipts_of(self, txs: Sequence[ChainTx]) -> dict[int, Receipt | None]:
        receipts: dict[int, Receipt | None] = {}
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
        receipt: Receipt,
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
                set_status(session, row, TxStatus.MINED, detail)
                for other in slot:
                    if other.id != tx.id and other.status != TxStatus.REPLACED:
                        other_row = session.get(ChainTx, other.id)
                        assert other_row is not None
                        set_status(
                            session,
                            other_row,
                            TxStatus.REPLACED,
                            f"nonce {tx.nonce} mined by {tx.tx_hash}",
                        )
            crash_point("after_receipt", self.settings.crash_at)
            tx.block_number, tx.block_hash = block_number, block_hash
        if self._deep_enough(view, block_number):
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
        call = {
            "from": self.wallet.address,
            "to": tx.to_address,
            "data": hex_data(call_data(tx.raw)),
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
        self, tx_id: int, slot: list[ChainTx], receipt: Receipt, report: PumpReport
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
                        ChainRequest.wallet_id == self.wallet.id,
                        ChainRequest.nonce == tx.nonce,
                        ChainRequest.status == RequestStatus.SUBMITTED,
                    )
                    .order_by(ChainRequest.position)
                )
            )
            if tx.kind == TxKind.FILLER:
                set_status(session, tx, TxStatus.CONFIRMED, "filler")
                refused = session.scalars(
                    select(ChainTx.failure_reason)
                    .where(
                        ChainTx.wallet_id == self.wallet.id,
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
                        requeue(request, now, alone=request.alone)
            elif succeeded:
                set_status(session, tx, TxStatus.CONFIRMED)
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
                set_status(session, tx, TxStatus.FAILED, f"reverted: {reason}")
                for request in requests:
                    requeue(request, now, alone=False)
                    request.status = RequestStatus.WAITING
                    request.failure_reason = f"waiting: {reason}"
                report.waiting += len(requests)
            else:
                set_status(session, tx, TxStatus.FAILED, f"reverted: {reason}")
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
                        requeue(request, now, alone=True)
            for other in slot:
                if other.id != tx_id:
                    row = session.get(ChainTx, other.id)
                    if row is not None and row.status in (TxStatus.SIGNED, TxStatus.SENT):
                        set_status(session, row, TxStatus.REPLACED, f"nonce spent by {tx.tx_hash}")
        if tx.status in (TxStatus.CONFIRMED, TxStatus.FAILED):
            CHAIN_TXS.labels(tx.kind).inc()
            if tx.gas_used:
                CHAIN_GAS_USED.labels(tx.kind).inc(tx.gas_used)
        logger.info("tx %s (nonce %s) final: %s", tx.tx_hash, tx.nonce, tx.status)

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
                set_status(session, row, TxStatus.SENT, detail)
            self.sender.broadcast(tx.id, tx.raw)

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
                    set_status(
                        session,
                        row,
                        TxStatus.FAILED,
                        f"nonce {nonce} was spent by a transaction we did not sign",
                    )
            for request in session.scalars(
                select(ChainRequest).where(
                    ChainRequest.wallet_id == self.wallet.id,
                    ChainRequest.nonce == nonce,
                    ChainRequest.status == RequestStatus.SUBMITTED,
                )
            ):
                requeue(request, now, alone=request.alone)
        logger.error("nonce %s of %s spent by a foreign transaction", nonce, self.wallet.address)

    def _keep_pending(self, nonce: int, slot: list[ChainTx], view: ChainView) -> None:
        current = max(slot, key=lambda tx: tx.id)
        if _age_s(current.last_broadcast_at) >= self.settings.rebroadcast_after_s:
            # Never-broadcast bytes (a crash after signing) go at once; pending ones again after
            # a while: that covers dropped txs, a node restarted without its pool, and a wallet
            # that could not pay for gas until it was refilled. Same bytes, same hash.
            outcome = self.sender.broadcast(current.id, current.raw)
        else:
            outcome = None
        stuck = _age_s(current.signed_at) >= self.settings.stuck_after_s
        if outcome == "fee_too_low" or (stuck and nonce == view.nonce):
            self.sender.replace(current, view, reason="fee too low" if outcome else "stuck")

    def _fill_gaps(self, view: ChainView, slots: dict[int, list[ChainTx]]) -> None:
        """Make every unspent nonce below our next one carry a live tx, so none blocks the rest."""
        next_nonce = self.wallet.next_nonce()
        for nonce in range(view.nonce, next_nonce):
            if nonce in slots:
                continue
            with self.sessions() as session:
                last = session.scalars(
                    select(ChainTx)
                    .where(ChainTx.wallet_id == self.wallet.id, ChainTx.nonce == nonce)
                    .order_by(ChainTx.id.desc())
                    .limit(1)
                ).one_or_none()
            if last is None:
                continue  # cannot happen: a nonce is assigned in the same commit as its tx
            if last.status == TxStatus.CONFIRMED:
                # Final by our depth, yet the chain forgot it (a deeper reorg or a node reset to
                # an older state): the same bytes are still valid at that nonce, so send them.
                logger.error("confirmed tx %s vanished from the chain; re-sending", last.tx_hash)
                self.sender.broadcast(last.id, last.raw)
            else:
                logger.warning(
                    "nonce gap at %s (tx %s %s): filler", nonce, last.tx_hash, last.status
                )
                CHAIN_NONCE_GAPS.inc()
                self.sender.replace(last, view, reason="nonce gap", filler=True)
