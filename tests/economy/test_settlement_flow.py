"""Matches planned, paid on a real anvil by the real transaction engine, booked in the ledger
on PostgreSQL, and reconciled with the chain; scholarships created through the builders and
mirrored by the indexer. Balances are read from the token, independently of the ledger."""

from __future__ import annotations

import threading
import time
from datetime import timedelta

import pytest
from eth_account import Account
from sqlalchemy import select, update

from backend.chain.calls import ContractCalls
from backend.chain.engine import Engine
from backend.chain.models import ChainRequest, RequestStatus
from backend.chain.rpc import Rpc
from backend.config import ChainSettings
from backend.db import create_db_engine, make_session_factory
from backend.db.base import utcnow
from backend.economy import jobs, stakes
from backend.economy.chain_reader import ChainReader
from backend.economy.exceptions import Refused
from backend.economy.ledger import SyncReport, reconcile_ledger, sync_settlements
from backend.economy.models import AgreementMirror, LedgerLeg, PlannedSettlement, ScreenedOwner
from backend.economy.policy import (
    DEW,
    FinishedMatch,
    Party,
    PolicyError,
    RewardPolicy,
    SeatResult,
    TableEconomy,
    Terms,
    plan_rewards,
    split_payout,
)
from backend.economy.reports import (
    avatar_report,
    owner_view,
    scholar_earnings,
    season_leaderboard,
    season_schedule,
    wallet_statement,
    wallet_summary,
)
from backend.economy.scholarships.indexer import index_registry
from backend.economy.scholarships.transactions import OfferTerms, ScholarshipTxBuilder
from backend.economy.seasons import create_season, get_season
from backend.economy.settlement import plan_settlement
from tests.economy.chain_helpers import address, advance_time, mint_avatars, send

POLICIES = {
    TableEconomy.FREE: RewardPolicy(),
    TableEconomy.EMISSION: RewardPolicy(emission_per_seat=DEW),
    TableEconomy.STAKED: RewardPolicy(fee_bps=500, emission_per_seat=DEW),
}
TERM_S = 3600


@pytest.fixture(scope="module")
def world(deployment, pg_url):
    """Two screened owners, a Rewards Division and a Fixed Rent scholarship, a season."""
    w3, c = deployment.w3, deployment.contracts
    k = deployment.player_keys
    who = {
        "owner_a": k[0],
        "owner_b": k[1],
        "scholar_rd": k[2],
        "scholar_fr": k[3],
        "vip": k[4],
    }
    addr = {name: address(key) for name, key in who.items()}
    addr["treasury"] = Account.create().address
    builder = ScholarshipTxBuilder(c)
    avatar_a, avatar_b = mint_avatars(deployment, [addr["owner_a"], addr["owner_b"]])
    for owner in ("owner_a", "owner_b"):
        send(
            w3,
            deployment.operator_key,
            builder.screen_owner(screener=deployment.operator, owner=addr[owner]),
        )
    rd = OfferTerms(
        terms=Terms.REWARDS_DIVISION, duration_s=TERM_S, owner_bps=3000, dust_to=Party.OWNER
    )
    send(
        w3,
        who["owner_a"],
        builder.offer(
            owner=addr["owner_a"], avatar_id=avatar_a, terms=rd, scholar=addr["scholar_rd"]
        ),
    )
    rd_id = c.registry.functions.agreementCount().call()
    for tx in builder.accept(scholar=addr["scholar_rd"], agreement_id=rd_id):
        send(w3, who["scholar_rd"], tx)
    # An open listing under Fixed Rent, accepted by a scholar who pays 100 DEW rent.
    fr = OfferTerms(terms=Terms.FIXED_RENT, duration_s=TERM_S * 10, rent=100 * DEW)
    send(w3, who["owner_b"], builder.offer(owner=addr["owner_b"], avatar_id=avatar_b, terms=fr))
    fr_id = c.registry.functions.agreementCount().call()
    send(w3, deployment.deployer_key, c.token.functions.transfer(addr["scholar_fr"], 100 * DEW))
    accept = builder.accept(scholar=addr["scholar_fr"], agreement_id=fr_id)
    assert [t.description.split()[0] for t in accept] == ["approve", "accept"]
    for tx in accept:
        send(w3, who["scholar_fr"], tx)

    db = create_db_engine(pg_url)
    sessions = make_session_factory(db)
    reader = ChainReader(c, confirmations=1)
    with sessions.begin() as session:
        season = create_season(
            session=session,
            name="Season 1",
            starts_at=utcnow() - timedelta(hours=1),
            ends_at=utcnow() + timedelta(days=30),
            emission_budget=1000 * DEW,
        )
        season_id = season.id
    engine = Engine(
        session_factory=sessions,
        rpc=Rpc(deployment.anvil.rpc_url),
        account=Account.from_key(deployment.operator_key),
        chain_id=deployment.manifest.chain_id,
        calls=ContractCalls(c),
        settings=ChainSettings(confirmations=1, poll_interval_s=0.05, stuck_after_s=600),
    )
    yield {
        "keys": who,
        "addr": addr,
        "avatar_a": avatar_a,
        "avatar_b": avatar_b,
        "rd_id": rd_id,
        "fr_id": fr_id,
        "sessions": sessions,
        "reader": reader,
        "season_id": season_id,
        "engine": engine,
        "builder": builder,
    }
    db.dispose()


