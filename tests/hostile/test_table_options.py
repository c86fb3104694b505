"""Hostile and careless creators against the create-table options (issue 25): every rule
option, the bot level per seat, the stake and the turn timer within the server's bounds,
matchmaking keyed by options and stake, and seed 004's same-device mode. Each bad request
gets a clear 4xx and creates nothing, on SQLite and PostgreSQL, against a real server.
"""

from __future__ import annotations

import asyncio
import uuid
from datetime import timedelta
from typing import Any

import pytest
from eth_account import Account
from sqlalchemy import select

from backend.config import ServerSettings, Settings
from backend.db import create_db_engine, make_session_factory
from backend.db.base import utcnow
from backend.economy import stakes
from backend.tables import matchmaking
from backend.tables.models import MatchmakingTicket, Table, TableSeat
from tests.fixtures.harness import Player, api, sign_in, wait_for
from tests.hostile.test_tables import DEW_WEI, SLOW_BOTS, Chain, _count, _error

pytestmark = pytest.mark.timeout(240)

# The create limits (tests/hostile/test_http.py) would refuse the long list of bad bodies.
BOUNDS = {
    "DEW_TABLES_MIN_TURN_TIMEOUT_S": "3",
    "DEW_TABLES_MAX_TURN_TIMEOUT_S": "120",
    "DEW_HTTP_CREATE_PER_WALLET": "1000/minute",
}


def test_bad_table_options_are_refused_and_create_nothing(start_server, db_url) -> None:  # type: ignore[no-untyped-def]
    server = start_server(**SLOW_BOTS, extra_env=BOUNDS)
    creator, token = sign_in(server.url)
    draw = {"preset": "draw", "seats": 2, "kind": "practice"}
    four = {"preset": "doscientos", "seats": 4, "kind": "practice"}
    cases: list[tuple[dict[str, Any], int, str | None, str]] = [
        ({**draw, "options": {"spinner": True}}, 422, "invalid_options", "no option 'spinner'"),
        ({**draw, "options": {"target": 75}}, 422, "invalid_options", "cannot be 75"),
        ({**draw, "options": {"target": True}}, 422, "invalid_options", "cannot be True"),
        # Seed 003's comments: 500 and 1,000 points only with collective points.
        ({**four, "options": {"target": 500}}, 422, "invalid_options", "collective_bonus"),
        (
            {**four, "options": {"target": 1000, "collective_bonus": False}},
            422,
            "invalid_options",
            "collective_bonus",
        ),
        ({**draw, "turn_timeout_s": 121}, 422, "invalid_request", "between 3 s and 120 s"),
        ({**draw, "turn_timeout_s": 2}, 422, "invalid_request", "between 3 s and 120 s"),
        ({**draw, "stake": 5 * DEW_WEI, "earning": True}, 422, "invalid_request", "no stake"),
        ({**draw, "kind": "ai", "stake": 1, "earning": True}, 422, "invalid_request", "no stake"),
        ({**draw, "bot_levels": ["easy", "hard", "hard"]}, 422, "invalid_request", "one level"),
        ({**draw, "bot_levels": ["easy", "godlike"]}, 422, None, ""),
        ({**draw, "kind": "same_device", "seats": 3, "preset": "dew200"}, 422, None, "2 seats"),
        ({**draw, "kind": "same_device", "earning": True}, 422, None, "earning"),
        ({**draw, "kind": "same_device", "stake": 1, "earning": True}, 422, None, "no stake"),
        ({**draw, "kind": "tournament"}, 422, None, ""),
        ({**draw, "options": {f"o{i}": 1 for i in range(40)}}, 422, None, ""),
    ]
    with api(server.url, token) as client:
        for body, status, code, words in cases:
            refused = client.post("/tables", json=body)
            got_status, got_code = _error(refused)
            assert got_status == status, (body, refused.text)
            if code is not None:
                assert got_code == code, (body, refused.text)
            assert words in refused.json()["error"]["message"], (body, refused.text)
    assert _count(db_url, Table, Table.creator == creator.address) == 0
    assert _count(db_url, TableSeat, TableSeat.address == creator.address) == 0


