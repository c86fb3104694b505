"""The read API shows a season's reward table and each place's payout, on SQLite and
PostgreSQL: ``reserved`` while the season runs, then, once the season's one settlement is
planned (the worker's service function), the wallet or avatar each reached place is booked
to with its amount and state, a place nobody reached ``returned``, and ``failed`` once the
ledger books the settlement failed. The leaderboard names the
reward of each place. The routes stay reads: a hostile caller gets 404/422 and nothing is
written."""

from __future__ import annotations

from datetime import timedelta

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import func, select, update

from backend.api.errors import install_error_handlers
from backend.api.routers.economy import router
from backend.config import Settings
from backend.db import create_db_engine, make_session_factory
from backend.db.base import utcnow
from backend.economy import ledger, season_rewards
from backend.economy.counts import Count
from backend.economy.models import (
    LedgerLeg,
    PlannedSettlement,
    Season,
    SeasonReward,
    SeatRecord,
    SettlementStatus,
)
from backend.economy.seasons import create_season
from backend.economy.stakes import checksum

DEW = 10**18
REWARDS = [50 * DEW, 30 * DEW, 20 * DEW]
WINNER = checksum("0x" + "a1" * 20)
SECOND = checksum("0x" + "b2" * 20)
TREASURY = "0x" + "C3" * 20


@pytest.fixture
def api(db_url):
    engine = create_db_engine(db_url)
    sessions = make_session_factory(engine)
    app = FastAPI()
    app.state.settings = Settings()
    app.state.session_factory = sessions
    app.include_router(router)
    install_error_handlers(app)
    with TestClient(app) as client:
        yield client, sessions
    engine.dispose()


AVATAR = 7


def _play(sessions, season_id: int, match_id: str, winner: str, loser: str) -> None:
    """One finished match of the season as the ledger records it (the leaderboard's source);
    the loser plays avatar #7 as its user (a rented avatar, no agreement mirrored here)."""
    finished = utcnow() - timedelta(minutes=5)
    with sessions.begin() as session:
        session.add(
            PlannedSettlement(
                match_id=match_id,
                chain_match_id="0x" + match_id.encode().hex().rjust(64, "0"),
                result_hash="0x" + "00" * 32,
                season_id=season_id,
                economy="emission",
                finished_at=finished,
                status=SettlementStatus.NOTHING,
            )
        )
        session.flush()
        for seat, (address, won) in enumerate(((winner, True), (loser, False))):
            session.add(
                SeatRecord(
                    match_id=match_id,
                    seat=seat,
                    season_id=season_id,
                    address=address,
                    avatar_id=None if won else AVATAR,
                    admitted_as=None if won else "avatar_user",
                    is_bot=False,
                    placement=1 if won else 2,
                    points=10 if won else 3,
                    won=won,
                    finished_at=finished,
                    # A contested earning match: what the one rule counts for the leaderboard.
                    counts=int(Count.EMISSION | Count.LEADERBOARD),
                )
            )


def _season(client, season_id: int) -> dict:
    [row] = [s for s in client.get("/economy/seasons").json() if s["id"] == season_id]
    return row