def _match(n: int, seats: list[SeatResult], stake: int = 0) -> FinishedMatch:
    return FinishedMatch(
        match_id=f"match{n:027d}",
        chain_match_id="0x" + n.to_bytes(32, "big").hex(),
        result_hash="0x" + bytes([n % 256 or 1]).hex() * 32,
        earning=True,
        stake=stake,
        seats=tuple(seats),
    )


def _pay(world, finished: FinishedMatch) -> PlannedSettlement:
    sessions = world["sessions"]
    with sessions.begin() as session:
        planned = plan_settlement(
            session=session,
            match=finished,
            finished_at=utcnow(),
            policies=POLICIES,
            treasury=world["addr"]["treasury"],
            played_at_s=world["reader"].w3.eth.get_block("latest")["timestamp"],
        )
        request_id = planned.chain_request_id
    return _confirm(world, request_id, finished.match_id)


def _confirm(world, request_id: int, match_id: str) -> PlannedSettlement:
    """Run the real engine until the request is confirmed, then book the ledger."""
    sessions = world["sessions"]
    deadline = time.monotonic() + 30
    while True:
        world["engine"].step()
        with sessions() as session:
            if session.get(ChainRequest, request_id).status == RequestStatus.CONFIRMED:
                break
        assert time.monotonic() < deadline, "settlement not confirmed in 30s"
        time.sleep(0.05)
    with sessions.begin() as session:
        report = sync_settlements(session=session, reader=world["reader"])
        assert report.mismatches == []
        return session.get(PlannedSettlement, match_id)


def _deposit(deployment, world, names, amount):
    """Each named player gets ``amount`` DEW and deposits it into the vault; indexed."""
    c = deployment.contracts
    for name in names:
        player = world["addr"][name]
        send(deployment.w3, deployment.deployer_key, c.token.functions.transfer(player, amount))
        send(
            deployment.w3,
            world["keys"][name],
            c.token.functions.transfer(c.settlement.address, amount),
        )
    report = stakes.index_deposits(session_factory=world["sessions"], reader=world["reader"])
    assert report.credited >= len(names)


def _balances(deployment, addresses):
    token = deployment.contracts.token
    return {a: token.functions.balanceOf(a).call() for a in addresses}


def test_indexer_mirrors_screening_and_agreements(world):
    sessions = world["sessions"]
    report = index_registry(session_factory=sessions, reader=world["reader"])
    assert report.events >= 6
    again = index_registry(session_factory=sessions, reader=world["reader"])
    assert again.events == 0, "a second run re-applied events"
    with sessions() as session:
        screened = {r.address for r in session.scalars(select(ScreenedOwner)) if r.approved}
        assert {world["addr"]["owner_a"], world["addr"]["owner_b"]} <= screened
        rd = session.get(AgreementMirror, world["rd_id"])
        fr = session.get(AgreementMirror, world["fr_id"])
    assert (rd.status, rd.terms, rd.owner_bps, rd.scholar) == (
        "active",
        "rewards_division",
        3000,
        world["addr"]["scholar_rd"],
    )
    assert (fr.status, fr.terms, int(fr.rent_escrowed), fr.scholar) == (
        "active",
        "fixed_rent",
        100 * DEW,
        world["addr"]["scholar_fr"],
    )


