"""Season rewards on a real anvil: a season's reward table, reserved from its budget, is paid
at its end as ONE settlement by the real transaction engine, the first place's reward going
to the rented avatar it played and split by the scholarship like a match reward; booked in
the ledger on PostgreSQL and reconciled with the chain. Planning again (a retried or crashed
worker) pays nothing more; places nobody reached return to the season."""

from __future__ import annotations

import time
from datetime import datetime, timedelta

import pytest
from eth_account import Account
from sqlalchemy import func, select, update

from backend.chain.calls import ContractCalls
from backend.chain.engine import Engine
from backend.chain.models import ChainRequest, RequestStatus
from backend.chain.rpc import Rpc
from backend.cli.services import wait_for
from backend.config import ChainSettings
from backend.db import create_db_engine, make_session_factory
from backend.db.base import aware, utcnow
from backend.economy import operator, season_rewards
from backend.economy.chain_reader import ChainReader
from backend.economy.exceptions import Conflict, EconomyValueError, InsufficientBudget
from backend.economy.ledger import reconcile_ledger, sync_settlements
from backend.economy.models import PlannedSettlement, Season
from backend.economy.policy import (
    DEW,
    FinishedMatch,
    Party,
    RewardPolicy,
    SeatResult,
    TableEconomy,
    Terms,
    split_payout,
)
from backend.economy.reports import wallet_summary
from backend.economy.scholarships.indexer import index_registry
from backend.economy.scholarships.transactions import OfferTerms, ScholarshipTxBuilder
from backend.economy.seasons import create_season
from backend.economy.settlement import plan_settlement
from tests.economy.chain_helpers import address, mint_avatars, send

POLICIES = {
    TableEconomy.FREE: RewardPolicy(),
    TableEconomy.EMISSION: RewardPolicy(emission_per_seat=DEW),
    TableEconomy.STAKED: RewardPolicy(fee_bps=500, emission_per_seat=DEW),
}
REWARDS = [50 * DEW, 30 * DEW, 20 * DEW]


@pytest.fixture(scope="module")
def world(deployment, pg_url):
    """An owner's avatar rented to a scholar (Rewards Division, owner 30 %), a VIP player."""
    w3, c = deployment.w3, deployment.contracts
    k = deployment.player_keys
    who = {"owner": k[0], "scholar": k[2], "vip": k[4]}
    addr = {name: address(key) for name, key in who.items()}
    addr["treasury"] = Account.create().address
    builder = ScholarshipTxBuilder(c)
    [avatar] = mint_avatars(deployment, [addr["owner"]])
    send(
        w3,
        deployment.operator_key,
        builder.screen_owner(screener=deployment.operator, owner=addr["owner"]),
    )
    terms = OfferTerms(
        terms=Terms.REWARDS_DIVISION, duration_s=3600, owner_bps=3000, dust_to=Party.OWNER
    )
    send(
        w3,
        who["owner"],
        builder.offer(owner=addr["owner"], avatar_id=avatar, terms=terms, scholar=addr["scholar"]),
    )
    agreement = c.registry.functions.agreementCount().call()
    for tx in builder.accept(scholar=addr["scholar"], agreement_id=agreement):
        send(w3, who["scholar"], tx)
    db = create_db_engine(pg_url)
    sessions = make_session_factory(db)
    reader = ChainReader(c, confirmations=1)
    index_registry(session_factory=sessions, reader=reader)
    engine = Engine(
        session_factory=sessions,
        rpc=Rpc(deployment.anvil.rpc_url),
        account=Account.from_key(deployment.operator_key),
        chain_id=deployment.manifest.chain_id,
        calls=ContractCalls(c),
        settings=ChainSettings(confirmations=1, poll_interval_s=0.05, stuck_after_s=600),
    )
    yield {"addr": addr, "avatar": avatar, "sessions": sessions, "reader": reader, "engine": engine}
    db.dispose()


def _confirm(world, request_id: int) -> None:
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
        assert sync_settlements(session=session, reader=world["reader"]).mismatches == []


def _balances(deployment, addresses):
    token = deployment.contracts.token
    return {a: token.functions.balanceOf(a).call() for a in addresses}


