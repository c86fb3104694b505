"""Farming the season with free play, against a real server process on SQLite and PostgreSQL.

A fresh wallet (no avatar, no pass, no stake, no terms) plays free practice matches against
easy bots and same-device matches (one guaranteed win each), as fast as the server lets it;
the economy plans them as the worker does. A rival plays one contested earning match. The
farmer must gain nothing beyond its own history: no row on the season's leaderboard, no
season reward, no entry to a tournament for the season's top ranks, no better seed
(``backend.economy.counts``; docs/economy.md, "What a match counts for").
"""

from __future__ import annotations

import secrets
from datetime import timedelta

import pytest
from eth_account import Account
from sqlalchemy import select

from backend.competitions import jobs as competitions_jobs
from backend.competitions import service as competitions
from backend.config import Settings
from backend.db import create_db_engine, make_session_factory
from backend.db.base import utcnow
from backend.economy import jobs as economy_jobs
from backend.economy import season_rewards
from backend.economy.models import LedgerLeg, SeatRecord
from backend.economy.operator import create_season
from backend.economy.policy import DEW, FinishedMatch, SeatResult, default_policies
from backend.economy.reports import season_leaderboard
from backend.economy.settlement import plan_settlement
from backend.protocol.client import DewClient
from tests.fixtures.harness import api

PRACTICE = {"preset": "draw", "seats": 2, "kind": "practice", "bot_level": "easy"}
SAME_DEVICE = {"preset": "draw", "seats": 2, "kind": "same_device"}
ROUNDS = 3
REWARDS = [30 * DEW, 20 * DEW, 10 * DEW]
TREASURY = Account.create().address


@pytest.fixture(scope="module")
def books(db_url):
    engine = create_db_engine(db_url)
    yield make_session_factory(engine)
    engine.dispose()


def test_free_practice_and_same_device_wins_give_no_rank_reward_entry_or_seed(start_server, books):
    with books.begin() as session:
        season = create_season(
            session=session,
            name=f"farmed-{secrets.token_hex(4)}",
            starts_at=utcnow() - timedelta(hours=1),
            ends_at=utcnow() + timedelta(hours=1),
            emission_budget=1_000 * DEW,
            rewards=REWARDS,
        )
        season_id = season.id
    server = start_server(bot_move_delay_s=0.0, turn_timeout_s=30)
    farmer = Account.create()
    played = []
    with DewClient(server.url) as client:
        client.sign_in(farmer.key)
        for _ in range(ROUNDS):
            for spec in (PRACTICE, SAME_DEVICE):
                table = client.create_table(**spec)
                assert table["status"] == "playing", table
                over = client.play(table["id"], timeout_s=60)
                played.append(over["match_id"])
        token = client.token
    # The economy plans the finished matches, as the worker's cycle does.
    report = economy_jobs.plan_finished_matches(session_factory=books, settings=Settings())
    assert set(played) <= set(report.planned) and not report.rejected
    with books() as session:
        farmed = list(
            session.scalars(select(SeatRecord).where(SeatRecord.address == farmer.address))
        )
    # Every match is in the farmer's own history, with a win at least per same-device match.
    assert {r.match_id for r in farmed} == set(played)
    assert sum(r.won for r in farmed) >= ROUNDS

    # A rival's one contested earning match (the gated kind: planned as the server queues it).
    rival, second = Account.create().address, Account.create().address
    with books.begin() as session:
        plan_settlement(
            session=session,
            match=FinishedMatch(
                match_id=secrets.token_hex(16),
                chain_match_id="0x" + secrets.token_hex(32),
                result_hash="0x" + "ef" * 32,
                earning=True,
                stake=0,
                seats=(
                    SeatResult(0, rival, placement=1, won=True, points=60),
                    SeatResult(1, second, placement=2, points=20),
                ),
            ),
            finished_at=utcnow(),
            policies=default_policies(),
            treasury=TREASURY,
        )

    # The leaderboard as GET /economy/seasons/{id}/leaderboard serves it (that router needs
    # a chain deployment; the ranking is this service's, on the server's database).
    with books() as session:
        board = season_leaderboard(session=session, season_id=season_id)
    assert farmer.address not in [r["address"] for r in board], board
    assert [(r["address"], r["rank"]) for r in board] == [(rival, 1), (second, 2)]

    # A tournament for the season's top 2: the farmer is not among them.
    with books() as session:
        ranked = competitions.create_tournament(
            session=session,
            spec=competitions.TournamentSpec(
                name=f"top two {season_id}",
                preset="draw",
                starts_at=utcnow() + timedelta(hours=1),
                season_id=season_id,
                max_rank=2,
            ),
        ).id
        seeded = competitions.create_tournament(
            session=session,
            spec=competitions.TournamentSpec(
                name=f"seeded {season_id}",
                preset="draw",
                starts_at=utcnow() + timedelta(hours=1),
                season_id=season_id,
                min_entrants=4,
                max_entrants=4,
            ),
        ).id
    with api(server.url, token) as signed:
        refused = signed.post(f"/competitions/{ranked}/register")
        assert refused.status_code == 403, refused.text
        assert refused.json()["error"]["code"] == "not_eligible"
        entered = signed.post(f"/competitions/{seeded}/register")
        assert entered.status_code == 200, entered.text
    with books() as session:
        assert [
            e.address for e in competitions.entrants_of(session=session, tournament_id=ranked)
        ] == []
        for address in (second, rival):
            competitions.register(session=session, gate=None, tournament_id=seeded, address=address)
        competitions.add_bots(session=session, tournament_id=seeded, count=1)
    competitions_jobs.advance_tournaments(session_factory=books, settings=Settings())
    with books() as session:
        seeds = {
            e.address: e.seed
            for e in competitions.entrants_of(session=session, tournament_id=seeded)
        }
    assert (seeds[rival], seeds[second]) == (1, 2), seeds
    assert seeds[farmer.address] > 2, seeds

    # The season ends: its rewards go down the leaderboard, none to the farmer.
    with books.begin() as session:
        planned = season_rewards.plan_season_rewards(
            session=session,
            season_id=season_id,
            treasury=TREASURY,
            now=utcnow() + timedelta(hours=2),  # after the season's end
        )
        assert planned is not None
        paid = {
            leg.address: int(leg.amount)
            for leg in session.scalars(
                select(LedgerLeg).where(LedgerLeg.match_id == planned.match_id)
            )
        }
    assert paid == {rival: REWARDS[0], second: REWARDS[1]}
    assert farmer.address not in paid
