"""What a finished match counts for: the one rule (``backend.economy.counts``) and each of its
consumers on the real planner and database (SQLite and PostgreSQL): emission, the season's
leaderboard and rewards, a tournament's season-rank entry and seeding, the creators' and the
centers' fee legs. Free, practice, same-device and bots-only matches count for nothing but
the player's own history."""

from __future__ import annotations

import secrets
from datetime import UTC, datetime, timedelta

import pytest
from eth_account import Account
from sqlalchemy import select

from backend.centers.models import GameCenter
from backend.competitions import exceptions as competitions_exc
from backend.competitions import jobs as competitions_jobs
from backend.competitions import service as competitions
from backend.config import Settings
from backend.creators import service as creators
from backend.creators.routing import FeeRouting
from backend.db import create_db_engine, make_session_factory
from backend.economy import season_rewards, stakes
from backend.economy.counts import HISTORY_ONLY, Count, match_counts, seat_counts
from backend.economy.fees.schedule import FeeSchedule
from backend.economy.models import LedgerLeg, SeatRecord
from backend.economy.policy import (
    DEW,
    FinishedMatch,
    RewardPolicy,
    SeatResult,
    TableEconomy,
    default_policies,
    plan_rewards,
)
from backend.economy.reports import season_leaderboard
from backend.economy.seasons import create_season
from backend.economy.settlement import plan_settlement
from backend.tables.hosting import center_of_table
from backend.tables.models import Table
from tests.creators.helpers import bind

TREASURY = Account.create().address
STAKE = 10 * DEW
EVERYTHING = Count.EMISSION | Count.LEADERBOARD | Count.CREATOR_EARNINGS | Count.CENTER_EARNINGS


def wallet() -> str:
    return str(Account.create().address)


def match(seats: list[SeatResult], *, earning: bool, stake: int = 0, **kw) -> FinishedMatch:
    return FinishedMatch(
        match_id=secrets.token_hex(16),
        chain_match_id="0x" + secrets.token_hex(32),
        result_hash="0x" + "ab" * 32,
        earning=earning,
        stake=stake,
        seats=tuple(seats),
        **kw,
    )


def won(seat: int, address: str | None, team: int | None = None) -> SeatResult:
    return SeatResult(seat, address, team=team, placement=1, won=True, points=100)


def lost(seat: int, address: str | None, team: int | None = None) -> SeatResult:
    return SeatResult(seat, address, team=team, placement=2, points=10)


# --- the rule ------------------------------------------------------------------------------


def test_the_rule_for_every_kind_of_match():
    a, b = wallet(), wallet()
    practice = match([won(0, a), lost(1, None)], earning=False)
    same_device = match([won(0, a), lost(1, a)], earning=False)
    bots_only = match([won(0, None), lost(1, None)], earning=False)
    free_humans = match([won(0, a), lost(1, b)], earning=False)
    earning_vs_bots = match([won(0, a), lost(1, None)], earning=True)
    # Two wallets, one side: partners against bots beat nobody.
    partners_vs_bots = match(
        [won(0, a, 0), lost(1, None, 1), won(2, b, 0), lost(3, None, 1)], earning=True
    )
    contested = match([won(0, a), lost(1, b)], earning=True)
    staked = match([won(0, a), lost(1, b)], earning=True, stake=STAKE)
    staked_vs_bots = match([won(0, a), lost(1, None)], earning=True, stake=STAKE)
    aborted = match([won(0, a), lost(1, b)], earning=True, stake=STAKE, aborted=True)

    for nothing in (practice, same_device, bots_only, free_humans, aborted):
        assert match_counts(nothing) == HISTORY_ONLY, nothing
    assert match_counts(earning_vs_bots) == Count.EMISSION
    assert match_counts(partners_vs_bots) == Count.EMISSION
    assert match_counts(contested) == Count.EMISSION | Count.LEADERBOARD
    assert match_counts(staked) == EVERYTHING
    assert match_counts(staked_vs_bots) == EVERYTHING & ~Count.LEADERBOARD

    # A seat: its match's counts if a human's still eligible at the end, else nothing.
    assert seat_counts(staked, staked.seats[0]) == EVERYTHING
    assert seat_counts(staked, staked.seats[1]) == EVERYTHING  # the loser's loss counts too
    assert seat_counts(staked_vs_bots, staked_vs_bots.seats[1]) == HISTORY_ONLY  # the bot
    lapsed = SeatResult(1, b, placement=2, eligible=False)
    assert seat_counts(match([won(0, a), lapsed], earning=True), lapsed) == HISTORY_ONLY
    # Addresses are compared whatever their case: one wallet is one wallet.
    assert match_counts(match([won(0, a), lost(1, a.lower())], earning=True)) == Count.EMISSION