def test_season_rewards_are_paid_once_with_the_rented_avatar_split(deployment, world):
    a, sessions = world["addr"], world["sessions"]
    with sessions.begin() as session:
        season = create_season(
            session=session,
            name="Rewarded season",
            starts_at=utcnow() - timedelta(hours=1),
            ends_at=utcnow() + timedelta(hours=1),
            emission_budget=1000 * DEW,
        )
        season_id = season.id
        season_rewards.set_rewards(session=session, season_id=season_id, places=REWARDS)
        # Reserved at once: the season has 100 DEW less to emit in match rewards.
        assert int(season.emitted) == sum(REWARDS)
    # Bad tables are refused and change nothing.
    for places, error in (
        ([], EconomyValueError),
        ([0], EconomyValueError),
        ([-DEW], EconomyValueError),
        ([1] * 21, EconomyValueError),
        ([DEW], Conflict),  # a second table for the same season
    ):
        with pytest.raises(error), sessions.begin() as session:
            season_rewards.set_rewards(session=session, season_id=season_id, places=places)
    with sessions() as session:
        assert session.get(Season, season_id).emitted == str(sum(REWARDS))

    # One match of the season: the scholar (on the rented avatar) wins, the VIP is second.
    finished = FinishedMatch(
        match_id="seasonrewardmatch000000000001",
        chain_match_id="0x" + (9001).to_bytes(32, "big").hex(),
        result_hash="0x" + "ab" * 32,
        earning=True,
        stake=0,
        seats=(
            SeatResult(
                0, a["scholar"], world["avatar"], "avatar_user", placement=1, won=True, points=120
            ),
            SeatResult(1, a["vip"], None, "vip", placement=2, points=80),
            SeatResult(2, None, placement=3),
            SeatResult(3, None, placement=4),
        ),
    )
    finished_at_chain_s = world["reader"].w3.eth.get_block("latest")["timestamp"]
    with sessions.begin() as session:
        planned = plan_settlement(
            session=session,
            match=finished,
            finished_at=utcnow(),
            policies=POLICIES,
            treasury=a["treasury"],
            played_at_s=finished_at_chain_s,
        )
        match_request = planned.chain_request_id
        match_emission = int(planned.emission) - int(planned.returned)
    _confirm(world, match_request)

    # Not ended yet: nothing is due, and planning it is refused.
    with sessions() as session:
        assert season_id not in season_rewards.due_seasons(session=session)
    with pytest.raises(EconomyValueError), sessions.begin() as session:
        season_rewards.plan_season_rewards(
            session=session, season_id=season_id, treasury=a["treasury"]
        )
    # The season's time runs out. Its end, read in chain time, must fall after the match and
    # the agreement (a season ends long after them in real use; here they are a second apart,
    # and anvil's block times can run ahead of the wall clock): wait until it does.
    offset = world["reader"].clock_offset_s
    played_at_s = finished_at_chain_s

    def end_is_after_play() -> datetime | None:
        ends_at = utcnow() - timedelta(seconds=1)
        return ends_at if int(ends_at.timestamp()) + offset() > played_at_s else None

    ends_at = wait_for("the season's end after the match, in chain time", end_is_after_play)
    with sessions.begin() as session:
        session.execute(update(Season).where(Season.id == season_id).values(ends_at=ends_at))

    watched = [a["owner"], a["scholar"], a["vip"], a["treasury"]]
    before = _balances(deployment, watched)
    kwargs = {
        "session_factory": sessions,
        "treasury": a["treasury"],
        "chain_id": deployment.manifest.chain_id,
        "chain_clock_offset_s": offset,
    }
    assert season_rewards.settle_due(**kwargs) == {"due": 1, "planned": 1}
    # The worker runs again (beat, a retry after a crash): nothing is planned twice.
    assert season_rewards.settle_due(**kwargs) == {"due": 0, "planned": 0}
    with sessions.begin() as session:
        again = season_rewards.plan_season_rewards(
            session=session, season_id=season_id, treasury=a["treasury"]
        )
        assert again is not None and again.match_id == season_rewards.settlement_key(season_id)
        request_id = again.chain_request_id
        rewards_requests = session.scalar(
            select(func.count()).select_from(ChainRequest).where(ChainRequest.id > match_request)
        )
    assert rewards_requests == 1
    _confirm(world, request_id)

    first = split_payout(REWARDS[0], owner_bps=3000, dust_to=Party.OWNER)
    expected = {
        a["owner"]: first.owner,
        a["scholar"]: first.scholar,
        a["vip"]: REWARDS[1],
        a["treasury"]: 0,
    }
    after = _balances(deployment, watched)
    assert {x: after[x] - before[x] for x in watched} == expected
    with sessions() as session:
        paid = session.get(PlannedSettlement, season_rewards.settlement_key(season_id))
        assert paid.status == "paid" and int(paid.paid) == REWARDS[0] + REWARDS[1]
        assert wallet_summary(session=session, address=a["vip"])["pending"] == 0
        # The third place was reached by nobody: its 20 DEW went back to the season.
        season = session.get(Season, season_id)
        assert int(season.emitted) == match_emission + REWARDS[0] + REWARDS[1]
        report = reconcile_ledger(session=session, reader=world["reader"])
    assert report.ok, report.differences
    assert report.matches_checked == 2
    # Once more after payment: still one settlement, nothing new in the outbox.
    with sessions() as session:
        requests = session.scalar(select(func.count()).select_from(ChainRequest))
    assert season_rewards.settle_due(**kwargs) == {"due": 0, "planned": 0}
    with sessions() as session:
        assert session.scalar(select(func.count()).select_from(ChainRequest)) == requests


def test_a_reward_table_larger_than_the_budget_is_refused(world):
    sessions = world["sessions"]
    with sessions.begin() as session:
        season = create_season(
            session=session,
            name="Small season",
            starts_at=utcnow() + timedelta(days=400),
            ends_at=utcnow() + timedelta(days=401),
            emission_budget=10 * DEW,
        )
        season_id = season.id
    with pytest.raises(InsufficientBudget), sessions.begin() as session:
        season_rewards.set_rewards(session=session, season_id=season_id, places=[6 * DEW, 5 * DEW])
    # Ending a season that has not started is refused too (only a running season ends).
    with pytest.raises(EconomyValueError), sessions.begin() as session:
        operator.end_season(session=session, season_id=season_id)
    with sessions() as session:
        season = session.get(Season, season_id)
        assert season.emitted == "0" and aware(season.ends_at) > utcnow()
        assert season_rewards.due_seasons(session=session) == []
