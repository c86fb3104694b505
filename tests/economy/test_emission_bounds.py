"""Emission bounds (docs/economy.md, "Emission bounds"): bot seats bring no emission, and one
wallet earns at most ``emission_per_wallet_per_day`` per UTC day however many earning matches
it plays; what a cap holds back returns to the season budget, on the real planner and ledger."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from eth_utils import to_checksum_address
from sqlalchemy import select

from backend.db import create_db_engine, make_session_factory
from backend.economy.models import Season, SeatRecord
from backend.economy.policy import (
    DEW,
    FinishedMatch,
    SeatResult,
    TableEconomy,
    default_policies,
)
from backend.economy.seasons import create_season
from backend.economy.settlement import plan_settlement

ALICE = to_checksum_address("0x" + "a1" * 20)
BOB = to_checksum_address("0x" + "b2" * 20)
TREASURY = to_checksum_address("0x" + "fe" * 20)
START = datetime(2031, 3, 1, tzinfo=UTC)
PER_SEAT = 10 * DEW
PER_DAY = 25 * DEW
POLICIES = default_policies(emission_per_seat=PER_SEAT)


def _against_easy_bots(n: int, who: str = ALICE) -> FinishedMatch:
    """``who`` beats three bots at a 4-seat emission table."""
    return FinishedMatch(
        match_id=f"bound{n:027d}",
        chain_match_id="0x" + (7_000 + n).to_bytes(32, "big").hex(),
        result_hash="0x" + "ab" * 32,
        earning=True,
        stake=0,
        seats=(
            SeatResult(seat=0, address=who, admitted_as="vip", placement=1, won=True),
            SeatResult(seat=1, address=None, placement=2),
            SeatResult(seat=2, address=None, placement=3),
            SeatResult(seat=3, address=None, placement=4),
        ),
    )


def test_a_wallet_farming_bots_earns_at_most_its_daily_emission(db_url):
    engine = create_db_engine(db_url)
    sessions = make_session_factory(engine)
    with sessions.begin() as session:
        season = create_season(
            session=session,
            name="Bounds",
            starts_at=START,
            ends_at=START + timedelta(days=28),
            emission_budget=10_000 * DEW,
        )
        season_id = season.id

    def plan(n: int, at: datetime, who: str = ALICE) -> None:
        finished = _against_easy_bots(n, who)
        assert finished.economy is TableEconomy.EMISSION
        with sessions.begin() as session:
            plan_settlement(
                session=session,
                match=finished,
                finished_at=at,
                policies=POLICIES,
                treasury=TREASURY,
                chain_id=31337,
                emission_per_wallet_per_day=PER_DAY,
            )

    def earned(address: str, day: datetime) -> int:
        with sessions() as session:
            shares = session.scalars(
                select(SeatRecord.emission_share).where(
                    SeatRecord.address == address,
                    SeatRecord.finished_at >= day,
                    SeatRecord.finished_at < day + timedelta(days=1),
                )
            )
            return sum(int(x) for x in shares)

    day = START + timedelta(days=2)
    try:
        # Ten wins against bots in one day: each pays 60% of ONE seat's emission (the bots'
        # seats bring none), until the day's cap; the rest goes back to the season.
        for n in range(10):
            plan(n, day + timedelta(hours=1, minutes=n))
        assert earned(ALICE, day) == PER_DAY
        with sessions() as session:
            first = session.get(SeatRecord, (_against_easy_bots(0).match_id, 0))
            assert first is not None and int(first.emission_share) == 6 * DEW
            season = session.get(Season, season_id)
            assert season is not None and int(season.emitted) == PER_DAY
        # Another wallet is not held back by Alice's cap; Alice earns again the next day.
        plan(100, day + timedelta(hours=3), who=BOB)
        assert earned(BOB, day) == 6 * DEW
        plan(101, day + timedelta(days=1, hours=1))
        assert earned(ALICE, day + timedelta(days=1)) == 6 * DEW
    finally:
        engine.dispose()
