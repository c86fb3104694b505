"""A match played to its end by the engine and finished through the server's own commit path
(``backend.tables.live.store.commit_final``) is planned by the economy from the outbox row that
path wrote: the contract between the two packages, checked on the real code."""

from __future__ import annotations

import uuid
from datetime import timedelta

from eth_utils import to_checksum_address
from sqlalchemy import select

from backend.chain import match_ids
from backend.chain.models import ChainRequest
from backend.config import Settings
from backend.db import create_db_engine, make_session_factory
from backend.db.base import utcnow
from backend.economy import jobs, stakes
from backend.economy.models import PlannedSettlement, SeatRecord, SettlementRequest
from backend.economy.seasons import create_season
from backend.tables.live import store
from tests.fixtures.finished_match import bot_played_match

ALICE = to_checksum_address("0x" + "a1" * 20)
CAROL = to_checksum_address("0x" + "c3" * 20)
STAKE = 5 * 10**18
PREFIX = match_ids.deployment_prefix("outbox-test", 31337)


def _play_and_finish(engine) -> tuple[str, list]:
    """A partnership match: Alice (seat 0) and Carol (seat 2) against two bots."""
    seats = [
        {
            "seat": 0,
            "address": ALICE,
            "bot_level": None,
            "avatar_id": 7,
            "admitted_as": "avatar_owner",
        },
        {"seat": 1, "address": None, "bot_level": "easy", "avatar_id": None, "admitted_as": None},
        {"seat": 2, "address": CAROL, "bot_level": None, "avatar_id": None, "admitted_as": "vip"},
        {"seat": 3, "address": None, "bot_level": "easy", "avatar_id": None, "admitted_as": None},
    ]

    def escrow(session, match_id: str) -> None:
        for address in (ALICE, CAROL):
            stakes.credit_deposit(
                session=session,
                address=address,
                amount=STAKE,
                tx_hash="0x" + uuid.uuid4().hex * 2,
                log_index=0,
            )
        # What the server does in the transaction that starts a staked match.
        stakes.escrow_stakes(
            session=session, match_id=match_id, seats=[(0, ALICE), (2, CAROL)], stake=STAKE
        )

    finish, last = bot_played_match(
        engine,
        preset="partnership",
        seats=seats,
        earning=True,  # the final commit issues a sequential chain id
        prefix=PREFIX,
        stake=STAKE,
        still_eligible={0: True, 2: None},
        at_start=escrow,
    )
    assert store.commit_final(engine, last, finish)
    return finish.match_id, finish.outcomes


def test_a_match_finished_by_the_server_is_planned_from_its_outbox_row(pg_url):
    engine = create_db_engine(pg_url)
    sessions = make_session_factory(engine)
    settings = Settings()
    with sessions.begin() as session:
        create_season(
            session=session,
            name="Outbox",
            emission_budget=10**24,
            starts_at=utcnow() - timedelta(hours=1),
            ends_at=utcnow() + timedelta(hours=1),
        )
    # Play until both outcomes were seen: the humans' team winning, and the bots' team.
    finished = []
    while len({bool({o.seat for o in out if o.won} & {0, 2}) for _, out in finished}) < 2:
        assert len(finished) < 40, "40 matches and one team always won"
        finished.append(_play_and_finish(engine))
    report = jobs.plan_finished_matches(session_factory=sessions, settings=settings)
    assert sorted(report.planned) == sorted(m for m, _ in finished) and report.rejected == []
    for match_id, outcomes in finished:
        _check_plan(sessions, settings, match_id, outcomes)
    engine.dispose()


def _check_plan(sessions, settings, match_id, outcomes):
    with sessions() as session:
        row = session.scalars(
            select(SettlementRequest).where(SettlementRequest.match_id == match_id)
        ).one()
        planned = session.get(PlannedSettlement, match_id)
        request = session.get(ChainRequest, planned.chain_request_id)
        records = {
            r.seat: r
            for r in session.scalars(select(SeatRecord).where(SeatRecord.match_id == match_id))
        }
    assert row.status == "planned"
    assert request.payload["match_id"] == row.chain_match_id
    assert match_ids.parse(row.chain_match_id).prefix == PREFIX
    assert request.payload["result_hash"] == row.result_hash
    humans_won = {o.seat for o in outcomes if o.won} & {0, 2}
    paid_seats = {s for s, r in records.items() if int(r.amount) > 0}
    fee = 2 * STAKE * settings.fees.rake_bps // 10_000
    emission = 2 * settings.economy.emission_per_seat  # the two human seats; bots bring none
    if humans_won:  # Alice and Carol's team won: they share the pot and the emission
        assert paid_seats == {0, 2}
        assert int(planned.returned) == 0
        assert int(records[0].emission_share) == int(records[2].emission_share) == emission // 2
        assert records[0].to_avatar and not records[2].to_avatar
    else:  # the bots' team won: the stakes come back net of the fee, the emission returns
        assert {s: int(records[s].stake_share) for s in (0, 2)} == {
            0: (2 * STAKE - fee) // 2,
            2: (2 * STAKE - fee) // 2,
        }
        assert int(planned.returned) == emission
    assert records[1].is_bot and int(records[1].amount) == 0
    total = sum(int(p["amount"]) for p in request.payload["payouts"])
    assert total == 2 * STAKE + emission - int(planned.returned)
