"""The registry indexer believes an event only at the confirmation depth, applies it once,
and a planning race between workers plans every finished match exactly once."""

from __future__ import annotations

import threading
import uuid
from datetime import timedelta

from sqlalchemy import func, select

from backend.chain.models import ChainRequest
from backend.config import Settings
from backend.db import create_db_engine, make_session_factory
from backend.db.base import utcnow
from backend.economy import jobs
from backend.economy.chain_reader import ChainReader
from backend.economy.models import PlannedSettlement, ScreenedOwner, Season, SettlementRequest
from backend.economy.scholarships.indexer import index_registry
from backend.economy.scholarships.transactions import ScholarshipTxBuilder
from backend.economy.seasons import create_season
from backend.tables.models import Match, Table
from tests.economy.chain_helpers import address, send


def test_events_wait_for_the_confirmation_depth(deployment, pg_url):
    engine = create_db_engine(pg_url)
    sessions = make_session_factory(engine)
    reader = ChainReader(deployment.contracts, confirmations=3)
    index_registry(session_factory=sessions, reader=reader)
    owner = address(deployment.player_keys[5])
    builder = ScholarshipTxBuilder(deployment.contracts)
    send(
        deployment.w3,
        deployment.operator_key,
        builder.screen_owner(screener=deployment.operator, owner=owner),
    )
    seen = []
    for _ in range(3):
        index_registry(session_factory=sessions, reader=reader)
        with sessions() as session:
            seen.append(session.get(ScreenedOwner, owner) is not None)
        deployment.w3.provider.make_request("evm_mine", [])
    # Mined in block N: believed once N+2 exists (three blocks including its own).
    assert seen == [False, False, True]
    assert index_registry(session_factory=sessions, reader=reader).events == 0
    engine.dispose()


def test_racing_workers_plan_each_match_once(pg_url):
    engine = create_db_engine(pg_url)
    sessions = make_session_factory(engine)
    settings = Settings()
    with sessions.begin() as session:
        create_season(
            session=session,
            name="Race",
            starts_at=utcnow() - timedelta(hours=1),
            ends_at=utcnow() + timedelta(hours=1),
            emission_budget=10**24,
        )
        ids = []
        for n in range(24):
            table_id = uuid.uuid4().hex
            session.add(
                Table(
                    id=table_id,
                    preset="dew",
                    seat_count=2,
                    stake="0",
                    earning=True,
                    invite_code=uuid.uuid4().hex,
                    turn_timeout_s=30.0,
                )
            )
            session.flush()
            session.add(
                Match(
                    id=table_id,
                    table_id=table_id,
                    preset="dew",
                    seats=[],
                    seed="00" * 32,
                    seed_commitment="00" * 32,
                )
            )
            session.flush()
            session.add(
                SettlementRequest(
                    idempotency_key=table_id,
                    match_id=table_id,
                    chain_match_id="0x" + (1000 + n).to_bytes(32, "big").hex(),
                    table_id=table_id,
                    preset="dew",
                    earning=True,
                    stake="0",
                    result_hash="0x" + "ab" * 32,
                    seats=[
                        {"seat": 0, "address": "0x" + f"{n + 1:040x}", "placement": 1, "won": True},
                        {"seat": 1, "address": None, "placement": 2},
                    ],
                    finished_at=utcnow(),
                    status="pending",
                    attempts=0,
                )
            )
            ids.append(table_id)
    results, errors = [], []

    def worker():
        try:
            results.append(jobs.plan_finished_matches(session_factory=sessions, settings=settings))
        except Exception as exc:  # surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not errors, errors
    planned = [m for r in results for m in r.planned]
    assert sorted(planned) == sorted(ids), "a match was planned twice or not at all"
    with sessions() as session:
        assert session.scalar(select(func.count()).select_from(PlannedSettlement)) == 24
        assert session.scalar(select(func.count()).select_from(ChainRequest)) == 24
        season = session.scalars(select(Season)).one()
        # One human seat each (bots bring no emission), the winner takes all: no lost update
        # of the budget under the race.
        assert int(season.emitted) == 24 * settings.economy.emission_per_seat
    engine.dispose()
