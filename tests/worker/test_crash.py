"""SIGKILL a real Celery worker at each step of sending, restart it, and check the chain.

The crash hook (``DEW_CHAIN_CRASH_AT``) kills the worker process at a named step.
After a restart without it, every payout must be on chain exactly once (balances
and ``MatchSettled`` events) and every avatar minted exactly once.
"""

from __future__ import annotations

import secrets

import pytest
from eth_account import Account
from sqlalchemy import select

from backend.chain.calls import ContractCalls
from backend.chain.models import ChainRequest, ChainTx, TxStatus
from backend.chain.outbox import Payout, request_mint, request_settlement
from backend.chain.reconcile import reconcile
from backend.chain.rpc import Rpc
from backend.db import create_db_engine, make_session_factory
from tests.chain.conftest import settled_events, wait_for
from tests.fixtures.database import (
    create_migrated_pg_database,
    create_migrated_sqlite,
    drop_pg_database,
)
from tests.fixtures.redis import REDIS_URL
from tests.fixtures.workers import request_counts, worker_env

DEW = 10**18
MATCHES = 12


@pytest.fixture
def database(request, tmp_path):
    """A fresh database per test: SQLite, or PostgreSQL for the production-like runs."""
    if request.param == "postgresql":
        url = create_migrated_pg_database()
    else:
        url = create_migrated_sqlite(tmp_path / "dew.sqlite3")
    engine = create_db_engine(url)
    yield url, make_session_factory(engine)
    engine.dispose()
    if request.param == "postgresql":
        drop_pg_database(url)


def _broker(kind: str, tmp_path) -> str:
    return REDIS_URL if kind == "redis" else f"sqla+sqlite:///{tmp_path / 'broker.sqlite3'}"


@pytest.mark.parametrize(
    ("step", "database", "broker"),
    [
        ("after_sign", "sqlite", "sqlite"),
        ("after_broadcast", "postgresql", "redis"),
        ("after_receipt", "sqlite", "sqlite"),
    ],
    indirect=["database"],
)
def test_worker_killed_at_a_step_loses_and_duplicates_nothing(
    step, database, broker, deployment, interval_mining, workers, tmp_path
):
    db_url, sessions = database
    start_block = deployment.w3.eth.block_number  # the chain is shared by this module's tests
    owners = [Account.create().address for _ in range(3)]
    players = [Account.create().address for _ in range(4)]
    match_ids = [secrets.token_bytes(32) for _ in range(MATCHES)]
    with sessions.begin() as session:
        # The mint goes first, so the crash hits it: mints are not idempotent on chain.
        mint_id = request_mint(session=session, recipients=owners, idempotency_key="mint").id
        for k, match_id in enumerate(match_ids):
            request_settlement(
                session=session,
                match_id=match_id,
                result_hash=secrets.token_bytes(32),
                payouts=[Payout(amount=DEW, account=players[(k + j) % 4]) for j in range(2)],
            )

    env = worker_env(deployment, db_url, _broker(broker, tmp_path))
    doomed = workers({**env, "DEW_CHAIN_CRASH_AT": step})
    wait_for(lambda: not doomed.alive(), timeout_s=60, what=f"the worker to die at {step}")
    assert doomed.process.returncode == -9, doomed.log()[-3000:]
    assert f"SIGKILL at {step}" in doomed.log()

    rpc = Rpc(deployment.anvil.rpc_url)
    with sessions() as session:
        first = session.scalars(select(ChainTx).order_by(ChainTx.id)).first()
    # The database was left exactly where the step says.
    if step == "after_sign":
        assert first.status == TxStatus.SIGNED and first.raw
        assert rpc.call("eth_getTransactionByHash", first.tx_hash) is None
    elif step == "after_broadcast":
        assert first.status == TxStatus.SIGNED
        assert rpc.call("eth_getTransactionByHash", first.tx_hash) is not None
    else:
        assert first.status == TxStatus.MINED

    survivor = workers(env)
    wait_for(
        lambda: request_counts(sessions) == {"confirmed": MATCHES + 1},
        timeout_s=60,
        what="every request confirmed after the restart",
    )
    assert survivor.alive()

    token = deployment.contracts.token
    avatar = deployment.contracts.avatar
    # 12 matches x 2 payouts of 1 DEW over 4 players: 6 DEW each, paid exactly once.
    assert [token.functions.balanceOf(p).call() for p in players] == [6 * DEW] * 4
    events = settled_events(rpc, deployment.contracts.settlement.address)
    assert [events.get("0x" + m.hex(), 0) for m in match_ids] == [1] * MATCHES
    assert [avatar.functions.balanceOf(o).call() for o in owners] == [1, 1, 1]
    with sessions() as session:
        token_ids = session.get(ChainRequest, mint_id).result["token_ids"]
        tx_count = len(session.scalars(select(ChainTx)).all())
    assert [avatar.functions.ownerOf(t).call() for t in token_ids] == owners
    # The killed worker's transaction was re-sent as the same bytes, never re-signed.
    assert tx_count == 2
    report = reconcile(
        session_factory=sessions,
        rpc=rpc,
        calls=ContractCalls(deployment.contracts),
        chain_id=deployment.manifest.chain_id,
        from_block=start_block,
    )
    assert report.ok, report.differences
