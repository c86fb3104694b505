"""The server's settlement outbox is planned once per match; a bad row is rejected with its
reason and blocks nothing. Real PostgreSQL; the server's own models write the rows."""

from __future__ import annotations

import time
import uuid
from datetime import timedelta

import pytest
from eth_account import Account
from eth_utils import to_checksum_address
from sqlalchemy import select

from backend.chain.models import ChainRequest
from backend.config import Settings
from backend.db import create_db_engine, make_session_factory
from backend.db.base import utcnow
from backend.economy import jobs, stakes
from backend.economy.models import LedgerLeg, PlannedSettlement, SeatRecord, SettlementRequest
from backend.economy.reports import wallet_summary
from backend.economy.seasons import create_season
from backend.tables.models import Match, Table

ALICE = "0x" + "a1" * 20
BOB = "0x" + "b2" * 20
ALICE_CHECKSUM = to_checksum_address(ALICE)
BOB_CHECKSUM = to_checksum_address(BOB)


def _finished(session, *, stake: str, n: int) -> str:
    table_id = match_id = uuid.uuid4().hex
    session.add(
        Table(
            id=table_id,
            preset="dew",
            seat_count=3,
            stake=stake,
            earning=True,
            invite_code=uuid.uuid4().hex,
            turn_timeout_s=30.0,
            status="finished",
        )
    )
    session.flush()
    session.add(
        Match(
            id=match_id,
            table_id=table_id,
            preset="dew",
            seats=[],
            seed="00" * 32,
            seed_commitment="00" * 32,
            status="finished",
        )
    )
    session.flush()
    session.add(
        SettlementRequest(
            idempotency_key=match_id,
            match_id=match_id,
            chain_match_id="0x" + n.to_bytes(32, "big").hex(),
            table_id=table_id,
            preset="dew",
            earning=True,
            stake=stake,
            result_hash="0x" + "ee" * 32,
            seats=[
                {
                    "seat": 0,
                    "address": ALICE,
                    "avatar_id": 3,
                    "is_bot": False,
                    "team": None,
                    "placement": 1,
                    "points": 210,
                    "won": True,
                    "forfeited": False,
                    "admitted_as": "avatar_owner",
                },
                {
                    "seat": 1,
                    "address": BOB,
                    "avatar_id": None,
                    "is_bot": False,
                    "team": None,
                    "placement": 2,
                    "points": 120,
                    "won": False,
                    "forfeited": False,
                    "admitted_as": "vip",
                },
                {
                    "seat": 2,
                    "address": None,
                    "avatar_id": None,
                    "is_bot": True,
                    "team": None,
                    "placement": 3,
                    "points": 40,
                    "won": False,
                    "forfeited": False,
                    "admitted_as": None,
                },
            ],
            finished_at=utcnow(),
            status="pending",
            attempts=0,
        )
    )
    return match_id


def test_pending_matches_are_planned_once_and_bad_rows_rejected(db_url):
    engine = create_db_engine(db_url)
    sessions = make_session_factory(engine)
    settings = Settings()
    with sessions.begin() as session:
        create_season(
            session=session,
            name="Jobs season",
            starts_at=utcnow() - timedelta(hours=1),
            ends_at=utcnow() + timedelta(hours=1),
            emission_budget=10**30,
        )
        good = _finished(session, stake=str(10**18), n=77)
        bad = _finished(session, stake="lots", n=78)
        later = _finished(session, stake="0", n=79)
        unescrowed = _finished(session, stake=str(10**18), n=80)
        for i, player in enumerate((ALICE, BOB)):
            stakes.credit_deposit(
                session=session,
                address=player,
                amount=10**18,
                tx_hash="0x" + "d" * 64,
                log_index=i,
            )
        stakes.escrow_stakes(
            session=session, match_id=good, seats=[(0, ALICE), (1, BOB)], stake=10**18
        )
    report = jobs.plan_finished_matches(session_factory=sessions, settings=settings)
    assert sorted(report.planned) == sorted([good, later])
    assert sorted(report.rejected) == sorted([bad, unescrowed])
    assert jobs.plan_finished_matches(session_factory=sessions, settings=settings).planned == []
    with sessions() as session:
        rows = {r.match_id: r for r in session.scalars(select(SettlementRequest))}
        assert {m: (rows[m].status, rows[m].attempts) for m in (good, bad, later)} == {
            good: ("planned", 1),
            bad: ("rejected", 1),
            later: ("planned", 1),
        }
        assert "lots" in rows[bad].last_error
        assert "in escrow" in rows[unescrowed].last_error
        planned = session.get(PlannedSettlement, good)
        assert (planned.economy, planned.status) == ("staked", "submitted")
        request = session.get(ChainRequest, planned.chain_request_id)
        payouts = request.payload["payouts"]
        # Alice plays her own avatar: her emission share (as its owner at play time) and her
        # stake share go to her wallet in one payout, not through the avatar, so a sale
        # before settlement cannot move it; Bob (VIP) is paid to his wallet; the fee goes to
        # the treasury.
        assert [p.get("account", p.get("avatar_id")) for p in payouts] == [
            ALICE_CHECKSUM,
            BOB_CHECKSUM,
            settings.economy.treasury,
        ]
        legs = session.scalars(select(LedgerLeg).where(LedgerLeg.match_id == good)).all()
        assert sorted(
            (x.party, x.address, x.avatar_id) for x in legs if x.address == ALICE_CHECKSUM
        ) == [
            ("owner", ALICE_CHECKSUM, 3),
            ("wallet", ALICE_CHECKSUM, None),
        ]
        fee = settings.fees.rake_bps * 2 * 10**18 // 10_000
        assert payouts[-1] == {"account": settings.economy.treasury, "amount": str(fee)}
        total = sum(int(p["amount"]) for p in payouts)
        assert total == 2 * 10**18 + int(planned.emission) - int(planned.returned)
        seats = session.scalars(select(SeatRecord).where(SeatRecord.match_id == good)).all()
        assert [s.is_bot for s in seats] == [False, False, True]
        assert session.get(PlannedSettlement, bad) is None
    engine.dispose()


