"""The fee legs on a real anvil: a staked match at a Game Center with a referred player pays
the treasury, the center's payee and the creator in ONE settle transaction sent by the real
transaction engine; the ledger (PostgreSQL) books every leg and reconciles with the chain to
the unit. The Python split is checked against the contracts' FeeSplit library on the chain."""

from __future__ import annotations

import json
import random
import secrets
import time
from datetime import timedelta

import pytest
from eth_account import Account
from sqlalchemy import select
from web3 import Web3

from backend.centers import mirror
from backend.chain.calls import ContractCalls
from backend.chain.contracts import ARTIFACTS_DIR
from backend.chain.engine import Engine
from backend.chain.models import ChainRequest, RequestStatus
from backend.chain.rpc import Rpc
from backend.config import ChainSettings
from backend.creators import service as creators
from backend.creators.routing import FeeRouting
from backend.db import create_db_engine, make_session_factory
from backend.db.base import utcnow
from backend.economy import stakes
from backend.economy.chain_reader import ChainReader
from backend.economy.fees.schedule import FeeSchedule, split_fee
from backend.economy.ledger import reconcile_ledger, sync_settlements
from backend.economy.models import LedgerLeg, PlannedSettlement
from backend.economy.policy import DEW, FinishedMatch, SeatResult, default_policies
from backend.economy.seasons import create_season
from backend.economy.settlement import plan_settlement
from backend.tables.hosting import center_of_table
from backend.tables.models import Table
from tests.creators.helpers import bind
from tests.economy.chain_helpers import address, send

STAKE = 10 * DEW
SCHEDULE = FeeSchedule(rake_bps=500, center_bps=2_000, creator_bps=1_000)


@pytest.fixture(scope="module")
def world(deployment, pg_url):
    db = create_db_engine(pg_url)
    sessions = make_session_factory(db)
    engine = Engine(
        session_factory=sessions,
        rpc=Rpc(deployment.anvil.rpc_url),
        account=Account.from_key(deployment.operator_key),
        chain_id=deployment.manifest.chain_id,
        calls=ContractCalls(deployment.contracts),
        settings=ChainSettings(confirmations=1, poll_interval_s=0.05, stuck_after_s=600),
    )
    reader = ChainReader(deployment.contracts, confirmations=1)
    yield {"sessions": sessions, "engine": engine, "reader": reader}
    db.dispose()


def _mint_center(deployment, sessions, owner: str) -> int:
    """The operator mints a center on chain; the centers mirror applies its event."""
    c = deployment.contracts
    receipt = send(
        deployment.w3,
        deployment.operator_key,
        c.game_center.functions.mintCenter(owner, "Club Dominó", b"PR", "San Juan", 1846, -6611, 4),
    )
    (minted,) = c.game_center.events.CenterMinted().process_receipt(receipt)
    with sessions.begin() as session:
        assert mirror.apply_events(session, [minted]) == 1
    return int(minted["args"]["centerId"])


def _deposit(deployment, key: str, amount: int) -> None:
    c = deployment.contracts
    who = address(key)
    send(deployment.w3, deployment.deployer_key, c.token.functions.transfer(who, amount))
    send(deployment.w3, key, c.token.functions.transfer(c.settlement.address, amount))


