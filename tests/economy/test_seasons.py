"""Season schedule: back-to-back seasons, no overlaps, a match belongs to the season it
finished in, and bad schedules are refused without writing anything."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import func, select

from backend.db import create_db_engine, make_session_factory
from backend.economy.exceptions import EconomyValueError
from backend.economy.models import Season
from backend.economy.reports import season_schedule
from backend.economy.seasons import create_season, schedule_seasons, season_at

START = datetime(2027, 1, 1, tzinfo=UTC)


def test_schedule_and_lookup(db_url):
    engine = create_db_engine(db_url)
    sessions = make_session_factory(engine)
    with sessions.begin() as session:
        seasons = schedule_seasons(
            session=session,
            first_starts_at=START,
            count=3,
            length=timedelta(days=28),
            emission_budget=1000,
        )
        assert [s.name for s in seasons] == ["Season 1", "Season 2", "Season 3"]
    with sessions() as session:
        schedule = season_schedule(session=session)
        assert [s["status"] for s in schedule] == ["upcoming"] * 3
        assert [s["ends_at"] for s in schedule[:-1]] == [s["starts_at"] for s in schedule[1:]]
        at = season_at(session=session, when=START + timedelta(days=28))
        assert at.name == "Season 2", "a season's end instant belongs to the next season"
        assert season_at(session=session, when=START - timedelta(seconds=1)) is None
    bad = [
        {"first_starts_at": START + timedelta(days=10), "count": 1, "length": timedelta(days=1)},
        {"first_starts_at": START, "count": 0, "length": timedelta(days=1)},
        {"first_starts_at": START, "count": 1, "length": timedelta(0)},
    ]
    for kwargs in bad:
        with sessions() as session, pytest.raises(EconomyValueError):
            schedule_seasons(session=session, emission_budget=1, **kwargs)
    with sessions() as session, pytest.raises(EconomyValueError):
        create_season(
            session=session,
            name="naive",
            starts_at=datetime(2030, 1, 1),
            ends_at=datetime(2030, 2, 1),
            emission_budget=1,
        )
    with sessions() as session:
        assert session.scalar(select(func.count()).select_from(Season)) == 3
    engine.dispose()


def test_a_season_with_matches_still_in_the_settlement_queue_is_not_due(db_url):
    """The leaderboard rows of a match are written when its settlement is planned: a season
    whose last match still waits in the queue must not pay its places yet (it pays once)."""
    from backend.db.base import utcnow
    from backend.economy import operator, season_rewards
    from backend.economy.models import SettlementRequest
    from backend.tables.live import store
    from tests.fixtures.finished_match import bot_played_match

    engine = create_db_engine(db_url)
    sessions = make_session_factory(engine)
    with sessions.begin() as session:
        season = operator.create_season(
            session=session,
            name="Queued",
            starts_at=utcnow() - timedelta(days=1),
            ends_at=utcnow() + timedelta(days=1),
            emission_budget=100,
            rewards=[10],
        )
        season_id = season.id
    seats = [
        {"seat": s, "address": None, "bot_level": "easy", "avatar_id": None, "admitted_as": None}
        for s in (0, 1)
    ]
    finish, last = bot_played_match(engine, preset="draw", seats=seats, earning=False, prefix=7)
    assert store.commit_final(engine, last, finish)
    ended = utcnow()
    with sessions.begin() as session:
        session.get(Season, season_id).ends_at = ended
    later = ended + timedelta(seconds=1)
    with sessions() as session:
        assert season_rewards.due_seasons(session=session, now=later) == []
    with sessions.begin() as session:  # the economy cycle plans the match
        request = session.scalar(
            select(SettlementRequest).where(SettlementRequest.match_id == finish.match_id)
        )
        assert request is not None and request.status == "pending"
        request.status = "planned"
    with sessions() as session:
        assert season_rewards.due_seasons(session=session, now=later) == [season_id]