def test_emission_is_paid_only_where_the_rule_counts_it():
    """``plan_rewards`` reads the rule, not the table's policy: a free match emits nothing
    even under a policy that would pay it; an earning match emits per human seat."""
    generous = RewardPolicy(emission_per_seat=10 * DEW)
    a, b = wallet(), wallet()
    for free in (
        match([won(0, a), lost(1, None)], earning=False),  # practice against a bot
        match([won(0, a), lost(1, a)], earning=False),  # same-device
        match([won(0, a), lost(1, b)], earning=True, stake=STAKE, aborted=True),
    ):
        plan = plan_rewards(free, generous)
        assert plan.emission == 0 and all(p.emission_share == 0 for p in plan.payouts)
    contested = plan_rewards(match([won(0, a), lost(1, b)], earning=True), generous)
    assert contested.emission == 20 * DEW
    assert {p.address: p.emission_share for p in contested.payouts} == {a: 20 * DEW}
    # Against a bot the human still earns (gated, capped): its own seat's emission only.
    versus_bot = plan_rewards(match([won(0, a), lost(1, None)], earning=True), generous)
    assert versus_bot.emission == 10 * DEW and versus_bot.paid == 10 * DEW


# --- the consumers on the database ---------------------------------------------------------


@pytest.fixture(scope="module")
def sessions(db_url):
    engine = create_db_engine(db_url)
    yield make_session_factory(engine)
    engine.dispose()


def past_season(sessions, rewards: list[int] | None = None) -> tuple[int, datetime]:
    """A season of one hour in the past, at its own random slot (seasons never overlap);
    its id and a time inside it. ``rewards``: its reward table (set before it started)."""
    starts = datetime(2025, 1, 1, tzinfo=UTC) + timedelta(hours=secrets.randbelow(10_000))
    with sessions.begin() as session:
        season = create_season(
            session=session,
            name=f"counts-{secrets.token_hex(6)}",
            starts_at=starts,
            ends_at=starts + timedelta(hours=1),
            emission_budget=1_000 * DEW,
        )
        if rewards:
            season.ends_at = datetime.now(UTC) + timedelta(days=1)  # not ended yet
            session.flush()
            season_rewards.set_rewards(session=session, season_id=season.id, places=rewards)
            season.ends_at = starts + timedelta(hours=1)
        return season.id, starts + timedelta(minutes=30)


def escrow(sessions, found: FinishedMatch) -> None:
    with sessions.begin() as session:
        humans = [(s.seat, s.address) for s in found.seats if s.address is not None]
        for _, address in humans:
            stakes.credit_deposit(
                session=session,
                address=address,
                amount=found.stake,
                tx_hash="0x" + secrets.token_hex(32),
                log_index=0,
            )
        stakes.escrow_stakes(
            session=session, match_id=found.match_id, seats=humans, stake=found.stake
        )