def test_staked_match_is_paid_split_and_reconciled(deployment, world):
    a = world["addr"]
    seats = [
        SeatResult(
            0, a["scholar_rd"], world["avatar_a"], "avatar_user", placement=1, won=True, points=200
        ),
        SeatResult(1, a["scholar_fr"], world["avatar_b"], "avatar_user", placement=2, points=150),
        SeatResult(2, a["vip"], None, "vip", placement=3, points=90),
        SeatResult(3, None, placement=4),
    ]
    finished = _match(1, seats, stake=10 * DEW)
    players = [(0, "scholar_rd"), (1, "scholar_fr"), (2, "vip")]
    _deposit(deployment, world, [name for _, name in players], 10 * DEW)
    with world["sessions"].begin() as session:
        stakes.escrow_stakes(
            session=session,
            match_id=finished.match_id,
            seats=[(seat, a[name]) for seat, name in players],
            stake=10 * DEW,
        )
        assert all(stakes.stake_balance(session=session, address=a[n]) == 0 for _, n in players)
    plan = plan_rewards(finished, POLICIES[TableEconomy.STAKED])
    watched = [a[n] for n in ("owner_a", "owner_b", "scholar_rd", "scholar_fr", "vip", "treasury")]
    before = _balances(deployment, watched)
    settled = _pay(world, finished)
    assert settled.status == "paid" and int(settled.paid) == plan.paid + plan.fee

    by_seat = {p.seat: p.amount for p in plan.payouts}
    emission = {p.seat: p.emission_share for p in plan.payouts}
    stake_back = {p.seat: p.stake_share for p in plan.payouts}
    # The reward (emission) is split by the agreement; the stake share is the player's own.
    rd = split_payout(emission[0], owner_bps=3000, dust_to=Party.OWNER)
    expected = {
        a["owner_a"]: rd.owner,
        a["scholar_rd"]: rd.scholar + stake_back[0],
        a["scholar_fr"]: by_seat[1],  # Fixed Rent: the scholar keeps everything
        a["vip"]: by_seat[2],
        a["treasury"]: plan.fee,
        a["owner_b"]: 0,
    }
    after = _balances(deployment, watched)
    assert {x: after[x] - before[x] for x in watched} == expected
    with world["sessions"]() as session:
        for wallet, amount in expected.items():
            summary = wallet_summary(session=session, address=wallet)
            assert (summary["paid"], summary["pending"]) == (amount, 0), wallet
        report = reconcile_ledger(session=session, reader=world["reader"])
        [line] = wallet_statement(session=session, address=a["owner_a"])
    assert report.ok, report.differences
    assert report.matches_checked == 1
    assert (line["role"], line["amount"], line["status"], line["avatar_id"]) == (
        "owner",
        rd.owner,
        "paid",
        world["avatar_a"],
    )
    assert line["tx_hash"] == settled.tx_hash and settled.tx_hash.startswith("0x")
    with world["sessions"]() as session:
        table = jobs.wallet_rows(
            session=session, reader=world["reader"], addresses=[a["owner_a"], a["scholar_rd"]]
        )
    owner_row, scholar_row = table
    assert (owner_row["roles"], owner_row["as_owner"]) == (["owner"], rd.owner)
    assert scholar_row["roles"] == ["scholar", "wallet"]
    assert scholar_row["as_scholar"] + scholar_row["as_wallet"] == scholar_row["paid"]
    assert owner_row["tx_hashes"] == [settled.tx_hash]
    assert owner_row["dew_balance"] == after[a["owner_a"]]


def test_planning_twice_returns_the_first_plan(world):
    finished = _match(1, [SeatResult(0, world["addr"]["vip"], placement=1)])
    with world["sessions"].begin() as session:
        planned = plan_settlement(
            session=session,
            match=finished,
            finished_at=utcnow(),
            policies=POLICIES,
            treasury=world["addr"]["treasury"],
        )
        assert planned.economy == "staked", "a replanned match changed its plan"
        assert (
            session.scalar(
                select(ChainRequest.id).where(ChainRequest.id == planned.chain_request_id)
            )
            is not None
        )


