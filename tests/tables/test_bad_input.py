"""Bad input over the WebSocket and HTTP: each gets a clear error and changes nothing."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import jwt
import pytest
from sqlalchemy import func, select
from websockets.asyncio.client import connect

from backend.config import AuthSettings
from backend.tables.models import MatchMove
from tests.fixtures.harness import Player, ServerProcess, api, sign_in

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def server(pg_url: str) -> Iterator[ServerProcess]:
    with ServerProcess(
        pg_url,
        turn_timeout_s=120,
        bot_move_delay_s=0.0,
        ws_rate_per_s=0.5,
        ws_rate_burst=40,
        ws_max_message_bytes=2048,
    ) as proc:
        yield proc


@pytest.fixture(scope="module")
def table(server: ServerProcess) -> tuple[str, list[str]]:
    tokens = [sign_in(server.url)[1] for _ in range(4)]
    with api(server.url, tokens[0]) as host:
        table_id = host.post("/tables", json={"preset": "dew200"}).json()["id"]
    for token in tokens[1:]:
        with api(server.url, token) as guest:
            assert guest.post(f"/tables/{table_id}/join").status_code == 200
    return table_id, tokens


def _moves(db) -> int:  # type: ignore[no-untyped-def]
    with db.connect() as conn:
        return conn.scalar(select(func.count()).select_from(MatchMove))


async def _players(server: ServerProcess, table: tuple[str, list[str]]) -> list[Player]:
    table_id, tokens = table
    return [await Player(server.ws_url, table_id, t).connect() for t in tokens]


async def _error(player: Player) -> dict:
    while True:
        message = await player.recv(timeout=10)
        if message["type"] == "error":
            return message["error"]


def test_bad_moves_and_messages_are_refused_and_change_nothing(server, table, db) -> None:  # type: ignore[no-untyped-def]
    async def run() -> None:
        players = await _players(server, table)
        by_seat = {p.seat: p for p in players}
        turn = players[0].view["turn"]  # type: ignore[index]
        mover, idle = by_seat[turn], by_seat[(turn + 1) % 4]
        before, ply = _moves(db), mover.ply
        hand = mover.view["hand"]  # type: ignore[index]
        legal = mover.view["legal_moves"]  # type: ignore[index]
        illegal = next(f"{t}L" for t in hand if f"{t}L" not in legal and f"{t}R" not in legal)
        cases = [
            (mover, {"v": 1, "type": "move", "move": illegal, "ply": ply}, "illegal_move"),
            (mover, {"v": 1, "type": "move", "move": "9:9L", "ply": ply}, "illegal_move"),
            (mover, {"v": 1, "type": "move", "move": {"x": 1}, "ply": ply}, "illegal_move"),
            (mover, {"v": 1, "type": "move", "move": legal[0], "ply": ply + 5}, "stale_ply"),
            (mover, {"v": 1, "type": "move", "move": legal[0], "ply": "x"}, "invalid_request"),
            (idle, {"v": 1, "type": "move", "move": legal[0]}, "not_your_turn"),
            (mover, {"v": 2, "type": "move", "move": legal[0]}, "unsupported_version"),
            (mover, {"v": 1, "type": "teleport"}, "unknown_type"),
            (mover, [1, 2, 3], "malformed_message"),
        ]
        for player, message, code in cases:
            await player.send_raw(json.dumps(message))
            error = await _error(player)
            assert error["code"] == code, (message, error)
            assert error["message"]
        await mover.send_raw("{not json")
        assert (await _error(mover))["code"] == "malformed_json"
        await mover.send_raw("x" * 5000)
        assert (await _error(mover))["code"] == "message_too_large"
        assert _moves(db) == before
        # The connection survived all of it and the position is unchanged.
        await mover.send({"type": "resync"})
        while True:
            message = await mover.recv()
            if message["type"] == "snapshot":
                break
        assert message["ply"] == ply and message["view"]["hand"] == hand
        for p in players:
            await p.close()

    asyncio.run(run())


def test_spectators_cannot_move(server, table, db) -> None:  # type: ignore[no-untyped-def]
    async def run() -> None:
        watcher = await Player(server.ws_url, table[0], None).connect()
        assert watcher.seat is None
        assert "hand" not in watcher.view  # type: ignore[operator]
        before = _moves(db)
        await watcher.send({"type": "move", "move": "6:6L"})
        assert (await _error(watcher))["code"] == "forbidden"
        assert _moves(db) == before
        await watcher.close()

    asyncio.run(run())


def test_rate_limit_drops_excess_messages(server, table) -> None:  # type: ignore[no-untyped-def]
    async def run() -> tuple[list[str], float]:
        watcher = await Player(server.ws_url, table[0], None).connect()
        started = time.monotonic()
        for i in range(60):
            await watcher.send({"type": "ping", "ref": i})
        codes = []
        while len(codes) < 60:
            message = await watcher.recv()
            codes.append(
                message["type"] if message["type"] != "error" else message["error"]["code"]
            )
        await watcher.close()
        return codes, time.monotonic() - started

    codes, elapsed = asyncio.run(run())
    # Burst of 40, then 0.5 more per second while the 60 pings were arriving.
    assert 40 <= codes.count("pong") <= 40 + int(0.5 * elapsed) + 1
    assert codes.count("pong") + codes.count("rate_limited") == 60
    assert codes.count("rate_limited") >= 1


def test_unknown_table_and_bad_tokens_are_refused(server, table) -> None:  # type: ignore[no-untyped-def]
    _, token = sign_in(server.url)
    claims = jwt.decode(token, options={"verify_signature": False})
    expired = jwt.encode(
        {**claims, "exp": int((datetime.now(UTC) - timedelta(seconds=5)).timestamp())},
        AuthSettings().jwt_secret,  # the server under test runs on the default settings
        algorithm="HS256",
    )

    async def first(url: str) -> tuple[dict, int | None]:
        async with connect(url) as ws:
            message = json.loads(await ws.recv())
            await ws.wait_closed()
            return message, ws.close_code

    message, code = asyncio.run(first(f"{server.ws_url}/ws/tables/nope"))
    assert message["error"]["code"] == "table_not_found" and code == 4404
    message, code = asyncio.run(first(f"{server.ws_url}/ws/tables/{table[0]}?token={expired}"))
    assert message["error"]["code"] == "token_expired" and code == 4401
    message, code = asyncio.run(first(f"{server.ws_url}/ws/tables/{table[0]}?token=garbage"))
    assert message["error"]["code"] == "token_invalid" and code == 4401
    with api(server.url, token) as client:
        missing = client.get("/tables/nope")
        assert missing.status_code == 404
        assert missing.json()["error"]["code"] == "table_not_found"
        joined = client.post(f"/tables/{table[0]}/join")
        assert joined.status_code == 409
        assert joined.json()["error"]["code"] == "table_not_open"
    with api(server.url, expired) as client:
        refused = client.post("/tables", json={"preset": "dew200"})
        assert refused.status_code == 401 and refused.json()["error"]["code"] == "token_expired"


def test_replayed_nonce_is_refused_by_the_server(server) -> None:  # type: ignore[no-untyped-def]
    from eth_account import Account

    from tests.accounts.signing import sign

    account = Account.create()
    with api(server.url) as client:
        message = client.post("/auth/nonce", json={"address": account.address}).json()["message"]
        body = {"message": message, "signature": sign(account, message)}
        assert client.post("/auth/signin", json=body).status_code == 200
        again = client.post("/auth/signin", json=body)
        assert again.status_code == 401
        assert again.json()["error"]["code"] == "signin_nonce_replayed"
