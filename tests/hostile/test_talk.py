"""Hostile talkers and reporters (issue 25, "Table talk"; docs/security.md "Table talk").

- Talk outside the catalogue, free text where it is off, oversized messages and talk from
  spectators are refused with a clear code, and nothing of them reaches anyone.
- A talk flood from one socket is cut to its budget, and a seat that opens more sockets
  shares one budget over all of them (the budget is the seat's, not the socket's), also
  across reconnects and across server processes that share Redis.
- Reports: only signed-in wallets, only about a table mate, one per player and table, and
  a daily cap per wallet that parallel requests cannot beat.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from backend.db import create_db_engine, make_session_factory
from backend.tables.moderation.complaints import Complaint
from tests.fixtures.redis import REDIS_URL
from tests.tables.harness import Player, ServerProcess, api, sign_in

pytestmark = pytest.mark.timeout(300)


@pytest.fixture
def sessions(db_url: str) -> Iterator[sessionmaker[Session]]:
    engine = create_db_engine(db_url)
    yield make_session_factory(engine)
    engine.dispose()


def _complaints(sessions: sessionmaker[Session], reporter: str) -> int:
    with sessions() as session:
        query = select(func.count()).select_from(Complaint).where(Complaint.reporter == reporter)
        return int(session.scalar(query) or 0)


def _table_with(server: ServerProcess, host_token: str, guest_tokens: list[str]) -> str:
    with api(server.url, host_token) as host:
        created = host.post("/tables", json={"preset": "dew200", "seats": 4})
        assert created.status_code == 201, created.text
        table_id = str(created.json()["id"])
    for token in guest_tokens:
        with api(server.url, token) as guest:
            assert guest.post(f"/tables/{table_id}/join").status_code == 200
    return table_id


async def _until(player: Player, kinds: tuple[str, ...]) -> dict[str, Any]:
    while True:
        message = await player.recv()
        if message["type"] in kinds:
            return message


def test_bad_talk_is_refused_and_reaches_nobody(start_server) -> None:  # type: ignore[no-untyped-def]
    server: ServerProcess = start_server()
    (_, ta), (_, tb) = sign_in(server.url), sign_in(server.url)
    table_id = _table_with(server, ta, [tb])

    async def scenario() -> None:
        a = await Player(server.ws_url, table_id, ta).connect()
        b = await Player(server.ws_url, table_id, tb).connect()
        watcher = await Player(server.ws_url, table_id, None).connect()
        attacks: list[tuple[Player, Any, str]] = [
            (a, {"type": "talk", "phrase": "you_are_bad"}, "invalid_talk"),
            (a, {"type": "talk", "text": "free words"}, "free_text_off"),
            (a, {"type": "talk", "phrase": "hello", "emote": "clap"}, "invalid_talk"),
            (a, {"type": "talk", "phrase": ["hello"]}, "invalid_talk"),
            (a, {"type": "talk", "phrase": "hello", "pad": "x" * 5000}, "message_too_large"),
            (a, {"type": "mute", "seat": 9, "muted": True}, "invalid_request"),
            (a, {"type": "mute", "seat": 0, "muted": True}, "invalid_request"),
            (a, {"type": "mute", "seat": 1, "muted": "yes"}, "invalid_request"),
            (watcher, {"type": "talk", "phrase": "hello"}, "forbidden"),
        ]
        for player, message, code in attacks:
            await player.send({**message, "ref": "bad"})
            refused = await _until(player, ("error", "talk", "muted"))
            assert refused["type"] == "error", (message, refused)
            assert refused["error"]["code"] == code, (message, refused)
        # Nothing of it went anywhere: b's and the spectator's next talk is b's own.
        await b.send({"type": "talk", "emote": "wow"})
        for player in (b, watcher, a):
            heard = await _until(player, ("talk",))
            assert (heard["seat"], heard["emote"]) == (1, "wow")
        for player in (a, b, watcher):
            await player.close()

    asyncio.run(scenario())


def test_a_talk_flood_is_cut_to_the_bucket(start_server) -> None:  # type: ignore[no-untyped-def]
    server: ServerProcess = start_server(extra_env={"DEW_TALK_RATE_BURST": "4"})
    (_, ta), (_, tb) = sign_in(server.url), sign_in(server.url)
    table_id = _table_with(server, ta, [tb])
    flood = 30

    async def scenario() -> None:
        a = await Player(server.ws_url, table_id, ta).connect()
        b = await Player(server.ws_url, table_id, tb).connect()
        for _ in range(flood):
            await a.send({"type": "talk", "phrase": "hurry_up"})
        replies = [await _until(a, ("talk", "error")) for _ in range(flood)]
        accepted = sum(r["type"] == "talk" for r in replies)
        limited = [r["error"]["code"] for r in replies if r["type"] == "error"]
        # Four at once, plus at most a token or two refilled (0.5/s) while the flood ran.
        assert 4 <= accepted <= 6, replies
        assert set(limited) == {"rate_limited"} and len(limited) == flood - accepted
        await b.send({"type": "talk", "phrase": "thanks"})
        heard = []
        while not heard or heard[-1]["seat"] != 1:
            heard.append(await _until(b, ("talk",)))
        assert [m["phrase"] for m in heard[:-1]] == ["hurry_up"] * accepted
        await a.close()
        await b.close()

    asyncio.run(scenario())


def test_more_sockets_do_not_buy_a_seat_more_talk(start_server) -> None:  # type: ignore[no-untyped-def]
    server: ServerProcess = start_server(extra_env={"DEW_TALK_RATE_BURST": "4"})
    (_, ta), (_, tb) = sign_in(server.url), sign_in(server.url)
    table_id = _table_with(server, ta, [tb])
    per_socket = 10

    async def scenario() -> None:
        sockets = [await Player(server.ws_url, table_id, ta).connect() for _ in range(3)]
        accepted = 0
        for a in sockets:
            # Every socket of the seat hears the seat's talk: skip what the earlier sockets
            # said, then read this socket's own answers (its talk echoed, or refused).
            for _ in range(accepted):
                assert (await _until(a, ("talk",)))["phrase"] == "hurry_up"
            for _ in range(per_socket):
                await a.send({"type": "talk", "phrase": "hurry_up"})
            replies = [await _until(a, ("talk", "error")) for _ in range(per_socket)]
            assert {r["error"]["code"] for r in replies if r["type"] == "error"} <= {"rate_limited"}
            accepted += sum(r["type"] == "talk" for r in replies)
        # One bucket of four for the seat (plus a token or two refilled at 0.5/s while the
        # sockets talked), not four per socket.
        assert 4 <= accepted <= 6, accepted
        for a in sockets:
            await a.close()

    asyncio.run(scenario())


async def _talk_n(player: Player, n: int) -> int:
    """Send ``n`` talk lines on one socket; how many were accepted (echoed, not refused)."""
    for _ in range(n):
        await player.send({"type": "talk", "phrase": "hurry_up"})
    replies = [await _until(player, ("talk", "error")) for _ in range(n)]
    assert {r["error"]["code"] for r in replies if r["type"] == "error"} <= {"rate_limited"}
    return sum(r["type"] == "talk" for r in replies)


def test_reconnecting_does_not_refill_a_seats_talk(start_server) -> None:  # type: ignore[no-untyped-def]
    """A table nobody watches and that is not playing is forgotten by the server and loaded
    again at the next socket. Before, its talk buckets went with it: a seat at a table still
    gathering players that closed its socket and opened another got a fresh burst each time
    (4 more lines per reconnect through a bucket of 4)."""
    server: ServerProcess = start_server(extra_env={"DEW_TALK_RATE_BURST": "4"})
    (_, ta), (_, tb) = sign_in(server.url), sign_in(server.url)
    table_id = _table_with(server, ta, [tb])  # two of four seats taken: not playing

    async def scenario() -> None:
        accepted = 0
        for _ in range(3):
            a = await Player(server.ws_url, table_id, ta).connect()
            accepted += await _talk_n(a, 8)
            await a.close()
        assert 4 <= accepted <= 6, accepted

    asyncio.run(scenario())


def test_processes_sharing_redis_share_a_seats_talk(start_server) -> None:  # type: ignore[no-untyped-def]
    """Two server processes behind one address (``DEW_SERVER_REDIS_URL``): a seat's sockets
    on both draw on one budget. Before, each process kept its own bucket per seat, so a
    wallet that spread its sockets over N processes talked N times as much."""
    prefix = f"dewtest-talk-{uuid.uuid4().hex[:10]}"
    shared = {"DEW_TALK_RATE_BURST": "4", "DEW_HTTP_RATE_LIMIT_KEY_PREFIX": prefix}
    servers = [
        start_server(redis_url=REDIS_URL, channel_prefix=prefix, extra_env=shared) for _ in range(2)
    ]
    (_, ta), (_, tb) = sign_in(servers[0].url), sign_in(servers[0].url)
    table_id = _table_with(servers[0], ta, [tb])

    async def scenario() -> None:
        accepted = 0
        for server in servers:
            a = await Player(server.ws_url, table_id, ta).connect()
            accepted += await _talk_n(a, 8)
            await a.close()
        assert 4 <= accepted <= 6, accepted

    asyncio.run(scenario())


def test_reports_are_for_table_mates_once_each_and_capped_per_day(start_server, sessions) -> None:  # type: ignore[no-untyped-def]
    server: ServerProcess = start_server(extra_env={"DEW_TALK_REPORTS_PER_DAY": "3"})
    me, my_token = sign_in(server.url)
    mates = [sign_in(server.url) for _ in range(5)]
    stranger, stranger_token = sign_in(server.url)
    # Each mate hosts a table that I join: five tables, one mate at each.
    tables = [_table_with(server, token, [my_token]) for _, token in mates]
    _table_with(server, stranger_token, [])

    def report(token: str | None, **body: Any) -> Any:
        with api(server.url, token) as client:
            return client.post("/complaints", json=body)

    first = {"table_id": tables[0], "address": mates[0][0].address, "reason": "spam"}
    bad: list[tuple[str | None, dict[str, Any], int, str]] = [
        (None, first, 401, ""),
        (my_token, {**first, "address": stranger.address}, 403, "not_table_mate"),
        (my_token, {**first, "table_id": "0" * 32}, 403, "not_table_mate"),
        (stranger_token, first, 403, "not_table_mate"),
        (my_token, {**first, "address": me.address}, 422, "invalid_request"),
        (my_token, {**first, "reason": "i_dont_like_them"}, 422, "invalid_request"),
        (my_token, {**first, "note": "n" * 2000}, 422, ""),
        (my_token, {**first, "note": "n" * 300}, 422, "invalid_request"),
        (my_token, {**first, "table_id": "../x"}, 422, ""),
        (my_token, {**first, "status": "closed"}, 422, ""),
    ]
    for token, body, status, code in bad:
        refused = report(token, **body)
        assert refused.status_code == status, (body, refused.text)
        assert code in refused.text
    assert _complaints(sessions, me.address) == 0
    assert _complaints(sessions, stranger.address) == 0

    # The same report ten times at once: one is filed.
    with ThreadPoolExecutor(10) as pool:
        answers = list(pool.map(lambda _: report(my_token, **first), range(10)))
    assert sorted(a.status_code for a in answers) == [201] + [409] * 9, [a.text for a in answers]
    assert _complaints(sessions, me.address) == 1

    # Four different reports at once, with two left today: two are filed.
    others = [
        {"table_id": t, "address": m.address, "reason": "stalling", "note": "slow\u202e"}
        for t, (m, _) in zip(tables[1:], mates[1:], strict=True)
    ]
    with ThreadPoolExecutor(4) as pool:
        answers = list(pool.map(lambda body: report(my_token, **body), others))
    codes = sorted(a.status_code for a in answers)
    assert codes == [201, 201, 429, 429], [a.text for a in answers]
    assert all(
        json.loads(a.text)["error"]["code"] == "too_many_reports"
        for a in answers
        if a.status_code == 429
    )
    assert _complaints(sessions, me.address) == 3
    filed = [a.json() for a in answers if a.status_code == 201]
    assert {f["note"] for f in filed} == {"slow"}
    # At the cap, the cap answers first: the server does not read any table's seats for a
    # wallet that cannot file (a stranger or an unknown table gets the same 429).
    for body in ({**first, "address": stranger.address}, {**first, "table_id": "1" * 32}):
        capped = report(my_token, **body)
        assert capped.status_code == 429 and "too_many_reports" in capped.text, capped.text
    assert _complaints(sessions, me.address) == 3