def test_rental_that_expired_pays_the_owner_on_the_next_match(deployment, world):
    a = world["addr"]
    advance_time(deployment.w3, TERM_S + 1)
    finished = _match(
        2,
        [
            SeatResult(0, a["scholar_rd"], world["avatar_a"], "avatar_user", placement=1, won=True),
            SeatResult(1, None, placement=2),
        ],
    )
    before = _balances(deployment, [a["owner_a"], a["scholar_rd"]])
    settled = _pay(world, finished)
    after = _balances(deployment, [a["owner_a"], a["scholar_rd"]])
    assert after[a["scholar_rd"]] == before[a["scholar_rd"]]
    # One human seat against a bot: one seat's emission (the bot's seat brings none).
    assert after[a["owner_a"]] - before[a["owner_a"]] == int(settled.paid) == DEW
    with world["sessions"]() as session:
        legs = session.scalars(select(LedgerLeg).where(LedgerLeg.match_id == finished.match_id))
        assert [(x.party, x.address, x.agreement_id) for x in legs] == [
            ("owner", a["owner_a"], None)
        ]
        report = reconcile_ledger(session=session, reader=world["reader"])
        assert report.ok, report.differences
        chain_now = deployment.w3.eth.get_block("latest")["timestamp"]
        rows = owner_view(session=session, owner=a["owner_a"], now_s=chain_now)
        view = {r["avatar_id"]: r for r in rows}
    row = view[world["avatar_a"]]
    assert (row["matches"], row["wins"], row["agreement_status"]) == (2, 2, "expired")
    assert row["owner_share"] + row["scholar_share"] == row["gross"]
    # Anyone may close the expired agreement; the mirror then shows how it ended.
    closer = world["keys"]["vip"]
    send(
        deployment.w3,
        closer,
        world["builder"].close(sender=address(closer), agreement_id=world["rd_id"]),
    )
    index_registry(session_factory=world["sessions"], reader=world["reader"])
    with world["sessions"]() as session:
        rd = session.get(AgreementMirror, world["rd_id"])
        assert (rd.status, rd.ended_by) == ("ended", "expired")
        assert (
            avatar_report(session=session, avatar_id=world["avatar_a"])["agreement_status"]
            == "expired"
        )
    with pytest.raises(Refused, match="AgreementWrongStatus"):
        world["builder"].close(sender=address(closer), agreement_id=world["rd_id"])


