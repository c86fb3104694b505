"""Season rewards: a reward table for the leaderboard's top places, paid once at the end.

The operator sets the table when the season is created (:func:`set_rewards`); its total is
reserved from the season's emission budget then, so match rewards can never spend it. Once
the season has ended, a worker (beat) calls :func:`settle_due` and each due season is planned
as ONE settlement (:func:`plan_season_rewards`, through ``settlement.plan_prize_settlement``:
the same outbox, ledger and reconciliation as a match or a tournament). A place won by a
player whose last seat of the season was an avatar it was admitted to (its own or a rented
one) is paid to that avatar and split on chain by the agreement in force at the season's
end, exactly as a match reward; any other place is paid to the wallet. Places nobody reached
return to the season's budget.

Paid once: the reward row is locked and marked planned in the transaction that plans the
settlement, and the settlement's key (``season-<id>``) is its primary key, so a worker
crashing or retrying re-plans nothing.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable, Sequence
from datetime import datetime

from sqlalchemy import exists, select
from sqlalchemy.orm import Session, sessionmaker

from backend.chain import match_ids
from backend.db.base import aware, utcnow
from backend.economy import settlement
from backend.economy.counts import Count
from backend.economy.exceptions import Conflict, EconomyValueError, InsufficientBudget
from backend.economy.models import (
    PlannedSettlement,
    Season,
    SeasonReward,
    SeatRecord,
    SettlementRequest,
)
from backend.economy.policy import AVATAR_ADMISSIONS, MAX_PAYOUT_AMOUNT
from backend.economy.reports import season_leaderboard
from backend.economy.seasons import get_season

logger = logging.getLogger(__name__)

MAX_PLACES = 20


def settlement_key(season_id: int) -> str:
    return f"season-{season_id}"


def set_rewards(*, session: Session, season_id: int, places: Sequence[int]) -> SeasonReward:
    """Give a season not yet ended a reward table (DEW wei per place, place 1 first),
    reserving its total from the season's emission budget. Once per season."""
    if not 1 <= len(places) <= MAX_PLACES:
        raise EconomyValueError(f"a reward table has 1..{MAX_PLACES} places, got {len(places)}")
    for amount in places:
        if isinstance(amount, bool) or not isinstance(amount, int):
            raise EconomyValueError(f"a place's reward must be an integer, got {amount!r}")
        if not 0 < amount <= MAX_PAYOUT_AMOUNT:
            raise EconomyValueError(f"a place's reward must be 1..2**88-1 wei, got {amount}")
    season = get_season(session=session, season_id=season_id)
    session.refresh(season, with_for_update=True)
    if aware(season.ends_at) <= utcnow():
        raise EconomyValueError(f"season {season.name!r} has ended")
    if session.get(SeasonReward, season_id) is not None:
        raise Conflict(f"season {season.name!r} already has a reward table")
    total = sum(places)
    left = int(season.emission_budget) - int(season.emitted)
    if total > left:
        raise InsufficientBudget(
            f"rewards of {total} wei exceed what is left of season {season.name!r}'s budget "
            f"({left} wei)"
        )
    season.emitted = str(int(season.emitted) + total)
    reward = SeasonReward(
        season_id=season_id,
        places=[str(a) for a in places],
        total=str(total),
        settlement_key=settlement_key(season_id),
    )
    session.add(reward)
    session.flush()
    return reward


def _prize_of(
    session: Session, season_id: int, place: int, address: str, amount: int
) -> settlement.Prize:
    """The place's prize: to the avatar of the player's last seat of the season that counted
    for the leaderboard if it was admitted as an avatar's user or owner, else to the wallet."""
    last = session.scalars(
        select(SeatRecord)
        .where(
            SeatRecord.season_id == season_id,
            SeatRecord.address == address,
            SeatRecord.counted_for(Count.LEADERBOARD),
        )
        .order_by(SeatRecord.finished_at.desc(), SeatRecord.match_id.desc())
        .limit(1)
    ).first()
    if last is not None and last.avatar_id is not None and last.admitted_as in AVATAR_ADMISSIONS:
        return settlement.Prize(
            place=place,
            address=address,
            amount=amount,
            avatar_id=last.avatar_id,
            admitted_as=last.admitted_as,
        )
    return settlement.Prize(place=place, address=address, amount=amount)


