"""Hostile players at tables (issue 30): a staked table's creator withdrawing the stake it
opened the table with, one wallet sitting at every table in the lobby, a stranger reading a
private table, a center's host sitting at its own center's tables, and a reporter at its
daily cap making the server read a table's matches. Each runs on SQLite and PostgreSQL,
against a real server process where a route is involved; earning tables use the module's
anvil.
"""

from __future__ import annotations

import secrets
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest
from eth_account import Account
from sqlalchemy import event, func, select

from backend.db import create_db_engine, make_session_factory
from backend.economy import stakes
from backend.economy.models import StakeEntry
from backend.tables import exceptions as tables_exc
from backend.tables.models import Match, Table, TableSeat
from backend.tables.moderation import complaints
from tests.fixtures.harness import api, sign_in
from tests.hostile.test_centers import _mint
from tests.hostile.test_tables import SLOW_BOTS, _count, _error

pytestmark = pytest.mark.timeout(240)

DEW = 10**18
STAKE = 10 * DEW
# Creations are rate limited per wallet (test_http.py); these tests bound other things.
LIMITS = {"DEW_HTTP_CREATE_PER_WALLET": "1000/minute"}


def _deposit(books: Any, address: str, amount: int) -> None:
    with books.begin() as session:
        stakes.credit_deposit(
            session=session,
            address=address,
            amount=amount,
            tx_hash="0x" + secrets.token_hex(32),
            log_index=0,
        )


def _balance(books: Any, address: str) -> int:
    with books() as session:
        return stakes.stake_balance(session=session, address=address)


def _withdrawals(books: Any, address: str) -> int:
    with books() as session:
        return int(
            session.scalar(
                select(func.count()).where(
                    StakeEntry.address == address, StakeEntry.kind == "withdrawal"
                )
            )
            or 0
        )


def _withdraw(client: httpx.Client, amount: int) -> httpx.Response:
    return client.post("/wallet/withdrawals", json={"amount": str(amount)})


# -- a staked table's creator withdraws its stake after opening the table -----------------


def test_a_seat_at_a_staked_table_holds_its_stake_until_left_or_started(
    start_server, chain, books, db_url
) -> None:  # type: ignore[no-untyped-def]
    """Sitting at an open staked table sets the stake aside: the creator (or a joiner)
    cannot withdraw it and leave a listed table every joiner is refused at. Leaving gives it
    back; the match's start turns the holds into the escrow."""
    server = start_server(**SLOW_BOTS, extra_env=chain.env)
    creator, joiner = chain.vip(), chain.vip()
    _, creator_token = sign_in(server.url, creator)
    _, joiner_token = sign_in(server.url, joiner)
    body = {"preset": "draw", "seats": 2, "earning": True, "stake": str(STAKE)}
    with api(server.url, creator_token) as client:
        # Without the stake deposited, the table is not opened at all.
        short = client.post("/tables", json=body)
        assert _error(short) == (409, "insufficient_stake"), short.text
        assert _count(db_url, Table, Table.creator == creator.address) == 0
        _deposit(books, creator.address, STAKE)
        created = client.post("/tables", json=body)
        assert created.status_code == 201, created.text
        table_id = created.json()["id"]
        # The attack: withdraw the stake the table was opened with. It is held: refused.
        taken = _withdraw(client, STAKE)
        assert _error(taken) == (409, "insufficient_stake"), taken.text
        assert _withdraw(client, DEW).status_code == 409
        assert (_balance(books, creator.address), _withdrawals(books, creator.address)) == (0, 0)
        page = client.get("/wallet").json()
        assert page["escrowed_total"] == str(STAKE)
        assert [(e["table_id"], e["amount"]) for e in page["escrowed"]] == [(table_id, str(STAKE))]
    # A joiner is seated, and the start escrows both stakes from their holds.
    _deposit(books, joiner.address, STAKE)
    with api(server.url, joiner_token) as client:
        joined = client.post(f"/tables/{table_id}/join")
        assert joined.status_code == 200, joined.text
        assert joined.json()["status"] == "playing"
        assert _error(_withdraw(client, DEW)) == (409, "insufficient_stake")
    with books() as session:
        match_id = session.get(Table, table_id).match_id
        assert stakes.escrowed(session=session, match_id=match_id) == {0: STAKE, 1: STAKE}
        assert stakes.held(session=session, key=table_id) == {}
    assert (_balance(books, creator.address), _balance(books, joiner.address)) == (0, 0)