def test_a_referred_players_match_at_a_center_pays_three_legs_in_one_settle(deployment, world):
    sessions, c = world["sessions"], deployment.contracts
    center_owner, creator_key, p1_key, p2_key = deployment.player_keys[:4]
    treasury = Account.create().address
    center_id = _mint_center(deployment, sessions, address(center_owner))
    creator = Account.from_key(creator_key)
    p1, p2 = Account.from_key(p1_key), Account.from_key(p2_key)
    with sessions() as session:
        code = creators.register(session=session, address=creator.address, code="CHAINFEES").code
        create_season(
            session=session,
            name="Fees season",
            starts_at=utcnow() - timedelta(hours=1),
            ends_at=utcnow() + timedelta(days=7),
            emission_budget=0,
        )
        session.commit()
    bind(sessions, p1, code, SCHEDULE)  # p1 was brought by the creator; p2 was not
    for key in (p1_key, p2_key):
        _deposit(deployment, key, STAKE)
    assert stakes.index_deposits(session_factory=sessions, reader=world["reader"]).credited == 2

    table_id, match_id = secrets.token_hex(16), secrets.token_hex(16)
    with sessions.begin() as session:
        session.add(
            Table(
                id=table_id,
                preset="draw",
                seat_count=2,
                stake=str(STAKE),
                earning=True,
                invite_code=secrets.token_hex(16),
                turn_timeout_s=30.0,
                status="playing",
                center_id=center_id,
            )
        )
        stakes.escrow_stakes(
            session=session,
            match_id=match_id,
            seats=[(0, p1.address), (1, p2.address)],
            stake=STAKE,
        )
    match = FinishedMatch(
        match_id=match_id,
        chain_match_id="0x" + secrets.token_hex(32),
        result_hash="0x" + "cd" * 32,
        earning=True,
        stake=STAKE,
        table_id=table_id,
        seats=(
            SeatResult(0, p1.address, placement=1, won=True),
            SeatResult(1, p2.address, placement=2),
        ),
    )
    watched = [address(center_owner), creator.address, treasury, p1.address, p2.address]
    before = {a: c.token.functions.balanceOf(a).call() for a in watched}
    with sessions.begin() as session:
        planned = plan_settlement(
            session=session,
            match=match,
            finished_at=utcnow(),
            policies=default_policies(fee_bps=SCHEDULE.rake_bps, emission_per_seat=0),
            treasury=treasury,
            chain_id=deployment.manifest.chain_id,
            schedule=SCHEDULE,
            recipients=FeeRouting(center_of_table=center_of_table),
        )
        request_id = planned.chain_request_id
    deadline = time.monotonic() + 60
    while True:
        world["engine"].step()
        with sessions() as session:
            request = session.get(ChainRequest, request_id)
            if request.status == RequestStatus.CONFIRMED:
                tx_hash = request.tx_hash
                break
        assert time.monotonic() < deadline, "settlement not confirmed in 60s"
        time.sleep(0.05)
    with sessions.begin() as session:
        assert sync_settlements(session=session, reader=world["reader"]).mismatches == []

    fee = 2 * STAKE * SCHEDULE.rake_bps // 10_000
    center_leg = fee * SCHEDULE.center_bps // 10_000
    creator_leg = fee // 2 * SCHEDULE.creator_bps // 10_000  # p1 paid half of the fee
    treasury_leg = fee - center_leg - creator_leg
    after = {a: c.token.functions.balanceOf(a).call() for a in watched}
    assert after[address(center_owner)] - before[address(center_owner)] == center_leg
    assert after[creator.address] - before[creator.address] == creator_leg
    assert after[treasury] - before[treasury] == treasury_leg
    assert after[p1.address] - before[p1.address] == 2 * STAKE - fee  # the winner's pot
    # One transaction carried every leg: the match's own settle.
    receipt = deployment.w3.eth.get_transaction_receipt(tx_hash)
    transfers = c.token.events.Transfer().process_receipt(receipt)
    paid_to = {t["args"]["to"]: t["args"]["value"] for t in transfers}
    assert paid_to[address(center_owner)] == center_leg
    assert paid_to[creator.address] == creator_leg
    assert paid_to[treasury] == treasury_leg
    with sessions() as session:
        settlement = session.get(PlannedSettlement, match_id)
        assert settlement.status == "paid" and settlement.tx_hash.lower() == tx_hash.lower()
        legs = {
            (x.party, x.address): int(x.amount)
            for x in session.scalars(select(LedgerLeg).where(LedgerLeg.match_id == match_id))
            if x.status == "paid"
        }
        report = reconcile_ledger(session=session, reader=world["reader"])
    assert legs[("fee_center", address(center_owner))] == center_leg
    assert legs[("fee_creator", creator.address)] == creator_leg
    assert legs[("treasury", treasury)] == treasury_leg
    assert sum(legs.values()) == 2 * STAKE
    assert report.differences == [], report.differences
    assert report.matches_checked >= 1


def test_split_fee_is_the_contracts_fee_split(deployment):
    """The Python twin against FeeSplit itself (its harness, deployed here), on edge and
    random inputs: the same three legs, to the unit."""
    w3: Web3 = deployment.w3
    artifact = json.loads((ARTIFACTS_DIR / "FeeSplitHarness.json").read_text())
    factory = w3.eth.contract(abi=artifact["abi"], bytecode=artifact["bytecode"])
    receipt = send(w3, deployment.deployer_key, factory.constructor())
    harness = w3.eth.contract(address=receipt["contractAddress"], abi=artifact["abi"])
    rng = random.Random(20)
    cases = [(0, 0, 0), (1, 10_000, 0), (2**256 // 10_000 - 1, 5_000, 5_000), (999, 3_333, 3_333)]
    cases += [
        (rng.randrange(0, 10**30), c, rng.randrange(0, 10_001 - c))
        for c in (rng.randrange(0, 10_001) for _ in range(40))
    ]
    for fee, center_bps, creator_bps in cases:
        schedule = FeeSchedule(center_bps=center_bps, creator_bps=creator_bps)
        for has_center in (False, True):
            for has_creator in (False, True):
                legs = split_fee(fee, schedule, has_center, has_creator)
                chain = harness.functions.split(
                    fee, center_bps, creator_bps, has_center, has_creator
                ).call()
                assert tuple(chain) == (legs.treasury, legs.center, legs.creator), (
                    fee,
                    center_bps,
                    creator_bps,
                )