@pytest.fixture
def own_chain(tmp_path):
    """A chain of this test's own: reconciliation reads the whole chain, so a chain shared
    with another database would (rightly) show that database's payments as differences."""
    from web3 import Web3

    from backend.chain.contracts import Contracts, save_manifest
    from backend.chain.deploy import deploy_all
    from backend.devstack.anvil import Anvil
    from tests.fixtures.anvil import Deployment

    with Anvil() as node:
        w3 = Web3(Web3.HTTPProvider(node.rpc_url))
        deployer, operator, *players = node.keys
        manifest = deploy_all(w3, deployer, operator=Account.from_key(operator).address)
        path = save_manifest(manifest, tmp_path / "deployment.json")
        yield Deployment(
            anvil=node,
            w3=w3,
            manifest=manifest,
            manifest_path=path,
            contracts=Contracts(w3, manifest),
            deployer_key=deployer,
            operator_key=operator,
            player_keys=tuple(players),
        )


def test_economy_cycle_takes_a_server_match_to_a_reconciled_payment(own_chain, db_url, monkeypatch):
    """The worker's periodic pass, wired from settings alone: outbox row -> plan -> chain
    (the real TX engine) -> ledger booked after confirmations -> reconciliation."""
    deployment = own_chain
    from backend.chain.calls import ContractCalls
    from backend.chain.engine import Engine
    from backend.chain.rpc import Rpc
    from backend.config import ChainSettings, get_settings

    monkeypatch.setenv("DEW_DB_URL", db_url)
    monkeypatch.setenv("DEW_CHAIN_RPC_URL", deployment.anvil.rpc_url)
    monkeypatch.setenv("DEW_CHAIN_MANIFEST_PATH", str(deployment.manifest_path))
    monkeypatch.setenv("DEW_ECONOMY_CONFIRMATIONS", "2")
    get_settings.cache_clear()
    jobs._process_wiring.cache_clear()
    try:
        engine = create_db_engine(db_url)
        sessions = make_session_factory(engine)
        player = Account.create().address
        with sessions.begin() as session:
            match_id = _finished(session, stake="0", n=uuid.uuid4().int)
            row = session.scalars(
                select(SettlementRequest).where(SettlementRequest.match_id == match_id)
            ).one()
            # One paid player, admitted with a VIP pass; the other seats are bots.
            row.seats = [
                {**s, "address": player, "avatar_id": None, "admitted_as": "vip"}
                if s["seat"] == 0
                else {**s, "address": None, "is_bot": True, "admitted_as": None}
                for s in row.seats
            ]
        first = jobs.economy_cycle()
        assert first["planned"] == 1 and first["paid"] == 0
        tx_engine = Engine(
            session_factory=sessions,
            rpc=Rpc(deployment.anvil.rpc_url),
            account=Account.from_key(deployment.operator_key),
            chain_id=deployment.manifest.chain_id,
            calls=ContractCalls(deployment.contracts),
            settings=ChainSettings(confirmations=1, poll_interval_s=0.05),
        )
        with sessions() as session:
            request_id = session.get(PlannedSettlement, match_id).chain_request_id
        deadline = time.monotonic() + 30
        while True:
            tx_engine.step()
            with sessions() as session:
                request = session.get(ChainRequest, request_id)
                if request.status in ("confirmed", "failed"):
                    assert request.status == "confirmed", request.failure_reason
                    break
            assert time.monotonic() < deadline, "not confirmed in 30s"
            time.sleep(0.05)
        # One block short of the economy's depth: nothing is booked yet.
        assert jobs.economy_cycle()["paid"] == 0
        deployment.w3.provider.make_request("evm_mine", [])
        # The matches the test above planned on this database are sent by the same engine
        # (their owner-played avatar rewards go to wallets, so they pay too): count ours.
        assert jobs.economy_cycle()["paid"] >= 1
        with sessions() as session:
            assert session.get(PlannedSettlement, match_id).status == "paid"
            summary = wallet_summary(session=session, address=player)
        paid_on_chain = deployment.contracts.token.functions.balanceOf(player).call()
        assert summary["paid"] == paid_on_chain > 0
        report = jobs.reconcile_economy()
        assert report.ok, report.differences
        engine.dispose()
    finally:
        get_settings.cache_clear()
        jobs._process_wiring.cache_clear()