def plan(sessions, found: FinishedMatch, at: datetime, schedule: FeeSchedule | None = None):
    if found.stake:
        escrow(sessions, found)
    with sessions.begin() as session:
        plan_settlement(
            session=session,
            match=found,
            finished_at=at,
            policies=default_policies(),
            treasury=TREASURY,
            chain_id=31337,
            schedule=schedule,
            recipients=FeeRouting(center_of_table=center_of_table),
        )
    return found


def farm(sessions, farmer: str, at: datetime, n: int = 3) -> None:
    """What the free farmer plays: practice wins against easy bots and same-device wins, and
    (with an avatar) earning wins against a bot alone."""
    for _ in range(n):
        plan(sessions, match([won(0, farmer), lost(1, None)], earning=False), at)
        plan(sessions, match([won(0, farmer), lost(1, farmer)], earning=False), at)
        plan(sessions, match([won(0, farmer), lost(1, None)], earning=True), at)


def test_seat_records_store_the_rule_and_the_leaderboard_reads_it(sessions):
    season_id, at = past_season(sessions)
    farmer, player, rival = wallet(), wallet(), wallet()
    farm(sessions, farmer, at)
    real = plan(sessions, match([won(0, player), lost(1, rival)], earning=True), at)
    with sessions() as session:
        stored = {
            (r.match_id, r.seat): r.counts
            for r in session.scalars(select(SeatRecord).where(SeatRecord.season_id == season_id))
        }
        board = season_leaderboard(session=session, season_id=season_id)
    assert len(stored) == 3 * 3 * 2 + 2, "every match is in its players' history"
    assert stored[(real.match_id, 0)] == Count.EMISSION | Count.LEADERBOARD
    assert {c for key, c in stored.items() if key[0] != real.match_id} <= {
        HISTORY_ONLY,
        Count.EMISSION,
    }
    assert [(r["address"], r["wins"], r["matches"]) for r in board] == [
        (player, 1, 1),
        (rival, 0, 1),
    ]


def test_the_seasons_rewards_go_down_the_counted_leaderboard_only(sessions):
    season_id, at = past_season(sessions, rewards=[30 * DEW, 20 * DEW])
    farmer, player, rival = wallet(), wallet(), wallet()
    farm(sessions, farmer, at, n=4)
    plan(sessions, match([won(0, player), lost(1, rival)], earning=True), at)
    with sessions.begin() as session:
        planned = season_rewards.plan_season_rewards(
            session=session, season_id=season_id, treasury=TREASURY
        )
        assert planned is not None
        legs = {
            leg.address: int(leg.amount)
            for leg in session.scalars(
                select(LedgerLeg).where(LedgerLeg.match_id == planned.match_id)
            )
        }
    assert legs == {player: 30 * DEW, rival: 20 * DEW}
    assert farmer not in legs


def test_the_season_rank_entry_rule_and_the_seeding_read_the_counted_leaderboard(sessions):
    season_id, at = past_season(sessions)
    farmer, player, rival = wallet(), wallet(), wallet()
    farm(sessions, farmer, at, n=4)
    plan(sessions, match([won(0, player), lost(1, rival)], earning=True), at)
    spec = {"preset": "draw", "starts_at": datetime.now(UTC) + timedelta(hours=1)}
    with sessions() as session:
        ranked = competitions.create_tournament(
            session=session,
            spec=competitions.TournamentSpec(
                name=f"top two {season_id}", season_id=season_id, max_rank=2, **spec
            ),
        )
        competitions.register(session=session, gate=None, tournament_id=ranked.id, address=player)
        with pytest.raises(competitions_exc.NotEligible, match="top 2"):
            competitions.register(
                session=session, gate=None, tournament_id=ranked.id, address=farmer
            )
        seeded = competitions.create_tournament(
            session=session,
            spec=competitions.TournamentSpec(
                name=f"seeded {season_id}",
                season_id=season_id,
                min_entrants=4,
                max_entrants=4,
                **spec,
            ),
        )
        for address in (farmer, rival, player):
            competitions.register(
                session=session, gate=None, tournament_id=seeded.id, address=address
            )
        competitions.add_bots(session=session, tournament_id=seeded.id, count=1)
        seeded_id = seeded.id
    # Full: the worker seeds it by the season's leaderboard and starts round 1.
    competitions_jobs.advance_tournaments(session_factory=sessions, settings=Settings())
    with sessions() as session:
        seeds = {
            e.address: e.seed
            for e in competitions.entrants_of(session=session, tournament_id=seeded_id)
        }
    assert seeds[player] == 1 and seeds[rival] == 2
    assert seeds[farmer] > 2, "unranked: seeded after the ranked entrants"


