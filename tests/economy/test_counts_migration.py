"""The migration that gives every seat record what it counts for (``economy_h30counts_0001``):
seat records planned before it get exactly what the one rule (``backend.economy.counts``)
says of their match, on SQLite and on PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
import sqlalchemy as sa
from eth_account import Account

from backend.db import create_db_engine, migrate
from backend.economy.counts import seat_counts
from backend.economy.policy import FinishedMatch, SeatResult
from tests.fixtures.database import create_pg_database, drop_pg_database

BEFORE = "economy_h25legsplit_0001"
A, B = Account.create().address, Account.create().address
AT = datetime(2026, 1, 1, tzinfo=UTC)

SETTLEMENTS = sa.table(
    "economy_settlements",
    *(sa.column(c) for c in ("match_id", "chain_match_id", "result_hash", "economy", "preset")),
    *(sa.column(c) for c in ("finished_at", "stake_pot", "emission", "fee", "returned", "paid")),
    *(sa.column(c) for c in ("status", "created_at", "updated_at")),
)
SEATS = sa.table(
    "economy_seat_records",
    *(sa.column(c) for c in ("match_id", "seat", "address", "is_bot", "team", "placement")),
    *(sa.column(c) for c in ("points", "won", "forfeited", "stake_share", "emission_share")),
    *(sa.column(c) for c in ("amount", "to_avatar", "finished_at")),
)

# (settlement economy, [(seat, address, team)]): every kind of match the rule tells apart.
MATCHES: dict[str, tuple[str, list[tuple[int, str | None, int | None]]]] = {
    "practice": ("free", [(0, A, None), (1, None, None)]),
    "samedevice": ("free", [(0, A, None), (1, A, None)]),
    "freehumans": ("free", [(0, A, None), (1, B, None)]),
    "earningvsbot": ("emission", [(0, A, None), (1, None, None)]),
    "partners": ("emission", [(0, A, 0), (1, None, 1), (2, B, 0), (3, None, 1)]),
    "contested": ("emission", [(0, A, None), (1, B, None)]),
    "teams": ("emission", [(0, A, 0), (1, B, 1), (2, None, 0), (3, None, 1)]),
    "staked": ("staked", [(0, A, None), (1, B, None)]),
    "stakedvsbot": ("staked", [(0, A, None), (1, None, None)]),
}


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'before.sqlite3'}"
        return
    pg = create_pg_database()
    try:
        yield pg
    finally:
        drop_pg_database(pg)


def test_seat_records_planned_before_get_the_rules_answer(url: str) -> None:
    migrate(url, BEFORE)
    engine = create_db_engine(url)
    try:
        with engine.begin() as conn:
            for n, (name, (economy, seats)) in enumerate(MATCHES.items()):
                conn.execute(
                    SETTLEMENTS.insert().values(
                        match_id=name,
                        chain_match_id=f"0x{n:064x}",
                        result_hash="0x" + "ab" * 32,
                        economy=economy,
                        preset="draw",
                        finished_at=AT,
                        stake_pot="0",
                        emission="0",
                        fee="0",
                        returned="0",
                        paid="0",
                        status="nothing",
                        created_at=AT,
                        updated_at=AT,
                    )
                )
                for seat, address, team in seats:
                    conn.execute(
                        SEATS.insert().values(
                            match_id=name,
                            seat=seat,
                            address=address,
                            is_bot=address is None,
                            team=team,
                            placement=1 if seat == 0 else 2,
                            points=0,
                            won=seat == 0,
                            forfeited=False,
                            stake_share="0",
                            emission_share="0",
                            amount="0",
                            to_avatar=False,
                            finished_at=AT,
                        )
                    )
        migrate(url)
        with engine.connect() as conn:
            stored = {
                (m, s): c
                for m, s, c in conn.execute(
                    sa.text("SELECT match_id, seat, counts FROM economy_seat_records")
                )
            }
    finally:
        engine.dispose()
    expected = {}
    for name, (economy, seats) in MATCHES.items():
        match = FinishedMatch(
            match_id=name,
            chain_match_id="0x",
            result_hash="0x",
            earning=economy != "free",
            stake=1 if economy == "staked" else 0,
            seats=tuple(
                SeatResult(seat, address, team=team, placement=1 if seat == 0 else 2)
                for seat, address, team in seats
            ),
        )
        for s in match.seats:
            expected[(name, s.seat)] = int(seat_counts(match, s))
    assert stored == expected
    assert {stored[("contested", 0)], stored[("practice", 0)]} == {3, 0}