def test_leaving_or_a_refused_seat_gives_the_held_stake_back(
    start_server, chain, books, db_url
) -> None:  # type: ignore[no-untyped-def]
    server = start_server(**SLOW_BOTS, extra_env=chain.env)
    creator, joiner, poor = chain.vip(), chain.vip(), chain.vip()
    tokens = {a.address: sign_in(server.url, a)[1] for a in (creator, joiner, poor)}
    _deposit(books, creator.address, STAKE)
    _deposit(books, joiner.address, STAKE + DEW)
    _deposit(books, poor.address, STAKE - 1)
    body = {"preset": "dew200", "seats": 3, "earning": True, "stake": str(STAKE)}
    with api(server.url, tokens[creator.address]) as client:
        created = client.post("/tables", json=body)
        assert created.status_code == 201, created.text
    table_id = created.json()["id"]
    with api(server.url, tokens[joiner.address]) as client:
        assert client.post(f"/tables/{table_id}/join").status_code == 200
        # Only what is not held can be withdrawn.
        assert _error(_withdraw(client, 2 * DEW)) == (409, "insufficient_stake")
        assert _balance(books, joiner.address) == DEW
        assert client.post(f"/tables/{table_id}/leave").status_code == 204
        assert _balance(books, joiner.address) == STAKE + DEW
    # A wallet one wei short is refused its seat; nothing is held, nothing seated.
    with api(server.url, tokens[poor.address]) as client:
        refused = client.post(f"/tables/{table_id}/join")
        assert _error(refused) == (409, "insufficient_stake"), refused.text
    assert _balance(books, poor.address) == STAKE - 1
    assert _count(db_url, TableSeat, TableSeat.table_id == table_id) == 1
    # The creator leaves: the table is cancelled and the stake is back, free to withdraw.
    with api(server.url, tokens[creator.address]) as client:
        assert client.post(f"/tables/{table_id}/leave").status_code == 204
        assert _balance(books, creator.address) == STAKE
        assert _withdraw(client, STAKE).status_code == 201
    with books() as session:
        assert session.get(Table, table_id).status == "cancelled"
        assert stakes.held(session=session, key=table_id) == {}


# -- one wallet at every table of the lobby ------------------------------------------------


def test_one_wallet_sits_at_a_bounded_number_of_other_players_tables(start_server, db_url) -> None:  # type: ignore[no-untyped-def]
    """DEW_TABLES_MAX_SEATS_AT_OTHERS_TABLES_PER_WALLET (5): seats at open or playing tables
    the wallet did not create; its own tables are the other cap. Fourteen joins at once pass
    it five times, whatever the race; leaving one frees its place."""
    server = start_server(**SLOW_BOTS, extra_env=LIMITS)
    creators = [sign_in(server.url) for _ in range(3)]
    table_ids = []
    for _, token in creators:
        with api(server.url, token) as client:
            for _ in range(5):
                made = client.post("/tables", json={"preset": "dew200", "seats": 3})
                assert made.status_code == 201, made.text
                table_ids.append(made.json()["id"])
    sitter, token = sign_in(server.url)

    def join(table_id: str) -> httpx.Response:
        with api(server.url, token) as client:
            return client.post(f"/tables/{table_id}/join")

    with ThreadPoolExecutor(14) as pool:
        answers = list(pool.map(join, table_ids[:14]))
    assert sorted(a.status_code for a in answers) == [200] * 5 + [409] * 9, [
        a.text for a in answers
    ]
    assert {_error(a) for a in answers if a.status_code != 200} == {(409, "too_many_tables")}
    assert _count(db_url, TableSeat, TableSeat.address == sitter.address) == 5
    with api(server.url, token) as client:
        # Its own table is not bounded by this cap.
        own = client.post("/tables", json={"preset": "dew200", "seats": 3})
        assert own.status_code == 201, own.text
        seated = [t for t, a in zip(table_ids, answers, strict=False) if a.status_code == 200]
        assert client.post(f"/tables/{seated[0]}/leave").status_code == 204
        assert join(table_ids[14]).status_code == 200
        assert _error(join(seated[0])) == (409, "too_many_tables")


# -- a stranger reads a private table -------------------------------------------------------


