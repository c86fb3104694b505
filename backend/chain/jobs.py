"""The operator wallet's jobs, wired from settings: pump it and reconcile it (worker tasks, CLI).

As ``economy/jobs.py`` and ``competitions/jobs.py`` are for their packages: the one place
the worker and ``dew chain`` enter the chain package.
"""

from __future__ import annotations

import logging
from functools import lru_cache

from eth_account import Account

from backend.chain.engine import Engine
from backend.chain.reconcile import ReconcileReport, reconcile
from backend.chain.rpc import Rpc
from backend.chain.sender import CallBuilder
from backend.config import Settings, get_settings
from backend.db import create_db_engine, make_session_factory

logger = logging.getLogger(__name__)


def contract_calls(settings: Settings, rpc_url: str | None = None) -> CallBuilder:
    from backend.chain.calls import ContractCalls

    return ContractCalls.from_manifest(
        rpc_url or settings.chain.rpc_url, settings.chain.manifest_path
    )


@lru_cache
def operator_engine() -> Engine:
    """The engine for the operator wallet in settings (one per process, reused by tasks)."""
    settings = get_settings()
    db = create_db_engine(settings.db.url, echo=settings.db.echo)
    rpc = Rpc(settings.chain.rpc_url, timeout_s=settings.chain.rpc_timeout_s)
    return Engine(
        session_factory=make_session_factory(db),
        rpc=rpc,
        account=Account.from_key(settings.chain.operator_key),
        chain_id=settings.chain.chain_id,
        calls=contract_calls(settings),
        settings=settings.chain,
    )


def pump_operator_wallet() -> dict[str, int]:
    engine = operator_engine()
    report = engine.pump()
    busy = report.rounds == 0
    more = not busy and engine.has_work()
    return {
        "busy": int(busy),
        "more": int(more),
        "sent": report.sent,
        "confirmed": report.confirmed,
        "failed": report.failed,
    }


def reconcile_operator_wallet() -> ReconcileReport:
    engine = operator_engine()
    report = reconcile(
        session_factory=engine.sessions,
        rpc=engine.rpc,
        calls=engine.calls,
        chain_id=engine.chain_id,
    )
    for difference in report.differences:
        logger.error("reconciliation: %s", difference)
    return report