def test_reward_table_then_payouts_per_place(api):
    client, sessions = api
    with sessions.begin() as session:
        plain = create_season(
            session=session,
            name="No rewards",
            starts_at=utcnow() - timedelta(days=30),
            ends_at=utcnow() - timedelta(days=20),
            emission_budget=DEW,
        ).id
        season_id = create_season(
            session=session,
            name="Rewarded",
            starts_at=utcnow() - timedelta(days=1),
            ends_at=utcnow() + timedelta(days=1),
            emission_budget=1000 * DEW,
        ).id
        season_rewards.set_rewards(session=session, season_id=season_id, places=REWARDS)
    assert _season(client, plain)["rewards"] == []
    _play(sessions, season_id, "rewardapi-m1", WINNER, SECOND)
    _play(sessions, season_id, "rewardapi-m2", WINNER, SECOND)

    # While the season runs: the table, every place reserved, nobody paid yet.
    row = _season(client, season_id)
    assert row["remaining"] == str(1000 * DEW - sum(REWARDS))
    assert row["rewards"] == [
        {
            "place": i + 1,
            "amount": str(amount),
            "status": "reserved",
            "address": None,
            "avatar_id": None,
            "paid": None,
            "tx_hash": None,
        }
        for i, amount in enumerate(REWARDS)
    ]
    board = client.get(f"/economy/seasons/{season_id}/leaderboard").json()
    assert [(r["address"], r["reward"]) for r in board] == [
        (WINNER, str(REWARDS[0])),
        (SECOND, str(REWARDS[1])),
    ]
    assert client.get(f"/economy/seasons/{season_id}/leaderboard?limit=1").json()[0][
        "reward"
    ] == str(REWARDS[0])
    assert all(
        r["reward"] is None for r in client.get(f"/economy/seasons/{plain}/leaderboard").json()
    )

    # The season ends; the worker's service plans its one settlement.
    with sessions.begin() as session:
        session.execute(update(Season).where(Season.id == season_id).values(ends_at=utcnow()))
    with sessions.begin() as session:
        planned = season_rewards.plan_season_rewards(
            session=session, season_id=season_id, treasury=TREASURY
        )
        assert planned is not None and planned.match_id == f"season-{season_id}"
    row = _season(client, season_id)
    first, second, third = row["rewards"]
    assert first == {
        "place": 1,
        "amount": str(REWARDS[0]),
        "status": "planned",
        "address": WINNER,
        "avatar_id": None,
        "paid": str(REWARDS[0]),
        "tx_hash": None,
    }
    # Place 2's player sat on avatar #7 as its user: the avatar is paid, not the wallet.
    assert (second["status"], second["address"], second["avatar_id"], second["paid"]) == (
        "planned",
        None,
        AVATAR,
        str(REWARDS[1]),
    )
    # Nobody reached place 3: its reward went back to the season.
    assert (third["status"], third["address"], third["paid"]) == ("returned", None, None)
    assert row["remaining"] == str(1000 * DEW - REWARDS[0] - REWARDS[1])

    # Once the chain engine has sent it, each reached place names the settlement's transaction
    # (the real payment and its `paid` state: tests/web/test_season_rewards_in_browser.py).
    with sessions.begin() as session:
        session.execute(
            update(PlannedSettlement)
            .where(PlannedSettlement.match_id == f"season-{season_id}")
            .values(tx_hash="0x" + "cd" * 32)
        )
    row = _season(client, season_id)
    assert [p["tx_hash"] for p in row["rewards"]] == ["0x" + "cd" * 32] * 2 + [None]

    # The chain refuses it: the ledger books the settlement failed (what `sync_settlements`
    # does with a failed request) and each reached place shows failed, its DEW back in budget.
    with sessions.begin() as session:
        ledger._book_failed(
            session, session.get(PlannedSettlement, f"season-{season_id}"), "test: reverted"
        )
    row = _season(client, season_id)
    assert [p["status"] for p in row["rewards"]] == ["failed", "failed", "returned"]
    assert row["remaining"] == str(1000 * DEW)


def test_hostile_reads_change_nothing(api):
    client, sessions = api
    with sessions() as session:
        before = [
            session.scalar(select(func.count()).select_from(t))
            for t in (SeasonReward, LedgerLeg, PlannedSettlement)
        ]
    for path, status in (
        ("/economy/seasons/424242/leaderboard", 404),
        (f"/economy/seasons/{2**80}/leaderboard", 422),
        ("/economy/seasons/-1/leaderboard", 422),
        ("/economy/seasons/1/leaderboard?limit=0", 422),
        ("/economy/seasons/1/leaderboard?limit=501", 422),
        ("/economy/seasons/abc/leaderboard", 422),
    ):
        assert client.get(path).status_code == status, path
    for method in ("post", "put", "delete"):
        assert getattr(client, method)("/economy/seasons").status_code == 405
    with sessions() as session:
        after = [
            session.scalar(select(func.count()).select_from(t))
            for t in (SeasonReward, LedgerLeg, PlannedSettlement)
        ]
    assert after == before