def plan_season_rewards(
    *,
    session: Session,
    season_id: int,
    treasury: str,
    chain_id: int | None = None,
    played_at_s: int | None = None,
    now: datetime | None = None,
) -> PlannedSettlement | None:
    """Plan an ended season's rewards as one settlement (``None`` if nobody placed). A second
    call plans nothing and returns the first plan. ``played_at_s`` (chain time, default the
    season's end) dates the avatar splits."""
    reward = session.get(SeasonReward, season_id, with_for_update=True)
    if reward is None:
        raise EconomyValueError(f"season {season_id} has no reward table")
    if reward.planned_at is not None:
        return session.get(PlannedSettlement, reward.settlement_key)
    season = session.get(Season, season_id, with_for_update=True)
    assert season is not None
    ended_at = aware(season.ends_at)
    if ended_at > (now or utcnow()):
        raise EconomyValueError(f"season {season.name!r} has not ended")
    amounts = [int(a) for a in reward.places]
    board = season_leaderboard(session=session, season_id=season_id, limit=len(amounts))
    prizes = [
        _prize_of(session, season_id, int(str(row["rank"])), str(row["address"]), amount)
        for row, amount in zip(board, amounts, strict=False)
    ]
    paid = sum(p.amount for p in prizes)
    unpaid = int(reward.total) - paid
    if unpaid:
        season.emitted = str(int(season.emitted) - unpaid)  # nobody reached those places
    reward.planned_at = utcnow()
    if not prizes:
        session.flush()
        logger.info("season %s ended with nobody on its leaderboard: rewards returned", season_id)
        return None
    digest = hashlib.sha256(
        json.dumps(
            {
                "season": season_id,
                "places": [[p.place, p.address, str(p.amount), p.avatar_id] for p in prizes],
            }
        ).encode()
    ).hexdigest()
    planned = settlement.plan_prize_settlement(
        session=session,
        key=reward.settlement_key,
        chain_match_id=match_ids.prize_id(
            # Unique per season row (a database started afresh reuses ids, the chain does not).
            hashlib.sha256(
                f"dew-season-rewards:{season_id}:{season.name}:{season.created_at}".encode()
            ).digest()
        ),
        result_hash="0x" + digest,
        prizes=prizes,
        entry_fees=0,
        added_prize=paid,
        fee=0,
        treasury=treasury,
        season_id=season_id,
        finished_at=ended_at,
        chain_id=chain_id,
        played_at_s=played_at_s,
    )
    return planned


def due_seasons(*, session: Session, now: datetime | None = None) -> list[int]:
    """Ended seasons whose reward table is not yet planned, and whose last matches are all
    counted: a match that finished before the end but is still waiting in the settlement
    queue has not written its leaderboard rows yet, and a season is planned only once."""
    uncounted = exists().where(
        SettlementRequest.status == "pending", SettlementRequest.finished_at <= Season.ends_at
    )
    return list(
        session.scalars(
            select(SeasonReward.season_id)
            .join(Season, Season.id == SeasonReward.season_id)
            .where(
                SeasonReward.planned_at.is_(None),
                Season.ends_at <= (now or utcnow()),
                ~uncounted,
            )
            .order_by(SeasonReward.season_id)
        )
    )


def settle_due(
    *,
    session_factory: sessionmaker[Session],
    treasury: str,
    chain_id: int,
    chain_clock_offset_s: Callable[[], int] | None = None,
) -> dict[str, int]:
    """Plan every due season, each in its own transaction (the worker's beat job)."""
    with session_factory() as session:
        due = due_seasons(session=session)
    planned = 0
    offset = chain_clock_offset_s() if due and chain_clock_offset_s is not None else 0
    for season_id in due:
        with session_factory.begin() as session:
            season = get_season(session=session, season_id=season_id)
            played_at = int(aware(season.ends_at).timestamp()) + offset
            if plan_season_rewards(
                session=session,
                season_id=season_id,
                treasury=treasury,
                chain_id=chain_id,
                played_at_s=played_at,
            ):
                planned += 1
    return {"due": len(due), "planned": planned}


def settle_cycle() -> dict[str, int]:
    """One pass for the worker task, wired from settings alone. The chain is asked for its
    clock only when a season is due (its avatar splits are dated in chain time)."""
    from backend.config import get_settings
    from backend.db import create_db_engine, make_session_factory
    from backend.economy.jobs import chain_reader

    settings = get_settings()
    engine = create_db_engine(settings.db.url)
    try:
        return settle_due(
            session_factory=make_session_factory(engine),
            treasury=settings.economy.treasury,
            chain_id=settings.chain.chain_id,
            chain_clock_offset_s=lambda: chain_reader(settings).clock_offset_s(),
        )
    finally:
        engine.dispose()
