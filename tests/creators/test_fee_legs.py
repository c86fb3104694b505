"""A staked match's fee as legs of its one settlement, on the real planner and ledger
(SQLite and PostgreSQL): the hosting center, each referred player's creator (capped per
season, bounded in time) and the treasury; the legs sum to the fee and to the payouts."""

from __future__ import annotations

import secrets
from datetime import UTC, datetime, timedelta

import pytest
from eth_account import Account
from sqlalchemy import select

from backend.centers.models import GameCenter
from backend.chain.models import ChainRequest
from backend.creators import service as creators
from backend.creators.routing import FeeRouting
from backend.db import create_db_engine, make_session_factory
from backend.economy import stakes
from backend.economy.fees.schedule import FeeSchedule
from backend.economy.models import LedgerLeg, PlannedSettlement
from backend.economy.policy import DEW, FinishedMatch, SeatResult, default_policies
from backend.economy.seasons import create_season
from backend.economy.settlement import plan_settlement
from backend.tables.hosting import center_of_table
from backend.tables.models import Table
from tests.creators.helpers import bind

STAKE = 10 * DEW
TREASURY = Account.create().address
CENTER_OWNER = Account.create().address
POLICIES = default_policies(fee_bps=500, emission_per_seat=0)


def _center_table(sessions, *, renter: str | None = None) -> tuple[int, str]:
    """A Game Center (the mirror's row, owned by CENTER_OWNER) and a table it hosts."""
    center_id = secrets.randbelow(2**40) + 1
    table_id = secrets.token_hex(16)
    with sessions.begin() as session:
        session.add(
            GameCenter(
                center_id=center_id,
                name="Dominó Club",
                country="PR",
                city="San Juan",
                lat_e2=1846,
                lon_e2=-6611,
                capacity=4,
                owner=CENTER_OWNER,
                renter=renter,
                rented_until=datetime.now(UTC) + timedelta(days=1) if renter else None,
                minted_block=1,
                updated_block=1,
            )
        )
        session.add(
            Table(
                id=table_id,
                preset="draw",
                seat_count=3,
                stake=str(STAKE),
                earning=True,
                invite_code=secrets.token_hex(16),
                turn_timeout_s=30.0,
                status="playing",
                center_id=center_id,
            )
        )
    return center_id, table_id


@pytest.fixture
def sessions(db_url):
    engine = create_db_engine(db_url)
    yield make_session_factory(engine)
    engine.dispose()


def _staked_match(sessions, players, n: int, table_id: str | None = None) -> FinishedMatch:
    match_id = secrets.token_hex(16)
    with sessions.begin() as session:
        for p in players:
            stakes.credit_deposit(
                session=session,
                address=p.address,
                amount=STAKE,
                tx_hash="0x" + secrets.token_hex(32),
                log_index=0,
            )
        stakes.escrow_stakes(
            session=session,
            match_id=match_id,
            seats=[(i, p.address) for i, p in enumerate(players)],
            stake=STAKE,
        )
    return FinishedMatch(
        match_id=match_id,
        chain_match_id="0x" + secrets.token_hex(32),
        result_hash="0x" + "ab" * 32,
        earning=True,
        stake=STAKE,
        table_id=table_id or secrets.token_hex(16),
        seats=tuple(
            SeatResult(seat=i, address=p.address, placement=i + 1, won=i == 0)
            for i, p in enumerate(players)
        ),
    )


def _legs(sessions, match_id: str) -> dict[str, list[tuple[int | None, str, int]]]:
    with sessions() as session:
        out: dict[str, list[tuple[int | None, str, int]]] = {}
        for leg in session.scalars(select(LedgerLeg).where(LedgerLeg.match_id == match_id)):
            out.setdefault(leg.party, []).append((leg.seat, leg.address, int(leg.amount)))
        return out


