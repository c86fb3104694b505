"""The transaction engine for one (chain, wallet): outbox requests in, confirmed effects out.

``Engine`` composes the parts and runs the loop. One ``pump`` per wallet (a lease keeps it
to one, for efficiency only) repeats:

1. *track* (``tracker.py``): read the wallet's chain nonce and receipts of open slots,
   record mined transactions, confirm them at the configured depth (applying their
   effects to the requests), detect reorgs, re-broadcast stored bytes, replace stuck ones
   at the same nonce with higher fees (``fees.py``), and fill nonce gaps;
2. *send* (``sender.py``): pack queued requests into one call, sign it, and store the
   signed bytes with its nonce under the wallet's row lock (``nonces.py``); only then
   broadcast.

Correctness never depends on the lease: a nonce and a set of requests are claimed by a
compare-and-set under the wallet lock (``Sender._claim``), and every other action is an
idempotent re-send of stored bytes or a state change guarded by the current state.
docs/transactions.md walks through the argument.
"""

from __future__ import annotations

import logging
import time

from eth_account.signers.local import LocalAccount
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from backend.chain.exceptions import ChainError, ChainValueError
from backend.chain.models import ChainRequest, ChainTx, RequestStatus, TxStatus
from backend.chain.nonces import ChainView, Wallet, read_view
from backend.chain.rpc import Rpc
from backend.chain.sender import CallBuilder, PumpReport, Sender
from backend.chain.tracker import Tracker
from backend.config import ChainSettings

__all__ = ["CallBuilder", "ChainView", "Engine", "PumpReport"]

logger = logging.getLogger(__name__)


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
        self.wallet = Wallet(
            sessions=session_factory,
            chain_id=chain_id,
            address=self.address,
            lease_s=settings.pump_lease_s,
            owner=Wallet.owner_name(self),
        )
        self.sender = Sender(
            sessions=session_factory,
            rpc=rpc,
            wallet=self.wallet,
            account=account,
            chain_id=chain_id,
            calls=calls,
            settings=settings,
        )
        self.tracker = Tracker(
            sessions=session_factory,
            rpc=rpc,
            wallet=self.wallet,
            sender=self.sender,
            calls=calls,
            settings=settings,
        )

    def acquire_lease(self) -> bool:
        return self.wallet.acquire_lease()

    def release_lease(self) -> None:
        self.wallet.release_lease()

    # ------------------------------------------------------------------ the loop
    def has_work(self) -> bool:
        with self.sessions() as session:
            queued = session.scalar(
                select(func.count())
                .select_from(ChainRequest)
                .where(
                    ChainRequest.chain_id == self.chain_id,
                    ChainRequest.status == RequestStatus.QUEUED,
                )
            )
            return self.wallet.has_open_tx(session) or bool(queued)

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
        return read_view(self.rpc, self.address)

    def step(self, report: PumpReport | None = None) -> None:
        report = report if report is not None else PumpReport()
        view = self.view()
        self.track(view, report)
        self.send(view, report)

    def track(self, view: ChainView, report: PumpReport) -> None:
        self.tracker.track(view, report)

    def send(self, view: ChainView, report: PumpReport) -> None:
        self.sender.send(view, report)

    # ------------------------------------------------------------------ operator actions
    def cancel_tx(self, tx_hash: str) -> ChainTx | None:
        """Replace a pending tx with a filler at its nonce; its requests go back to the queue."""
        with self.sessions() as session:
            tx = session.scalars(
                select(ChainTx).where(
                    ChainTx.tx_hash == tx_hash.lower(), ChainTx.wallet_id == self.wallet.id
                )
            ).one_or_none()
        if tx is None:
            raise ChainValueError(f"no transaction of this wallet with hash {tx_hash!r}")
        if tx.status not in (TxStatus.SIGNED, TxStatus.SENT, TxStatus.REPLACED):
            raise ChainValueError(f"transaction {tx_hash!r} is {tx.status}; only pending ones")
        return self.sender.replace(tx, self.view(), reason="cancelled by operator", filler=True)