def test_early_termination_refunds_rent_pro_rata(deployment, world):
    w3, c = deployment.w3, deployment.contracts
    scholar = world["addr"]["scholar_fr"]
    before = c.token.functions.balanceOf(scholar).call()
    receipt = send(
        w3,
        world["keys"]["scholar_fr"],
        world["builder"].terminate(scholar=scholar, agreement_id=world["fr_id"]),
    )
    index_registry(session_factory=world["sessions"], reader=world["reader"])
    with world["sessions"]() as session:
        fr = session.get(AgreementMirror, world["fr_id"])
        earnings = scholar_earnings(session=session, scholar=scholar)
    refund = c.token.functions.balanceOf(scholar).call() - before
    ended = w3.eth.get_block(receipt["blockNumber"])["timestamp"]
    used = ended - fr.starts_at
    # Pro rata, but the owner keeps at least 10% of the rent (MIN_TERMINATION_BPS).
    assert refund == 100 * DEW - max(100 * DEW * used // (TERM_S * 10), 10 * DEW)
    assert fr.ended_at == ended
    assert (fr.status, fr.ended_by, int(fr.rent_refunded)) == ("ended", "terminated", refund)
    assert int(fr.rent_paid) + refund == 100 * DEW
    assert earnings["agreements"][0]["status"] == "terminated"
    assert earnings["paid"] > 0


def test_reconciliation_reports_a_tampered_ledger(world):
    sessions = world["sessions"]
    with sessions.begin() as session:
        leg = session.scalars(select(LedgerLeg).where(LedgerLeg.party == "treasury")).first()
        original = leg.amount
        session.execute(
            update(LedgerLeg).where(LedgerLeg.id == leg.id).values(amount=str(int(original) + 1))
        )
    try:
        with sessions() as session:
            report = reconcile_ledger(session=session, reader=world["reader"])
        assert not report.ok
        assert any(world["addr"]["treasury"] in d for d in report.differences)
    finally:
        with sessions.begin() as session:
            session.execute(update(LedgerLeg).where(LedgerLeg.id == leg.id).values(amount=original))


def test_season_leaderboard_and_schedule(world):
    with world["sessions"]() as session:
        board = season_leaderboard(session=session, season_id=world["season_id"])
        schedule = season_schedule(session=session)
    top = board[0]
    # Two wins, but the second was against a bot alone: only the contested match counts
    # for the leaderboard (backend.economy.counts).
    assert (top["address"], top["wins"], top["matches"]) == (world["addr"]["scholar_rd"], 1, 1)
    assert [r["rank"] for r in board] == list(range(1, len(board) + 1))
    assert all(r["address"] is not None for r in board)
    [season] = schedule
    assert season["status"] == "running"
    assert season["emitted"] + season["remaining"] == season["emission_budget"]
    assert season["emitted"] > 0


def test_staked_match_without_escrow_is_refused(world):
    a = world["addr"]
    finished = _match(
        3,
        [SeatResult(0, a["vip"], None, "vip", placement=1), SeatResult(1, None, placement=2)],
        stake=DEW,
    )
    with world["sessions"]() as session, pytest.raises(PolicyError, match="in escrow"):
        plan_settlement(
            session=session,
            match=finished,
            finished_at=utcnow(),
            policies=POLICIES,
            treasury=a["treasury"],
        )


def test_escrow_is_all_or_nothing_and_abandoned_matches_release_it(deployment, world):
    a = world["addr"]
    _deposit(deployment, world, ["vip"], 5 * DEW)
    sessions = world["sessions"]
    with sessions.begin() as session:
        start = stakes.stake_balance(session=session, address=a["vip"])
    with sessions() as session, pytest.raises(stakes.InsufficientStake):
        stakes.escrow_stakes(
            session=session,
            match_id="m-abandon",
            seats=[(0, a["vip"]), (1, a["owner_b"])],
            stake=DEW,
        )
    with sessions.begin() as session:
        assert stakes.stake_balance(session=session, address=a["vip"]) == start
        stakes.escrow_stakes(
            session=session, match_id="m-abandon", seats=[(0, a["vip"])], stake=2 * DEW
        )
        stakes.escrow_stakes(
            session=session, match_id="m-abandon", seats=[(0, a["vip"])], stake=2 * DEW
        )  # a retried match start charges once
        assert stakes.stake_balance(session=session, address=a["vip"]) == start - 2 * DEW
    with sessions.begin() as session:
        assert stakes.release_stakes(session=session, match_id="m-abandon") == 2 * DEW
        assert stakes.release_stakes(session=session, match_id="m-abandon") == 0
        assert stakes.stake_balance(session=session, address=a["vip"]) == start


def test_withdrawal_pays_the_balance_out_once_and_reconciles(deployment, world):
    a = world["addr"]
    sessions = world["sessions"]
    with sessions.begin() as session:
        balance = stakes.stake_balance(session=session, address=a["vip"])
        assert balance > 0
        first = stakes.request_withdrawal(
            session=session, address=a["vip"], amount=balance, key="w1"
        )
        again = stakes.request_withdrawal(
            session=session, address=a["vip"], amount=balance, key="w1"
        )
        assert again.match_id == first.match_id
        assert stakes.stake_balance(session=session, address=a["vip"]) == 0
        with pytest.raises(stakes.InsufficientStake):
            stakes.request_withdrawal(session=session, address=a["vip"], amount=1, key="w2")
        request_id, match_id = first.chain_request_id, first.match_id
    before = deployment.contracts.token.functions.balanceOf(a["vip"]).call()
    settled = _confirm(world, request_id, match_id)
    after = deployment.contracts.token.functions.balanceOf(a["vip"]).call()
    assert settled.status == "paid" and after - before == balance
    with sessions() as session:
        report = reconcile_ledger(session=session, reader=world["reader"])
    assert report.ok, report.differences


def test_failed_settlement_returns_its_emission_to_the_season(world):
    a = world["addr"]
    finished = _match(4, [SeatResult(0, a["vip"], None, "vip", placement=1)])
    sessions = world["sessions"]
    with sessions.begin() as session:
        emitted = int(get_season(session=session, season_id=world["season_id"]).emitted)
        planned = plan_settlement(
            session=session,
            match=finished,
            finished_at=utcnow(),
            policies=POLICIES,
            treasury=a["treasury"],
        )
        assert int(planned.emission) == DEW
        # The TX engine gave up on it (e.g. a revert it recorded as final).
        request = session.get(ChainRequest, planned.chain_request_id)
        request.status = RequestStatus.FAILED
        request.failure_reason = "reverted: SettlementInvalidMatch"
    with sessions.begin() as session:
        report = sync_settlements(session=session, reader=world["reader"])
        assert report.failed == 1
        settlement = session.get(PlannedSettlement, finished.match_id)
        season = get_season(session=session, season_id=world["season_id"])
        assert (settlement.status, int(season.emitted)) == ("failed", emitted)
        summary = wallet_summary(session=session, address=a["vip"])
        assert summary["failed"] == DEW
        report = reconcile_ledger(session=session, reader=world["reader"])
    assert report.ok, report.differences


def test_two_ledger_syncs_at_once_book_a_settlement_once(world):
    """Two workers' economy passes overlap: the second skips the settlement the first is
    booking (row lock) instead of booking its avatar legs a second time."""
    a, sessions = world["addr"], world["sessions"]
    finished = _match(
        7,
        [
            SeatResult(0, a["scholar_fr"], world["avatar_b"], "avatar_user", placement=1, won=True),
            SeatResult(1, None, placement=2),
        ],
    )
    with sessions.begin() as session:
        planned = plan_settlement(
            session=session,
            match=finished,
            finished_at=utcnow(),
            policies=POLICIES,
            treasury=a["treasury"],
            played_at_s=world["reader"].w3.eth.get_block("latest")["timestamp"],
        )
        request_id = planned.chain_request_id
    deadline = time.monotonic() + 30
    while True:
        world["engine"].step()
        with sessions() as session:
            if session.get(ChainRequest, request_id).status == RequestStatus.CONFIRMED:
                break
        assert time.monotonic() < deadline, "settlement not confirmed in 30s"
        time.sleep(0.05)

    first = sessions()
    first.begin()
    assert sync_settlements(session=first, reader=world["reader"]).paid == 1
    second: dict[str, SyncReport] = {}

    def sync_again() -> None:
        with sessions.begin() as session:
            second["report"] = sync_settlements(session=session, reader=world["reader"])

    other = threading.Thread(target=sync_again)
    other.start()
    other.join(timeout=10)
    waited = other.is_alive()
    first.commit()
    first.close()
    other.join(timeout=30)
    assert not other.is_alive()
    assert not waited, "the second sync waited on the first instead of skipping its rows"
    assert second["report"].paid == 0
    with sessions() as session:
        legs = list(
            session.scalars(select(LedgerLeg).where(LedgerLeg.match_id == finished.match_id))
        )
        # The Fixed Rent agreement was terminated above: the avatar's owner takes it all.
        assert [(x.party, x.address, x.status) for x in legs] == [("owner", a["owner_b"], "paid")]
        report = reconcile_ledger(session=session, reader=world["reader"])
    assert report.ok, report.differences


def test_last_day_match_settled_the_day_after_the_term_pays_the_scholar(deployment, world):
    """A match played in the Rewards Division term's last minute and settled a day after the
    term ended is split by that agreement: the scholar gets the scholar's share."""
    a = world["addr"]
    index_registry(session_factory=world["sessions"], reader=world["reader"])
    with world["sessions"]() as session:
        rd = session.get(AgreementMirror, world["rd_id"])
        assert rd.starts_at is not None and rd.ends_at is not None
        ends_at = rd.ends_at
    now = deployment.w3.eth.get_block("latest")["timestamp"]
    advance_time(deployment.w3, max(0, ends_at + 86_400 - now))
    finished = _match(
        90,
        [
            SeatResult(0, a["scholar_rd"], world["avatar_a"], "avatar_user", placement=1, won=True),
            SeatResult(1, None, placement=2),
        ],
    )
    owner, scholar = a["owner_a"], a["scholar_rd"]
    before = _balances(deployment, [owner, scholar])
    with world["sessions"].begin() as session:
        planned = plan_settlement(
            session=session,
            match=finished,
            finished_at=utcnow(),
            policies=POLICIES,
            treasury=a["treasury"],
            played_at_s=ends_at - 60,
        )
        predicted = {
            (leg.party, leg.address): int(leg.amount)
            for leg in session.scalars(
                select(LedgerLeg).where(LedgerLeg.match_id == finished.match_id)
            )
        }
        request_id = planned.chain_request_id
    settled = _confirm(world, request_id, finished.match_id)
    after = _balances(deployment, [owner, scholar])
    share = split_payout(int(settled.paid), owner_bps=3000, dust_to=Party.OWNER)
    assert share.scholar > 0
    assert after[scholar] - before[scholar] == share.scholar
    assert after[owner] - before[owner] == share.owner
    assert predicted == {("owner", owner): share.owner, ("scholar", scholar): share.scholar}
    with world["sessions"]() as session:
        paid = {
            (leg.party, leg.agreement_id, int(leg.amount))
            for leg in session.scalars(
                select(LedgerLeg).where(LedgerLeg.match_id == finished.match_id)
            )
        }
        report = reconcile_ledger(session=session, reader=world["reader"])
    assert paid == {
        ("owner", world["rd_id"], share.owner),
        ("scholar", world["rd_id"], share.scholar),
    }
    assert report.ok, report.differences