def test_a_private_table_is_not_found_for_a_stranger(start_server) -> None:  # type: ignore[no-untyped-def]
    server = start_server(**SLOW_BOTS)
    _, creator_token = sign_in(server.url)
    invited, invited_token = sign_in(server.url)
    _, stranger_token = sign_in(server.url)
    with api(server.url, creator_token) as client:
        made = client.post(
            "/tables",
            json={
                "preset": "dew200",
                "seats": 3,
                "visibility": "private",
                "invite": [invited.address],
            },
        )
        assert made.status_code == 201, made.text
        table = made.json()
        assert client.get(f"/tables/{table['id']}").status_code == 200
    with api(server.url, stranger_token) as client:
        hidden = client.get(f"/tables/{table['id']}")
        missing = client.get(f"/tables/{secrets.token_hex(16)}")
        assert _error(hidden) == _error(missing) == (404, "table_not_found"), hidden.text
        assert table["creator"] not in hidden.text and "seats" not in hidden.text
        wrong = client.get(f"/tables/{table['id']}", params={"invite_code": "x" * 16})
        assert _error(wrong) == (404, "table_not_found")
        odd = client.get(f"/tables/{table['id']}", params={"invite_code": "ñ" * 16})
        assert _error(odd) == (404, "table_not_found")
        # The invite link's holder sees it, joins, and then sees it as a seated player.
        linked = client.get(f"/tables/{table['id']}", params={"invite_code": table["invite_code"]})
        assert linked.status_code == 200, linked.text
        joined = client.post(
            f"/tables/{table['id']}/join", json={"invite_code": table["invite_code"]}
        )
        assert joined.status_code == 200, joined.text
        assert client.get(f"/tables/{table['id']}").status_code == 200
    with api(server.url, invited_token) as client:
        seen = client.get(f"/tables/{table['id']}")
        assert seen.status_code == 200, seen.text
        assert seen.json()["invite_code"] is None  # only the creator gets the link
    with api(server.url) as anonymous:
        assert anonymous.get(f"/tables/{table['id']}").status_code == 401


# -- a center's host at its own center's tables --------------------------------------------


def test_a_centers_host_does_not_sit_at_its_centers_tables(start_server, db_url) -> None:  # type: ignore[no-untyped-def]
    server = start_server(**SLOW_BOTS, extra_env=LIMITS)
    host, token = sign_in(server.url)
    center_id = _mint(db_url, host.address, capacity=3)
    with api(server.url, token) as client:
        opened = client.post(f"/centers/{center_id}/tables", json={"preset": "draw", "seats": 2})
        assert opened.status_code == 201, opened.text
        table_id = opened.json()["id"]
        refused = client.post(f"/tables/{table_id}/join")
        assert _error(refused) == (403, "forbidden"), refused.text
        assert "host" in refused.json()["error"]["message"]
    assert _count(db_url, TableSeat, TableSeat.table_id == table_id) == 0
    # Visitors fill it.
    for _ in range(2):
        _, visitor = sign_in(server.url)
        with api(server.url, visitor) as client:
            assert client.post(f"/tables/{table_id}/join").status_code == 200
    assert _count(db_url, TableSeat, TableSeat.table_id == table_id) == 2


# -- a capped reporter makes the server read a table's matches ------------------------------


def test_a_reporter_at_its_cap_costs_no_read_of_seats_or_matches(db_url) -> None:  # type: ignore[no-untyped-def]
    """The daily cap is checked first: a refused report reads no table, seat or match (a
    table searched for mates reads up to 500 matches)."""
    engine = create_db_engine(db_url)
    sessions = make_session_factory(engine)
    reporter, reported = (Account.create().address for _ in range(2))
    table_id = secrets.token_hex(16)
    with sessions.begin() as session:
        session.add(
            Table(
                id=table_id, preset="draw", options={}, seat_count=2, stake="0", earning=False,
                kind="human", visibility="public", invite_code=secrets.token_urlsafe(12),
                creator=reporter, bot_level="easy", turn_timeout_s=20.0, status="finished",
            )
        )  # fmt: skip
        session.flush()
        seats = [{"seat": 0, "address": reporter}, {"seat": 1, "address": reported}]
        session.add_all(
            Match(
                id=secrets.token_hex(16), table_id=table_id, preset="draw", options={},
                seats=seats, seed="0" * 64, seed_commitment="0" * 64, status="finished",
            )
            for _ in range(20)
        )  # fmt: skip
        session.add(
            complaints.Complaint(
                reporter=reporter, reported=Account.create().address, table_id=table_id,
                reason=complaints.REPORT_REASONS[0], status="open",
            )
        )  # fmt: skip
    statements: list[str] = []

    def seen(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        statements.append(statement.lower())

    event.listen(engine, "before_cursor_execute", seen)
    try:
        with sessions() as session, pytest.raises(tables_exc.TooManyReports):
            complaints.report(
                session=session,
                reporter=reporter,
                reported=reported,
                table_id=table_id,
                reason=complaints.REPORT_REASONS[0],
                note=None,
                per_day=1,
            )
        assert statements, "the listener saw nothing"
        read = [
            s for s in statements if any(t in s for t in ("matches", "table_seats", "game_tables"))
        ]
        assert read == [], read
        # Under the cap the same report reads them, and is filed.
        with sessions() as session:
            filed = complaints.report(
                session=session,
                reporter=reporter,
                reported=reported,
                table_id=table_id,
                reason=complaints.REPORT_REASONS[0],
                note=None,
                per_day=2,
            )
        assert filed.reported == reported
        assert any("matches" in s for s in statements)
    finally:
        event.remove(engine, "before_cursor_execute", seen)
        engine.dispose()
