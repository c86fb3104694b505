"""Issue 18 on a real anvil with the real transaction engine and PostgreSQL.

N2, server side: a thief holding the settler key settles the server's next sequential match
ids first (1 wei each), so the contract skips the real matches. The server must notice that
its own id was settled by a transaction it did not sign, re-issue the match under a new id,
pay it exactly once (across retries and a crashed pass), and report it in `dew reconcile`.

N5: an owner playing their own avatar (no agreement) is paid as the owner at play time: a
sale of the avatar between the match and its settlement does not move the reward.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import pytest
from eth_account import Account
from sqlalchemy import select

from backend.chain import match_ids
from backend.chain.calls import ContractCalls
from backend.chain.contracts import SettlementMatch, SettlementPayout, pack_settle_batch
from backend.chain.engine import Engine
from backend.chain.models import ChainRequest, RequestStatus
from backend.chain.reconcile import reconcile as reconcile_requests
from backend.chain.rpc import Rpc
from backend.config import ChainSettings
from backend.db import create_db_engine, make_session_factory
from backend.db.base import utcnow
from backend.economy import jobs
from backend.economy.chain_reader import ChainReader
from backend.economy.ledger import SyncReport, reconcile_ledger, sync_settlements
from backend.economy.models import BurnedMatchId, LedgerLeg, PlannedSettlement
from backend.economy.policy import DEW, FinishedMatch, RewardPolicy, SeatResult, TableEconomy
from backend.economy.seasons import create_season
from backend.economy.settlement import plan_settlement
from backend.tables.live.store import next_chain_match_id
from tests.chain.conftest import settled_events
from tests.economy.chain_helpers import address, mint_avatars, send

POLICIES = {
    TableEconomy.FREE: RewardPolicy(),
    TableEconomy.EMISSION: RewardPolicy(emission_per_seat=DEW),
    TableEconomy.STAKED: RewardPolicy(fee_bps=500, emission_per_seat=DEW),
}
DEPLOYMENT_NAME = "h18-burn-test"


@pytest.fixture(scope="module")
def world(deployment, pg_url):
    w3, c = deployment.w3, deployment.contracts
    k = deployment.player_keys
    who = {"vip": k[0], "owner": k[1], "buyer": k[2], "seller": k[3]}
    addr = {name: address(key) for name, key in who.items()}
    addr["treasury"] = Account.create().address
    addr["thief"] = Account.create().address
    avatar, sold = mint_avatars(deployment, [addr["owner"], addr["seller"]])
    db = create_db_engine(pg_url)
    sessions = make_session_factory(db)
    with sessions.begin() as session:
        create_season(
            session=session,
            name="Burn season",
            starts_at=utcnow() - timedelta(hours=1),
            ends_at=utcnow() + timedelta(days=30),
            emission_budget=1000 * DEW,
        )
    engine = Engine(
        session_factory=sessions,
        rpc=Rpc(deployment.anvil.rpc_url),
        account=Account.from_key(deployment.operator_key),
        chain_id=deployment.manifest.chain_id,
        calls=ContractCalls(c),
        settings=ChainSettings(confirmations=1, poll_interval_s=0.05, stuck_after_s=600),
    )
    yield {
        "w3": w3,
        "keys": who,
        "addr": addr,
        "avatar": avatar,
        "sold": sold,
        "db": db,
        "sessions": sessions,
        "reader": ChainReader(c, confirmations=1),
        "engine": engine,
        "prefix": match_ids.deployment_prefix(DEPLOYMENT_NAME, deployment.manifest.chain_id),
    }
    db.dispose()


def _issue_id(world, prefix: int | None = None) -> str:
    """The next id the server issues, exactly as a finishing match takes it."""
    with world["db"].begin() as conn:
        return next_chain_match_id(conn, prefix=world["prefix"] if prefix is None else prefix)


def _finished(world, n: int, chain_match_id: str, seats: list[SeatResult]) -> FinishedMatch:
    return FinishedMatch(
        match_id=f"burn{n:028d}",
        chain_match_id=chain_match_id,
        result_hash="0x" + bytes([0x40 + n]).hex() * 32,
        earning=True,
        stake=0,
        seats=tuple(seats),
    )


def _plan(world, finished: FinishedMatch) -> PlannedSettlement:
    with world["sessions"].begin() as session:
        planned = plan_settlement(
            session=session,
            match=finished,
            finished_at=utcnow(),
            policies=POLICIES,
            treasury=world["addr"]["treasury"],
            played_at_s=world["w3"].eth.get_block("latest")["timestamp"],
        )
        session.expunge(planned)
        return planned


def _settle_until_final(world, request_id: int) -> ChainRequest:
    sessions = world["sessions"]
    deadline = time.monotonic() + 30
    while True:
        world["engine"].step()
        with sessions() as session:
            request = session.get(ChainRequest, request_id)
            if request.status in (RequestStatus.CONFIRMED, RequestStatus.FAILED):
                session.expunge(request)
                return request
        assert time.monotonic() < deadline, f"request {request_id} not final in 30s"
        time.sleep(0.05)


def _sync(world) -> SyncReport:
    with world["sessions"].begin() as session:
        return sync_settlements(session=session, reader=world["reader"])


def _balance(deployment, who: str) -> int:
    return deployment.contracts.token.functions.balanceOf(who).call()


def _steal(deployment, world, ids: list[str]) -> str:
    """The thief's batch: each id paid 1 wei, signed with the stolen settler (operator) key
    outside our engine. Returns its transaction hash."""
    batch = pack_settle_batch(
        [
            SettlementMatch(
                i, "0x" + "66" * 32, [SettlementPayout(1, account=world["addr"]["thief"])]
            )
            for i in ids
        ]
    )
    receipt = send(
        deployment.w3,
        deployment.operator_key,
        deployment.contracts.settlement.functions.settle(batch),
    )
    return "0x" + bytes(receipt["transactionHash"]).hex().removeprefix("0x")


def test_burned_ids_are_reissued_and_paid_once(deployment, world):
    a = world["addr"]
    # The thief reads our sequence (a public pattern) and burns our next three ids.
    with world["db"].connect() as conn:
        assert conn.exec_driver_sql("select count(*) from chain_match_sequences").scalar() == 0
    seq = [match_ids.earning_match_id(world["prefix"], n) for n in (1, 2, 3)]
    theft_tx = _steal(deployment, world, seq)
    assert all(deployment.contracts.settlement.functions.isSettled(i).call() for i in seq)

    # Two real matches finish later and get ids 1 and 2: both already used up on chain.
    seats = [
        SeatResult(0, a["vip"], None, "vip", placement=1, won=True),
        SeatResult(1, a["owner"], world["avatar"], "avatar_owner", placement=2),
        SeatResult(2, None, placement=3),
    ]
    first = _finished(world, 1, _issue_id(world), seats)
    second = _finished(world, 2, _issue_id(world), seats[:1] + seats[2:])
    assert [first.chain_match_id, second.chain_match_id] == seq[:2]
    watched = [a["vip"], a["owner"], a["thief"]]
    before = {w: _balance(deployment, w) for w in watched}
    planned = [_plan(world, m) for m in (first, second)]
    expected = {w: 0 for w in watched}
    with world["sessions"]() as session:
        for p in planned:
            for leg in session.scalars(select(LedgerLeg).where(LedgerLeg.match_id == p.match_id)):
                expected[leg.address] = expected.get(leg.address, 0) + int(leg.amount)
    assert expected[a["vip"]] > 0 and expected[a["owner"]] > 0

    # Our batch lands and the contract skips both matches: nothing paid to our players yet.
    for p in planned:
        skipped = _settle_until_final(world, p.chain_request_id)
        assert skipped.status == RequestStatus.CONFIRMED
        assert skipped.result == {"outcome": "already_settled"}
    assert {w: _balance(deployment, w) - before[w] for w in watched[:2]} == {
        a["vip"]: 0,
        a["owner"]: 0,
    }

    # A pass that dies before its commit (a killed worker) leaves no trace.
    with world["sessions"]() as session:
        session.begin()
        assert sync_settlements(session=session, reader=world["reader"]).reissued == 2
        session.rollback()
    with world["sessions"]() as session:
        assert session.scalars(select(BurnedMatchId)).all() == []
        assert session.get(PlannedSettlement, first.match_id).chain_match_id == seq[0]

    report = _sync(world)
    assert (report.reissued, report.paid, report.mismatches) == (2, 0, [])
    assert _sync(world).reissued == 0, "a second pass re-issued again"
    # The issuing sequence (at 2) moves past id 3, which the thief also settled: the next
    # match will not be skipped. Only ever forward, and once.
    skip = {"session_factory": world["sessions"], "reader": world["reader"]}
    assert jobs.skip_burned_sequence(**skip, prefix=world["prefix"]) == 3
    assert jobs.skip_burned_sequence(**skip, prefix=world["prefix"]) is None
    assert match_ids.parse(_issue_id(world)).sequence == 4
    with world["sessions"]() as session:
        burned = {b.chain_match_id: b for b in session.scalars(select(BurnedMatchId))}
        current = {p.match_id: session.get(PlannedSettlement, p.match_id) for p in planned}
        new_requests = [s.chain_request_id for s in current.values()]
    assert set(burned) == set(seq[:2])
    for p, burned_id in zip(planned, seq[:2], strict=True):
        row = burned[burned_id]
        now = current[p.match_id]
        assert (row.match_id, row.foreign_tx_hash, row.foreign_paid) == (p.match_id, theft_tx, "1")
        assert now.chain_match_id == row.reissued_as != burned_id
        assert match_ids.parse(now.chain_match_id).tag == match_ids.TAG_REISSUED
        assert now.status == "submitted" and now.chain_request_id != p.chain_request_id

    for request_id in new_requests:
        paid = _settle_until_final(world, request_id)
        assert (paid.status, paid.result) == (RequestStatus.CONFIRMED, {"outcome": "settled"})
    report = _sync(world)
    assert (report.paid, report.reissued, report.mismatches) == (2, 0, [])
    after = {w: _balance(deployment, w) for w in watched}
    assert {w: after[w] - before[w] for w in watched} == {
        a["vip"]: expected[a["vip"]],
        a["owner"]: expected[a["owner"]],
        a["thief"]: 0,  # the thief's 1 wei per id was paid before `before`
    }

    # Everything again: planning, the engine, the ledger sync. Nothing more is paid.
    for m in (first, second):
        assert _plan(world, m).chain_match_id != m.chain_match_id
    for _ in range(5):
        world["engine"].step()
    assert _sync(world).reissued == 0
    assert {w: _balance(deployment, w) for w in watched} == after
    counts = settled_events(Rpc(deployment.anvil.rpc_url), deployment.contracts.settlement.address)
    with world["sessions"]() as session:
        for p in planned:
            settlement = session.get(PlannedSettlement, p.match_id)
            assert settlement.status == "paid"
            assert counts[settlement.chain_match_id] == 1

        # The books: the burned ids are listed with their re-issue and the paying tx; the
        # only differences are the thief's own payments (id 3, which no match has yet, and
        # the wei the vault sent the thief), none about our matches.
        books = reconcile_ledger(session=session, reader=world["reader"])
        paid_in = {p.match_id: session.get(PlannedSettlement, p.match_id).tx_hash for p in planned}
    assert sorted(b["burned_id"] for b in books.burned) == seq[:2]
    for b in books.burned:
        assert b["burned_by_tx"] == theft_tx and b["status"] == "paid"
        assert b["paid_as"] == b["reissued_as"] and b["paid_in_tx"] == paid_in[b["match_id"]]
    assert sorted(books.differences) == sorted(
        [
            f"chain match {seq[2]} settled without a ledger entry",
            f"wallet {a['thief']}: ledger paid 0, vault sent 3",
        ]
    )
    requests = reconcile_requests(
        session_factory=world["sessions"],
        rpc=Rpc(deployment.anvil.rpc_url),
        calls=ContractCalls(deployment.contracts),
        chain_id=deployment.manifest.chain_id,
    )
    assert sorted(b["match_id"] for b in requests.burned) == seq[:2]
    assert requests.differences == [f"match {seq[2]} settled on chain without a request"]


def test_dew_reconcile_reports_burned_ids(deployment, world, pg_url):
    """The operator's command prints each burned id, what it was re-issued as and the tx
    that paid it, and exits 1 because the thief's own payments are not in our books."""
    env = {
        **os.environ,
        "DEW_DB_URL": pg_url,
        "DEW_CHAIN_RPC_URL": deployment.anvil.rpc_url,
        "DEW_CHAIN_CHAIN_ID": str(deployment.manifest.chain_id),
        "DEW_CHAIN_MANIFEST_PATH": str(deployment.manifest_path),
        "DEW_CHAIN_OPERATOR_KEY": deployment.operator_key,
        "DEW_ECONOMY_CONFIRMATIONS": "1",
    }
    done = subprocess.run(
        [str(Path(sys.executable).parent / "dew"), "reconcile"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    with world["sessions"]() as session:
        rows = list(session.scalars(select(BurnedMatchId)))
        lines = [
            f"BURNED: match {b.match_id}: id {b.chain_match_id} settled by {b.foreign_tx_hash} "
            f"(paid 1 wei); re-issued as {b.reissued_as}, now {b.reissued_as}: paid in tx "
            f"{session.get(PlannedSettlement, b.match_id).tx_hash}"
            for b in rows
        ]
    assert len(lines) == 2
    for line in lines:
        assert line in done.stdout, done.stdout
    assert done.stdout.count("SKIPPED: request") == 2
    differences = [x for x in done.stdout.splitlines() if x.startswith("DIFFERENCE")]
    assert len(differences) == 3 and all("burn0" not in x for x in differences), done.stdout


def test_a_sale_between_play_and_settlement_leaves_the_reward_with_the_seller(deployment, world):
    """N5: the seller played their own avatar (no agreement) and sold it before the match was
    settled. The reward goes to the seller, the owner at play time, not to the buyer."""
    a, c = world["addr"], deployment.contracts
    finished = _finished(
        world,
        3,
        _issue_id(world, prefix=world["prefix"] + 1),  # ids nobody has burned
        [
            SeatResult(0, a["seller"], world["sold"], "avatar_owner", placement=1, won=True),
            SeatResult(1, a["vip"], None, "vip", placement=2),
        ],
    )
    planned = _plan(world, finished)
    with world["sessions"]() as session:
        [owner_leg] = session.scalars(
            select(LedgerLeg).where(
                LedgerLeg.match_id == finished.match_id, LedgerLeg.party == "owner"
            )
        ).all()
    reward = int(owner_leg.amount)
    assert (owner_leg.address, owner_leg.avatar_id, reward > 0) == (
        a["seller"],
        world["sold"],
        True,
    )
    # Sold after the match, before it is settled.
    send(
        deployment.w3,
        world["keys"]["seller"],
        c.avatar.functions.transferFrom(a["seller"], a["buyer"], world["sold"]),
    )
    assert c.avatar.functions.ownerOf(world["sold"]).call() == a["buyer"]
    before = {w: _balance(deployment, w) for w in (a["seller"], a["buyer"])}
    request = _settle_until_final(world, planned.chain_request_id)
    assert request.result == {"outcome": "settled"}
    assert _sync(world).paid == 1
    after = {w: _balance(deployment, w) for w in (a["seller"], a["buyer"])}
    assert after[a["seller"]] - before[a["seller"]] == reward
    assert after[a["buyer"]] == before[a["buyer"]]
    with world["sessions"]() as session:
        legs = session.scalars(
            select(LedgerLeg).where(LedgerLeg.match_id == finished.match_id)
        ).all()
        assert {(x.party, x.address, x.avatar_id, x.status) for x in legs} >= {
            ("owner", a["seller"], world["sold"], "paid")
        }
        books = reconcile_ledger(session=session, reader=world["reader"])
    # No split event for a direct payout, and the books still agree for this match and both
    # wallets (the thief's payments of the test above, if it ran, are its only differences).
    ours = (finished.match_id, a["seller"], a["buyer"], planned.chain_match_id)
    assert [d for d in books.differences if any(x in d for x in ours)] == []


def test_a_copy_of_our_own_entry_sent_first_is_booked_and_not_paid_again(deployment, world):
    """The thief copies our pending settlement byte for byte (as from the mempool) and sends
    it first. The players got exactly what we planned, from the vault, once: the server books
    that payment instead of re-issuing, which would pay them a second time."""
    a = world["addr"]
    finished = _finished(
        world,
        4,
        _issue_id(world, prefix=world["prefix"] + 2),
        [
            SeatResult(0, a["vip"], None, "vip", placement=1, won=True),
            SeatResult(1, None, placement=2),
        ],
    )
    planned = _plan(world, finished)
    with world["sessions"]() as session:
        packed = session.get(ChainRequest, planned.chain_request_id).payload["packed"]
        [leg] = session.scalars(select(LedgerLeg).where(LedgerLeg.match_id == finished.match_id))
    before = _balance(deployment, a["vip"])
    receipt = send(
        deployment.w3,
        deployment.operator_key,
        deployment.contracts.settlement.functions.settle(bytes.fromhex(packed[2:])),
    )
    copy_tx = "0x" + bytes(receipt["transactionHash"]).hex().removeprefix("0x")
    ours = _settle_until_final(world, planned.chain_request_id)
    assert ours.result == {"outcome": "already_settled"}
    report = _sync(world)
    assert (report.paid, report.reissued, report.mismatches) == (1, 0, [])
    for _ in range(3):
        world["engine"].step()
        assert _sync(world).reissued == 0
    assert _balance(deployment, a["vip"]) - before == int(leg.amount) > 0
    with world["sessions"]() as session:
        settlement = session.get(PlannedSettlement, finished.match_id)
        assert (settlement.status, settlement.tx_hash) == ("paid", copy_tx)
        assert settlement.chain_match_id == finished.chain_match_id
        assert session.get(BurnedMatchId, finished.chain_match_id) is None
        books = reconcile_ledger(session=session, reader=world["reader"])
    assert [d for d in books.differences if finished.match_id in d or a["vip"] in d] == []
    [copied] = [b for b in books.burned if b["match_id"] == finished.match_id]
    assert (copied["reissued_as"], copied["paid_in_tx"]) == (None, copy_tx)