def test_every_option_and_a_bot_level_per_seat_reach_the_table(start_server) -> None:  # type: ignore[no-untyped-def]
    server = start_server(**SLOW_BOTS, extra_env=BOUNDS)
    _, token = sign_in(server.url)
    with api(server.url, token) as client:
        limits = client.get("/tables/limits").json()
        assert limits["bot_levels"] == ["easy", "medium", "hard", "expert"]
        assert (limits["min_turn_timeout_s"], limits["max_turn_timeout_s"]) == (3, 120)
        assert "same_device" in limits["kinds"]
        options = {"target": 1000, "collective_bonus": True, "dead_double_blank": False}
        created = client.post(
            "/tables",
            json={
                "preset": "doscientos",
                "seats": 4,
                "kind": "practice",
                "options": options,
                "bot_levels": ["easy", "medium", "hard", "expert"],
                "turn_timeout_s": 120,
            },
        )
        assert created.status_code == 201, created.text
        table = created.json()
        assert {k: table["options"][k] for k in options} == options
        assert table["turn_timeout_s"] == 120
        # Seat 0 is the creator's; every other seat's bot plays at its own level.
        levels = {s["seat"]: s["bot_level"] for s in table["seats"]}
        assert levels == {0: None, 1: "medium", 2: "hard", 3: "expert"}
        # A human table keeps the levels until its creator fills the empty seats.
        human = client.post(
            "/tables",
            json={"preset": "dew200", "seats": 3, "bot_levels": ["easy", "expert", "easy"]},
        ).json()
        started = client.post(f"/tables/{human['id']}/start").json()
        assert {s["seat"]: s["bot_level"] for s in started["seats"]} == {
            0: None,
            1: "expert",
            2: "easy",
        }


def test_premium_choices_need_a_pass_to_create_or_to_queue(  # type: ignore[no-untyped-def]
    start_server, chain: Chain, db_url
) -> None:
    server = start_server(**SLOW_BOTS, matchmaking_wait_s=600, extra_env=chain.env)
    nobody, nobody_token = sign_in(server.url)
    _, vip_token = sign_in(server.url, chain.vip())
    premium = {"preset": "partnership", "options": {"target": 150, "scoring": "all"}}
    with api(server.url, nobody_token) as client:
        refused = client.post("/tables", json={**premium, "seats": 4, "kind": "practice"})
        assert _error(refused) == (403, "vip_required"), refused.text
        assert "target" in refused.json()["error"]["message"]
        queued = client.post("/matchmaking", json=premium)
        assert _error(queued) == (403, "vip_required"), queued.text
    assert _count(db_url, Table, Table.creator == nobody.address) == 0
    assert _count(db_url, MatchmakingTicket, MatchmakingTicket.address == nobody.address) == 0
    with api(server.url, vip_token) as client:
        created = client.post("/tables", json={**premium, "seats": 4, "kind": "practice"})
        assert created.status_code == 201, created.text
        assert created.json()["options"]["scoring"] == "all"
        ticket = client.post("/matchmaking", json=premium)
        assert ticket.status_code == 201, ticket.text
        assert ticket.json()["options"]["target"] == 150
        assert client.delete(f"/matchmaking/{ticket.json()['id']}").status_code == 200


def test_matchmaking_seats_only_tickets_with_the_same_options(start_server, db_url) -> None:  # type: ignore[no-untyped-def]
    server = start_server(**SLOW_BOTS, matchmaking_wait_s=600)
    wallets = [sign_in(server.url) for _ in range(5)]
    targets = [50, 100, 50, 100, 150]
    tickets = []
    for (_, token), target in zip(wallets, targets, strict=True):
        with api(server.url, token) as client:
            body = {"preset": "draw", "options": {"target": target}}
            made = client.post("/matchmaking", json=body)
            assert made.status_code == 201, made.text
            tickets.append((token, made.json()["id"]))
    # Bad queue requests change nothing.
    _, token = sign_in(server.url)
    with api(server.url, token) as client:
        for body in (
            {"preset": "draw", "options": {"target": 75}},
            {"preset": "draw", "options": {"nope": 1}},
            {"preset": "draw", "stake": DEW_WEI},
            {"preset": "draw", "stake": -1},
        ):
            assert client.post("/matchmaking", json=body).status_code == 422, body

    def seated(i: int) -> str | None:
        ticket_token, ticket_id = tickets[i]
        with api(server.url, ticket_token) as client:
            return client.get(f"/matchmaking/{ticket_id}").json()["table_id"]  # type: ignore[no-any-return]

    wait_for(lambda: all(seated(i) for i in range(4)), timeout=30)
    assert seated(0) == seated(2) and seated(1) == seated(3) and seated(0) != seated(1)
    assert seated(4) is None  # nobody else asked for 150: it waits (no bots for 600 s)
    # Each as one of its players sees it (a matchmade table is private to strangers).
    with api(server.url, tickets[0][0]) as client:
        assert client.get(f"/tables/{seated(0)}").json()["options"]["target"] == 50
    with api(server.url, tickets[1][0]) as client:
        assert client.get(f"/tables/{seated(1)}").json()["options"]["target"] == 100


