"""Quick match at 2 and 3 seats as well as 4: a ticket names its table size, only tickets of
one size meet, a full table of that size forms at once and bots fill one after the wait. On
SQLite and PostgreSQL, through the service and through a real server."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import pytest
from eth_account import Account
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from backend.config import get_settings
from backend.db.base import utcnow
from backend.tables import exceptions as exc
from backend.tables import matchmaking
from backend.tables.gating import ClosedGate
from backend.tables.models import MatchmakingTicket, Table, TableSeat
from tests.fixtures.harness import ServerProcess, api, sign_in, wait_for


def _queue(
    factory: sessionmaker[Session], seats: int | None, n: int, *, age_s: float = 0
) -> list[str]:
    """``n`` new wallets queued for DEW Mode 1 at ``seats`` seats, ``age_s`` seconds ago."""
    addresses = [Account.create().address for _ in range(n)]
    for address in addresses:
        with factory() as session:
            ticket = matchmaking.enqueue(
                session=session,
                gate=ClosedGate(),
                address=address,
                preset="dew200",
                earning=False,
                seat_count=seats,
            )
            ticket.created_at = utcnow() - timedelta(seconds=age_s)
            session.commit()
    return addresses


def _table_of(factory: sessionmaker[Session], address: str) -> tuple[int, list[str | None]]:
    """The seat count of the table ``address`` was matched to, and who sits there (None: a bot)."""
    with factory() as session:
        ticket = session.scalars(
            select(MatchmakingTicket).where(MatchmakingTicket.address == address)
        ).one()
        assert ticket.status == "matched" and ticket.table_id
        table = session.get(Table, ticket.table_id)
        assert table is not None
        seats = session.scalars(
            select(TableSeat).where(TableSeat.table_id == table.id).order_by(TableSeat.seat)
        )
        return table.seat_count, [s.address for s in seats]


def _pass(factory: sessionmaker[Session]) -> list[str]:
    with factory() as session:
        return matchmaking.run_matchmaking(session=session, settings=get_settings())


@pytest.mark.parametrize("seats", [2, 3])
def test_a_full_table_of_two_or_three_forms_at_once_with_no_bots(
    session_factory, seats: int
) -> None:
    players = _queue(session_factory, seats, seats)
    formed = _pass(session_factory)
    assert len(formed) == 1
    count, sitting = _table_of(session_factory, players[0])
    assert count == seats
    assert sitting == players  # everyone human, in the order they queued


def test_tickets_of_other_sizes_never_meet_and_bots_fill_each_after_the_wait(
    session_factory,
) -> None:
    two, three = _queue(session_factory, 2, 1), _queue(session_factory, 3, 1)
    four = _queue(session_factory, None, 1)  # the preset's usual table: 4 seats
    assert _pass(session_factory) == []  # three waiting tickets, no full table of any size
    with session_factory() as session:
        for ticket in session.scalars(select(MatchmakingTicket)):
            ticket.created_at = utcnow() - timedelta(hours=1)
        session.commit()
    assert len(_pass(session_factory)) == 3
    assert _table_of(session_factory, two[0]) == (2, [two[0], None])
    assert _table_of(session_factory, three[0]) == (3, [three[0], None, None])
    assert _table_of(session_factory, four[0]) == (4, [four[0], None, None, None])


def test_a_size_the_preset_has_not_is_refused_and_queues_nothing(session_factory) -> None:
    address = Account.create().address
    for preset, seats in (("partnership", 2), ("partnership", 3), ("draw", 4), ("dew200", 5)):
        with session_factory() as session, pytest.raises(exc.InvalidOptions):
            matchmaking.enqueue(
                session=session,
                gate=ClosedGate(),
                address=address,
                preset=preset,
                earning=False,
                seat_count=seats,
            )
    with session_factory() as session:
        waiting = select(func.count()).where(MatchmakingTicket.address == address)
        assert session.scalar(waiting) == 0


@pytest.fixture(scope="module")
def server(db_url: str) -> Iterator[ServerProcess]:
    process = ServerProcess(db_url, matchmaking_wait_s=600).start()
    yield process
    process.stop()


def test_two_and_three_wallets_asking_for_their_size_are_seated_together(
    server: ServerProcess,
) -> None:
    for seats in (2, 3):
        tickets = []
        for _ in range(seats):
            _, token = sign_in(server.url)
            client = api(server.url, token)
            made = client.post("/matchmaking", json={"preset": "dew200", "seats": seats})
            assert made.status_code == 201, made.text
            assert made.json()["seat_count"] == seats
            tickets.append((client, made.json()["id"]))
        try:
            table_ids = {
                wait_for(
                    lambda c=client, i=ticket_id: c.get(f"/matchmaking/{i}").json()["table_id"],
                    what=f"a {seats}-seat table",
                )
                for client, ticket_id in tickets
            }
            assert len(table_ids) == 1
            table = tickets[0][0].get(f"/tables/{table_ids.pop()}").json()
            assert table["seat_count"] == seats and table["status"] == "playing"
            assert not any(s["bot_level"] for s in table["seats"])
        finally:
            for client, _ in tickets:
                client.close()


def test_a_bad_size_is_refused_at_the_door(server: ServerProcess) -> None:
    _, token = sign_in(server.url)
    with api(server.url, token) as client:
        for body in (
            {"preset": "dew200", "seats": 1},
            {"preset": "dew200", "seats": 5},
            {"preset": "dew200", "seats": "two"},
            {"preset": "partnership", "seats": 2},
        ):
            refused = client.post("/matchmaking", json=body)
            assert refused.status_code == 422, (body, refused.text)
        # Nothing was queued: a good ticket still goes through.
        assert client.post("/matchmaking", json={"preset": "dew200", "seats": 2}).status_code == 201
