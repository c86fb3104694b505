"""Shared pieces for the transaction-engine tests: a deployed chain with interval mining,
an in-process engine bound to it, and helpers that read the truth from the chain."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from eth_account import Account
from sqlalchemy import Engine as DbEngine
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from backend.chain.calls import MATCH_SETTLED, ContractCalls
from backend.chain.engine import Engine
from backend.chain.models import ChainRequest, ChainTx
from backend.chain.rpc import Rpc
from backend.config import ChainSettings
from backend.db import create_db_engine, make_session_factory
from backend.devstack import stack
from tests.fixtures.database import create_migrated_sqlite

BLOCK_TIME_S = 1


def wait_for(condition: Callable[[], Any], *, timeout_s: float, what: str, every_s: float = 0.1):
    """Poll ``condition`` until it returns something truthy; fail with ``what`` at the deadline."""
    try:
        return stack.wait_for(what, condition, timeout_s=timeout_s, every_s=every_s)
    except stack.StackFailed as error:
        raise AssertionError(str(error)) from None


def engine_settings(**overrides: Any) -> ChainSettings:
    base = {
        "confirmations": 2,
        "poll_interval_s": 0.1,
        "rebroadcast_after_s": 1.0,
        "stuck_after_s": 600.0,
        "pump_lease_s": 2.0,
    }
    return ChainSettings(**{**base, **overrides})


@pytest.fixture(scope="module")
def interval_mining(deployment) -> Iterator[Rpc]:
    """The module's chain mining a block every second (deployment itself ran on automine)."""
    rpc = Rpc(deployment.anvil.rpc_url)
    rpc.call("evm_setIntervalMining", BLOCK_TIME_S)
    yield rpc
    rpc.close()


@pytest.fixture
def fresh_db(tmp_path) -> Iterator[sessionmaker[Session]]:
    """A new migrated SQLite database per test (the engine state must not leak between tests)."""
    url = create_migrated_sqlite(tmp_path / "dew.sqlite3")
    engine: DbEngine = create_db_engine(url)
    yield make_session_factory(engine)
    engine.dispose()


@pytest.fixture
def make_engine(deployment, interval_mining) -> Callable[..., Engine]:
    calls = ContractCalls(deployment.contracts)

    def make(sessions: sessionmaker[Session], rpc_url: str | None = None, **overrides) -> Engine:
        return Engine(
            session_factory=sessions,
            rpc=Rpc(rpc_url or deployment.anvil.rpc_url),
            account=Account.from_key(deployment.operator_key),
            chain_id=deployment.manifest.chain_id,
            calls=calls,
            settings=engine_settings(**overrides),
        )

    return make


def statuses(sessions: sessionmaker[Session]) -> dict[str, int]:
    with sessions() as session:
        return dict(
            session.execute(
                select(ChainRequest.status, func.count()).group_by(ChainRequest.status)
            ).all()
        )


def tx_statuses(sessions: sessionmaker[Session]) -> dict[str, int]:
    with sessions() as session:
        return dict(
            session.execute(select(ChainTx.status, func.count()).group_by(ChainTx.status)).all()
        )


def settled_events(rpc: Rpc, settlement_address: str) -> dict[str, int]:
    """How many MatchSettled events each match id has on chain."""
    logs = rpc.call(
        "eth_getLogs",
        {"address": settlement_address, "topics": [MATCH_SETTLED], "fromBlock": "0x0"},
    )
    counts: dict[str, int] = {}
    for log in logs:
        counts[log["topics"][1].lower()] = counts.get(log["topics"][1].lower(), 0) + 1
    return counts


def pump_until(engine: Engine, condition: Callable[[], Any], *, timeout_s: float, what: str):
    """Run engine steps (as the worker's pump would) until ``condition`` holds."""

    def step_and_check():
        try:
            engine.step()
        except Exception as exc:  # a flaky node in a fault test: the next step retries
            if not isinstance(exc, (ConnectionError, OSError)) and "Rpc" not in type(exc).__name__:
                raise
        return condition()

    return wait_for(step_and_check, timeout_s=timeout_s, what=what, every_s=0.1)