def test_a_referred_players_match_at_a_center_pays_every_leg_in_one_batch(sessions):
    creator, p1, p2, p3 = (Account.create() for _ in range(4))
    schedule = FeeSchedule(center_bps=2_000, creator_bps=1_000, creator_cap_per_season=10 * DEW)
    with sessions() as session:
        creators.register(session=session, address=creator.address, code="ALICE" + p1.address[2:6])
        code = creators.creator_of_wallet(session=session, address=creator.address).code
    bind(sessions, p1, code, schedule)
    bind(sessions, p2, code, schedule)
    start = datetime.now(UTC) - timedelta(minutes=1)
    with sessions.begin() as session:
        season = create_season(
            session=session,
            name=f"fees-{secrets.token_hex(4)}",
            starts_at=start,
            ends_at=start + timedelta(days=7),
            emission_budget=0,
        )
        season_id = season.id
    _, table_id = _center_table(sessions)
    match = _staked_match(sessions, [p1, p2, p3], 1, table_id)
    with sessions.begin() as session:
        planned = plan_settlement(
            session=session,
            match=match,
            finished_at=datetime.now(UTC),
            policies=POLICIES,
            treasury=TREASURY,
            chain_id=31337,
            schedule=schedule,
            recipients=FeeRouting(center_of_table=center_of_table),
        )
        request_id = planned.chain_request_id
        assert planned.season_id == season_id
    fee = 3 * STAKE * 500 // 10_000  # 1.5 DEW
    legs = _legs(sessions, match.match_id)
    assert legs["fee_center"] == [(None, CENTER_OWNER, fee * 2_000 // 10_000)]
    # Each referred player paid a third of the fee: its creator earns 10% of that third.
    per_player = fee // 3 * 1_000 // 10_000
    assert sorted(legs["fee_creator"]) == [
        (0, creator.address, per_player),
        (1, creator.address, per_player),
    ]
    assert legs["treasury"] == [(None, TREASURY, fee - fee * 2_000 // 10_000 - 2 * per_player)]
    assert sum(x[2] for party in legs.values() for x in party) == 3 * STAKE
    with sessions() as session:
        payload = session.get(ChainRequest, request_id).payload
    accounts = {p["account"]: int(p["amount"]) for p in payload["payouts"]}
    # One settle entry: the center and the creator (its two legs merged) are kind-0 payouts.
    assert accounts[CENTER_OWNER] == fee * 2_000 // 10_000
    assert accounts[creator.address] == 2 * per_player
    assert sum(accounts.values()) == 3 * STAKE


def test_a_rented_centers_legs_go_to_its_renter(sessions):
    renter = Account.create().address
    _, table_id = _center_table(sessions, renter=renter)
    p1, p2 = Account.create(), Account.create()
    match = _staked_match(sessions, [p1, p2], 0, table_id)
    with sessions.begin() as session:
        plan_settlement(
            session=session,
            match=match,
            finished_at=datetime.now(UTC),
            policies=POLICIES,
            treasury=TREASURY,
            chain_id=31337,
            schedule=FeeSchedule(),
            recipients=FeeRouting(center_of_table=center_of_table),
        )
    fee = 2 * STAKE * 500 // 10_000
    legs = _legs(sessions, match.match_id)
    assert legs["fee_center"] == [(None, renter, fee * 2_000 // 10_000)]
    assert legs["treasury"] == [(None, TREASURY, fee - fee * 2_000 // 10_000)]


def test_a_creators_earnings_stop_at_the_season_cap_and_after_its_period(sessions):
    creator, p1, p2 = (Account.create() for _ in range(3))
    fee = 2 * STAKE * 500 // 10_000
    per_player = fee // 2 * 1_000 // 10_000
    cap = per_player + per_player // 2
    schedule = FeeSchedule(creator_cap_per_season=cap, creator_period_days=1)
    with sessions() as session:
        code = creators.register(
            session=session, address=creator.address, code="CAP" + p1.address[2:8]
        ).code
    bind(sessions, p1, code, schedule)

    def plan(at: datetime) -> dict[str, list[tuple[int | None, str, int]]]:
        match = _staked_match(sessions, [p1, p2], 0)
        with sessions.begin() as session:
            plan_settlement(
                session=session,
                match=match,
                finished_at=at,
                policies=POLICIES,
                treasury=TREASURY,
                chain_id=31337,
                schedule=schedule,
                recipients=FeeRouting(center_of_table=center_of_table),
            )
        return _legs(sessions, match.match_id)

    now = datetime.now(UTC)
    first, second, third = plan(now), plan(now), plan(now)
    assert first["fee_creator"] == [(0, creator.address, per_player)]
    assert second["fee_creator"] == [(0, creator.address, cap - per_player)]
    assert "fee_creator" not in third  # the cap is spent: the treasury takes it all
    assert third["treasury"] == [(None, TREASURY, fee)]
    later = plan(now + timedelta(days=2))  # the binding's period is over
    assert "fee_creator" not in later
    with sessions() as session:
        assert creators.beneficiary(session, p1.address, now) == creator.address
        assert creators.beneficiary(session, p1.address, now + timedelta(days=2)) is None
        assert creators.beneficiary(session, p2.address, now) is None
        board = creators.dashboard(session=session, address=creator.address)
        settled = session.scalars(select(PlannedSettlement.match_id)).all()
    assert settled
    assert [p["player"] for p in board["players"]] == [p1.address]
    assert board["players"][0]["matches"] == 4
    assert sum(e["pending"] for e in board["earnings"]) == cap
