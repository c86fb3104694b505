"""The worker on PostgreSQL + Redis: woken after commit, one payment for a doubly-asked match."""

from __future__ import annotations

import secrets
import threading

from celery import Celery
from eth_account import Account

from backend.chain.outbox import Payout, request_settlement
from backend.db import create_db_engine, make_session_factory
from tests.chain.conftest import settled_events, wait_for
from tests.fixtures.database import create_migrated_sqlite
from tests.fixtures.redis import REDIS_URL
from tests.fixtures.workers import request_counts, worker_env

DEW = 10**18


def test_same_settlement_asked_concurrently_pays_once(pg_url, deployment, interval_mining, workers):
    engine = create_db_engine(pg_url)
    sessions = make_session_factory(engine)
    env = worker_env(deployment, pg_url, REDIS_URL)
    workers(env)
    # Another process (the API) wakes the worker the way worker.tasks does: a task by name.
    client = Celery(broker=REDIS_URL)

    player = Account.create().address
    match_id = secrets.token_bytes(32)
    barrier = threading.Barrier(6)
    ids: list[int] = []

    def ask() -> None:
        with sessions.begin() as session:
            barrier.wait(timeout=10)
            ids.append(
                request_settlement(
                    session=session,
                    match_id=match_id,
                    result_hash=b"\x05" * 32,
                    payouts=[Payout(amount=7 * DEW, account=player)],
                ).id
            )
        client.send_task("worker.tasks.pump_wallet_task", queue=env["DEW_BROKER_PAYOUTS_QUEUE"])

    threads = [threading.Thread(target=ask) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert len(ids) == 6 and len(set(ids)) == 1

    wait_for(
        lambda: request_counts(sessions) == {"confirmed": 1}, timeout_s=60, what="confirmation"
    )
    assert deployment.contracts.token.functions.balanceOf(player).call() == 7 * DEW
    events = settled_events(interval_mining, deployment.contracts.settlement.address)
    assert events["0x" + match_id.hex()] == 1
    engine.dispose()


def test_beat_pumps_requests_nobody_announced(deployment, interval_mining, workers, tmp_path):

    url = create_migrated_sqlite(tmp_path / "dew.sqlite3")
    sessions = make_session_factory(create_db_engine(url))
    env = worker_env(deployment, url, f"sqla+sqlite:///{tmp_path / 'broker.sqlite3'}")
    env["DEW_BROKER_PUMP_EVERY_S"] = "1"
    worker = workers(env)
    # The worker's own start-up pump has come and gone before the request exists.
    wait_for(lambda: "succeeded" in worker.log(), timeout_s=30, what="the start-up pump")
    beat = workers(env, beat=True)
    wait_for(lambda: "beat: Starting" in beat.log(), timeout_s=30, what="beat to start")
    player = Account.create().address
    with sessions.begin() as session:  # nobody announces it: only beat can find it
        request_settlement(
            session=session,
            match_id=secrets.token_bytes(32),
            result_hash=b"\x06" * 32,
            payouts=[Payout(amount=2 * DEW, account=player)],
        )
    wait_for(
        lambda: request_counts(sessions) == {"confirmed": 1}, timeout_s=60, what="confirmation"
    )
    assert deployment.contracts.token.functions.balanceOf(player).call() == 2 * DEW
