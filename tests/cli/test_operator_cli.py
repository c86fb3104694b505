"""The operator's ``dew`` commands against a real worker, beat and anvil: ``dew mint-avatars``
queues a mint in the outbox, the worker sends it and ``--wait`` shows the minted avatars;
running it again with the same key mints nothing more. ``dew season create|schedule`` open
seasons; bad input exits 1 and changes nothing."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from eth_account import Account
from sqlalchemy import func, select

from backend.chain.models import ChainRequest
from backend.db import create_db_engine, make_session_factory
from backend.economy.models import Season
from tests.chain.conftest import wait_for
from tests.cli.conftest import start_worker_and_beat
from tests.fixtures.database import create_migrated_sqlite
from tests.fixtures.dew_cli import invoke_dew, run_dew


def test_mint_avatars_through_the_worker_once(deployment, interval_mining, workers, cli_flow):
    sessions, env = cli_flow.sessions, cli_flow.env
    start_worker_and_beat(workers, env)
    alice, bob = Account.create().address, Account.create().address
    avatar = deployment.contracts.avatar.functions

    done = run_dew(env, "mint-avatars", alice, bob, "--key", "cli-mint-1", "--wait")
    assert done.returncode == 0, done.stderr
    minted = {
        int(i): a for i, a in re.findall(r"avatar #(\d+) -> (0x[0-9a-fA-F]{40})", done.stdout)
    }
    assert sorted(minted.values()) == sorted([alice, bob])
    for token_id, owner in minted.items():
        assert avatar.ownerOf(token_id).call() == owner
    assert "minted in tx 0x" in done.stdout

    # A retry (the operator's shell lost the answer) returns the same request: no new mint.
    again = invoke_dew(env, "mint-avatars", alice, bob, "--key", "cli-mint-1", "--wait")
    assert again.returncode == 0, again.stderr
    assert set(re.findall(r"avatar #(\d+)", again.stdout)) == {str(i) for i in minted}
    assert avatar.balanceOf(alice).call() == 1 and avatar.balanceOf(bob).call() == 1

    # The same key for other recipients, a bad address, a bad key: refused, nothing queued.
    with sessions() as session:
        before = session.scalar(select(func.count()).select_from(ChainRequest))
    for args in (
        (alice, "--key", "cli-mint-1"),
        ("0x1234", "--key", "cli-mint-2"),
        (alice, "--key", "bad key!"),
    ):
        refused = invoke_dew(env, "mint-avatars", *args)
        assert refused.returncode == 1 and refused.stderr.startswith("error:"), refused
    with sessions() as session:
        assert session.scalar(select(func.count()).select_from(ChainRequest)) == before


def test_season_create_and_schedule(tmp_path):
    url = create_migrated_sqlite(tmp_path / "dew.sqlite3")
    engine = create_db_engine(url)
    sessions = make_session_factory(engine)
    env = {"DEW_DB_URL": url}

    made = run_dew(
        env,
        "season",
        "create",
        "Spring",
        "--budget",
        "5000",
        "--starts",
        "2300-01-01T00:00:00",
        "--rewards",
        "3000,2000",
    )
    assert made.returncode == 0, made.stderr
    assert "reserved from the budget: 5000" in made.stdout
    assert "'Spring' 2300-01-01T00:00:00+00:00 .. 2300-01-08T00:00:00+00:00" in made.stdout
    scheduled = invoke_dew(
        env,
        "season",
        "schedule",
        "--count",
        "3",
        "--budget",
        "7",
        "--first",
        "2300-02-01T00:00:00+00:00",
        "--days",
        "10",
        "--prefix",
        "Liga",
    )
    assert scheduled.returncode == 0, scheduled.stderr
    with sessions() as session:
        rows = {s.name: s for s in session.scalars(select(Season))}
    assert set(rows) == {"Spring", "Liga 1", "Liga 2", "Liga 3"}
    assert rows["Spring"].emission_budget == "5000" and rows["Liga 3"].emission_budget == "7"
    assert rows["Spring"].emitted == "5000" and rows["Liga 1"].emitted == "0"
    assert rows["Liga 3"].starts_at.replace(tzinfo=UTC) == datetime(2300, 2, 21, tzinfo=UTC)

    for args in (
        ("create", "Spring", "--budget", "1", "--starts", "2301-01-01T00:00:00"),  # name taken
        ("create", "Overlap", "--budget", "1", "--starts", "2300-01-02T00:00:00"),
        ("create", "Neg", "--budget", "-5", "--starts", "2302-01-01T00:00:00"),
        ("create", "When", "--budget", "1", "--starts", "soon"),
        ("create", "Greedy", "--budget", "10", "--starts", "2305-01-01", "--rewards", "6,5"),
        ("create", "Zero", "--budget", "10", "--starts", "2306-01-01", "--rewards", "0"),
        ("create", "Text", "--budget", "10", "--starts", "2307-01-01", "--rewards", "ten"),
        ("create", "Back", "--budget", "1", "--starts", "2303-01-02", "--ends", "2303-01-01"),
        # The third season would overlap Spring: none of the three is created.
        ("schedule", "--count", "3", "--budget", "1", "--first", "2299-12-20", "--days", "5"),
        ("schedule", "--count", "0", "--budget", "1", "--first", "2304-01-01"),
        ("schedule", "--count", "101", "--budget", "1", "--first", "2304-01-01"),
    ):
        refused = invoke_dew(env, "season", *args)
        assert refused.returncode != 0, (args, refused.stdout)
        assert "error" in refused.stderr.lower(), (args, refused.stderr)
    with sessions() as session:
        assert session.scalar(select(func.count()).select_from(Season)) == 4
    # Only a running season ends: these four have not started.
    refused = invoke_dew(env, "season", "end", "1")
    assert refused.returncode == 1 and "not running" in refused.stderr
    assert invoke_dew(env, "season", "end", "99").returncode == 1
    running = invoke_dew(env, "season", "create", "Now", "--budget", "0", "--days", "1")
    assert running.returncode == 0, running.stderr
    ended = invoke_dew(env, "season", "end", "5")
    assert ended.returncode == 0 and "season #5 'Now' ended" in ended.stdout, ended
    with sessions() as session:
        assert session.get(Season, 5).ends_at.replace(tzinfo=UTC) <= datetime.now(UTC)
    engine.dispose()


def test_beat_pays_an_ended_seasons_rewards_once(deployment, interval_mining, workers, cli_flow):
    """The beat entry ``settle-season-rewards`` finds the ended season, plans its one
    settlement, and the worker pays it; later passes pay nothing more."""
    from datetime import timedelta

    from backend.db.base import utcnow
    from backend.economy import season_rewards
    from backend.economy.models import PlannedSettlement, SeasonReward
    from backend.economy.policy import FinishedMatch, RewardPolicy, SeatResult, TableEconomy
    from backend.economy.seasons import create_season
    from backend.economy.settlement import plan_settlement

    dew = 10**18
    sessions, env = cli_flow.sessions, cli_flow.env
    alice, bob = Account.create().address, Account.create().address
    ends = utcnow() + timedelta(seconds=5)
    with sessions.begin() as session:
        season = create_season(
            session=session,
            name="Beat season",
            starts_at=utcnow() - timedelta(hours=1),
            ends_at=ends,
            emission_budget=100 * dew,
        )
        season_id = season.id
        season_rewards.set_rewards(session=session, season_id=season_id, places=[5 * dew, 3 * dew])
        # An earning match of the season (alice wins, bob second) under policies that emit
        # nothing: no payout, but a contested match, so a leaderboard (economy.counts).
        plan_settlement(
            session=session,
            match=FinishedMatch(
                match_id="beatseasonmatch00000000000001",
                chain_match_id="0x" + (7001).to_bytes(32, "big").hex(),
                result_hash="0x" + "cd" * 32,
                earning=True,
                stake=0,
                seats=(
                    SeatResult(0, alice, None, "wallet", placement=1, won=True, points=50),
                    SeatResult(1, bob, None, "wallet", placement=2, points=20),
                    SeatResult(2, None, placement=3),
                    SeatResult(3, None, placement=4),
                ),
            ),
            finished_at=utcnow(),
            policies={e: RewardPolicy() for e in TableEconomy},
            treasury=Account.create().address,
        )
    env["DEW_ECONOMY_SETTLE_EVERY_S"] = "1"
    start_worker_and_beat(workers, env)

    def paid() -> bool:
        with sessions() as session:
            planned = session.get(PlannedSettlement, season_rewards.settlement_key(season_id))
            if planned is None or planned.chain_request_id is None:
                return False
            return session.get(ChainRequest, planned.chain_request_id).status == "confirmed"

    wait_for(paid, timeout_s=120, what="the season's rewards paid by the worker")
    token = deployment.contracts.token.functions
    assert (token.balanceOf(alice).call(), token.balanceOf(bob).call()) == (5 * dew, 3 * dew)
    with sessions() as session:
        assert session.get(SeasonReward, season_id).planned_at is not None
        settles = session.scalar(
            select(func.count()).select_from(ChainRequest).where(ChainRequest.kind == "settle")
        )
    assert settles == 1  # the free match paid nothing; the season once