def test_matchmaking_never_seats_different_stakes_together(db_url) -> None:  # type: ignore[no-untyped-def]
    """Earning tickets with different stakes wait in different queues; a ticket whose vault
    balance fell below its stake is cancelled rather than failing its table's start."""
    engine = create_db_engine(db_url)
    sessions = make_session_factory(engine)
    settings = Settings(server=ServerSettings(matchmaking_wait_s=60))
    wallets = [Account.create().address for _ in range(5)]
    asks = [DEW_WEI, 2 * DEW_WEI, DEW_WEI, 2 * DEW_WEI, DEW_WEI]
    funded = [DEW_WEI, 2 * DEW_WEI, DEW_WEI, 2 * DEW_WEI, DEW_WEI - 1]
    try:
        with sessions.begin() as session:
            for n, (address, ask, balance) in enumerate(zip(wallets, asks, funded, strict=True)):
                stakes.credit_deposit(
                    session=session,
                    address=address,
                    amount=balance,
                    tx_hash="0x" + uuid.uuid4().hex * 2,
                    log_index=n,
                )
                session.add(
                    MatchmakingTicket(
                        id=uuid.uuid4().hex,
                        address=address,
                        preset="draw",
                        options={"target": 100},
                        stake=str(ask),
                        earning=True,
                        admitted_as="vip",
                        status="waiting",
                        created_at=utcnow() - timedelta(seconds=n),
                    )
                )
        with sessions() as session:
            formed = matchmaking.run_matchmaking(session=session, settings=settings)
        assert len(formed) == 2
        with sessions() as session:
            by_address = {t.address: t for t in session.scalars(select(MatchmakingTicket)).all()}
            tables = {t.id: t for t in session.scalars(select(Table)).all()}
        assert by_address[wallets[0]].table_id == by_address[wallets[2]].table_id
        assert by_address[wallets[1]].table_id == by_address[wallets[3]].table_id
        assert by_address[wallets[0]].table_id != by_address[wallets[1]].table_id
        assert tables[by_address[wallets[0]].table_id].stake == str(DEW_WEI)
        assert tables[by_address[wallets[1]].table_id].stake == str(2 * DEW_WEI)
        assert by_address[wallets[4]].status == "cancelled"
        with sessions() as session:
            # Both stakes escrowed at the start: the funded wallets' balances are spent.
            assert [stakes.stake_balance(session=session, address=a) for a in wallets[:4]] == [
                0,
                0,
                0,
                0,
            ]
    finally:
        engine.dispose()


def test_same_device_table_seats_one_wallet_twice_and_hands_the_turn_over(  # type: ignore[no-untyped-def]
    start_server,
) -> None:
    server = start_server(turn_timeout_s=60, bot_move_delay_s=0.0)
    creator, token = sign_in(server.url)
    with api(server.url, token) as client:
        created = client.post("/tables", json={"preset": "draw", "seats": 2, "kind": "same_device"})
        assert created.status_code == 201, created.text
        table = created.json()
        assert [s["address"] for s in table["seats"]] == [creator.address] * 2
        assert table["status"] == "playing"
        # Every other kind of table keeps one seat per wallet.
        other = client.post("/tables", json={"preset": "draw", "seats": 2}).json()
        again = client.post(f"/tables/{other['id']}/join")
        assert _error(again) == (409, "already_seated"), again.text

    async def run() -> None:
        player = await Player(server.ws_url, table["id"], token).connect()
        spectator = await Player(server.ws_url, table["id"], None).connect()
        assert spectator.seat is None and "hand" not in (spectator.view or {})
        first = player.seat
        assert player.view is not None and player.view["turn"] == first
        hand_before = list(player.view["hand"])
        await player.send({"type": "move", "move": player.view["legal_moves"][0], "ply": 0})
        # The socket follows the turn: the next seat's snapshot with that seat's hand.
        while player.seat == first:
            await player.recv()
        assert player.view is not None and player.view["turn"] == player.seat
        assert player.view["hand"] != hand_before
        # The seat now in hand may move; a move for the seat just played is not possible.
        await player.send({"type": "move", "move": player.view["legal_moves"][0], "ply": 1})
        while True:
            reply = await player.recv()
            if reply["type"] in ("ack", "error"):
                break
        assert reply["type"] == "ack", reply

    asyncio.run(run())
