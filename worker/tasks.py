"""Thin tasks: they take ids (or nothing), call the ``jobs`` modules and return.

``pump_wallet_task`` is idempotent (every step re-reads state and guards its
writes), so it acks late and retries on an unreachable node. Beat runs it every
``DEW_BROKER_PUMP_EVERY_S`` (the bound on how long a committed request waits to be
sent), and every worker runs it on start to finish what a killed worker left.
"""

from __future__ import annotations

import logging

from backend.chain import jobs as chain_jobs
from backend.chain.exceptions import RpcUnavailable
from backend.config import get_settings
from worker.celery_app import on_worker_ready, task

logger = logging.getLogger(__name__)


@task(
    acks_late=True,
    autoretry_for=(RpcUnavailable,),
    retry_backoff=True,
    retry_backoff_max=30,
    max_retries=20,
    ignore_result=True,
)
def pump_wallet_task(wait_for_lease: bool = False) -> dict[str, int]:
    """Send queued requests and track open transactions of the operator wallet until idle."""
    outcome = chain_jobs.pump_operator_wallet()
    if outcome["busy"] and wait_for_lease:
        # Another pump holds the lease, possibly a killed one: look again once it expires.
        pump_wallet_task.apply_async(
            kwargs={"wait_for_lease": True}, countdown=get_settings().chain.pump_lease_s
        )
    elif outcome["more"]:
        pump_wallet_task.delay()
    return outcome


@task(acks_late=True, autoretry_for=(RpcUnavailable,), retry_backoff=True, max_retries=5)
def reconcile_task() -> dict[str, int]:
    """Compare confirmed requests with the contracts' events; logs every difference."""
    report = chain_jobs.reconcile_operator_wallet()
    return {"checked": report.checked, "differences": len(report.differences)}


@task(acks_late=True, autoretry_for=(RpcUnavailable,), retry_backoff=True, max_retries=5)
def economy_cycle_task() -> dict[str, int]:
    """Index the registry and vault deposits, plan finished matches, book confirmed ones."""
    from backend.creators.routing import FeeRouting
    from backend.economy import jobs  # the economy imports the chain engine, not the reverse
    from backend.tables.hosting import center_of_table

    return jobs.economy_cycle(recipients=FeeRouting(center_of_table=center_of_table))


@task(acks_late=True, autoretry_for=(RpcUnavailable,), retry_backoff=True, max_retries=5)
def reconcile_economy_task() -> dict[str, int]:
    """Prove the ledger equals the on-chain events; logs and counts every difference."""
    from backend.economy import jobs

    report = jobs.reconcile_economy()
    for difference in report.differences:
        logger.error("ledger differs from the chain: %s", difference)
    return {"ok": int(report.ok), "differences": len(report.differences)}


@task(acks_late=True)
def advance_tournaments_task() -> dict[str, int]:
    """Start due tournaments and rounds, collect results, finish tournaments (prizes)."""
    from backend.competitions import jobs
    from backend.creators.routing import FeeRouting
    from backend.tables.hosting import center_of_table

    return jobs.advance_cycle(recipients=FeeRouting(center_of_table=center_of_table))


@task(acks_late=True, autoretry_for=(RpcUnavailable,), retry_backoff=True, max_retries=5)
def settle_season_rewards_task() -> dict[str, int]:
    """Plan each ended season's leaderboard rewards as one settlement (idempotent: a season
    is planned once, however often this runs or crashes)."""
    from backend.economy import season_rewards

    return season_rewards.settle_cycle()


@on_worker_ready
def _recover_on_start(**_kwargs: object) -> None:
    # A worker killed mid-step leaves signed or sent transactions: resume them now.
    pump_wallet_task.apply_async(kwargs={"wait_for_lease": True})