def test_creators_earn_and_count_only_the_matches_the_rule_counts_for_them(sessions):
    creator, player, rival = Account.create(), Account.create(), Account.create()
    schedule = FeeSchedule(creator_bps=1_000)
    with sessions() as session:
        code = creators.register(
            session=session, address=creator.address, code="CNT" + player.address[2:9]
        ).code
    bind(sessions, player, code, schedule)
    at = datetime.now(UTC)  # after the binding
    p, r = player.address, rival.address
    free = [
        plan(sessions, match([won(0, p), lost(1, None)], earning=False), at, schedule),
        plan(sessions, match([won(0, p), lost(1, p)], earning=False), at, schedule),
    ]
    staked = plan(sessions, match([won(0, p), lost(1, r)], earning=True, stake=STAKE), at, schedule)
    with sessions() as session:
        earned = {
            leg.match_id: int(leg.amount)
            for leg in session.scalars(
                select(LedgerLeg).where(
                    LedgerLeg.party == "fee_creator", LedgerLeg.address == creator.address
                )
            )
        }
        board = creators.dashboard(session=session, address=creator.address)
    fee = 2 * STAKE * 500 // 10_000
    assert earned == {staked.match_id: fee // 2 * 1_000 // 10_000}
    assert all(m.match_id not in earned for m in free)
    assert board["players"][0]["matches"] == 1, "the free matches earn the creator nothing"


def test_a_center_earns_only_from_the_matches_the_rule_counts_for_it(sessions):
    _, at = past_season(sessions)
    center_id, table_id = secrets.randbelow(2**40) + 1, secrets.token_hex(16)
    owner = wallet()
    with sessions.begin() as session:
        session.add(
            GameCenter(
                center_id=center_id,
                name="Counts Club",
                country="PR",
                city="Ponce",
                lat_e2=1801,
                lon_e2=-6661,
                capacity=4,
                owner=owner,
                minted_block=1,
                updated_block=1,
            )
        )
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
    a, b = wallet(), wallet()
    hosted = [
        plan(sessions, match([won(0, a), lost(1, b)], earning=False, table_id=table_id), at),
        plan(sessions, match([won(0, a), lost(1, None)], earning=True, table_id=table_id), at),
        plan(
            sessions,
            match([won(0, a), lost(1, b)], earning=True, stake=STAKE, table_id=table_id),
            at,
        ),
    ]
    with sessions() as session:
        legs = {
            leg.match_id: int(leg.amount)
            for leg in session.scalars(
                select(LedgerLeg).where(LedgerLeg.party == "fee_center", LedgerLeg.address == owner)
            )
        }
    assert [Count.CENTER_EARNINGS in match_counts(m) for m in hosted] == [False, False, True]
    fee = 2 * STAKE * 500 // 10_000
    assert legs == {hosted[2].match_id: fee * 2_000 // 10_000}


def test_every_table_economy_has_a_rule():
    a, b = wallet(), wallet()
    for economy, earning, stake in (
        (TableEconomy.FREE, False, 0),
        (TableEconomy.EMISSION, True, 0),
        (TableEconomy.STAKED, True, STAKE),
    ):
        found = match([won(0, a), lost(1, b)], earning=earning, stake=stake)
        assert found.economy is economy
        assert (Count.EMISSION in match_counts(found)) is (economy is not TableEconomy.FREE)
