"""Thin tasks: they take ids (or nothing), call ``backend.chain.service`` and return.

``pump_wallet_task`` is idempotent (every step re-reads state and guards its
writes), so it acks late and retries on an unreachable node. The outbox wakes it
after each commit that wrote requests; beat runs it periodically as a backstop,
and every worker runs it on start to finish what a killed worker left.
"""

from __future__ import annotations

import logging

from celery.signals import worker_ready

from backend.chain import service
from backend.chain.exceptions import RpcUnavailable
from backend.chain.outbox import add_after_commit_listener
from backend.config import get_settings
from worker.celery_app import app

logger = logging.getLogger(__name__)


@app.task(
    acks_late=True,
    autoretry_for=(RpcUnavailable,),
    retry_backoff=True,
    retry_backoff_max=30,
    max_retries=20,
    ignore_result=True,
)
def pump_wallet_task(wait_for_lease: bool = False) -> dict[str, int]:
    """Send queued requests and track open transactions of the operator wallet until idle."""
    outcome = service.pump_operator_wallet()
    if outcome["busy"] and wait_for_lease:
        # Another pump holds the lease, possibly a killed one: look again once it expires.
        pump_wallet_task.apply_async(
            kwargs={"wait_for_lease": True}, countdown=get_settings().chain.pump_lease_s
        )
    elif outcome["more"]:
        pump_wallet_task.delay()
    return outcome


@app.task(acks_late=True, autoretry_for=(RpcUnavailable,), retry_backoff=True, max_retries=5)
def reconcile_task() -> dict[str, int]:
    """Compare confirmed requests with the contracts' events; logs every difference."""
    report = service.reconcile_operator_wallet()
    return {"checked": report.checked, "differences": len(report.differences)}


@app.task(acks_late=True, autoretry_for=(RpcUnavailable,), retry_backoff=True, max_retries=5)
def economy_cycle_task() -> dict[str, int]:
    """Index the registry and vault deposits, plan finished matches, book confirmed ones."""
    from backend.economy import jobs  # the economy imports the chain engine, not the reverse

    return jobs.economy_cycle()


@app.task(acks_late=True, autoretry_for=(RpcUnavailable,), retry_backoff=True, max_retries=5)
def reconcile_economy_task() -> dict[str, int]:
    """Prove the ledger equals the on-chain events; logs and counts every difference."""
    from backend.economy import jobs

    report = jobs.reconcile_economy()
    for difference in report.differences:
        logger.error("ledger differs from the chain: %s", difference)
    return {"ok": int(report.ok), "differences": len(report.differences)}


@app.task(acks_late=True)
def advance_tournaments_task() -> dict[str, int]:
    """Start due tournaments and rounds, collect results, finish tournaments (prizes)."""
    from backend.competitions import jobs

    return jobs.advance_cycle()


def notify_pump() -> None:
    pump_wallet_task.delay()


def install_outbox_notifier() -> None:
    """Wake a pump after every commit that wrote outbox requests (call once per process)."""
    add_after_commit_listener(notify_pump)


@worker_ready.connect
def _recover_on_start(**_kwargs: object) -> None:
    # A worker killed mid-step leaves signed or sent transactions: resume them now.
    pump_wallet_task.apply_async(kwargs={"wait_for_lease": True})
