"""Hostile clients of the two WebSockets (issue 17, findings 1, 5, 11 and 12).

- Tournament sockets that their clients closed are noticed, so they can neither pile up
  nor keep the server from stopping on SIGTERM; an address and a tournament have caps.
- Connects to malformed (huge) table ids are refused by format and leave nothing behind.
- A spectator of a table with a spectator delay sees the delayed position, also on resync.
- A private table is watched only by its seated and invited wallets.
- Table spectators are capped per client address and per table; a seat's sockets are not
  counted against those caps (capped per seat instead), so a seated player always gets in.
"""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import uuid
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from backend.competitions import service as competitions
from backend.db import create_db_engine, make_session_factory
from backend.db.base import utcnow
from backend.tables.models import MatchMove
from tests.fixtures.harness import Player, ServerProcess, api, sign_in, wait_for

pytestmark = pytest.mark.timeout(300)


@pytest.fixture
def sessions(db_url: str) -> Iterator[sessionmaker[Session]]:
    engine = create_db_engine(db_url)
    yield make_session_factory(engine)
    engine.dispose()


def _registering_tournament(sessions: sessionmaker[Session]) -> int:
    """A tournament that stays in registration for the whole test: it never sends again."""
    with sessions() as session:
        t = competitions.create_tournament(
            session=session,
            spec=competitions.TournamentSpec(
                name=f"hostile-sockets-{uuid.uuid4().hex[:8]}",
                preset="draw",
                starts_at=utcnow() + timedelta(hours=1),
            ),
        )
        return t.id


async def _first_and_close(url: str, **kwargs: Any) -> tuple[dict[str, Any], int | None]:
    """The first message of a socket, then the server's close code."""
    async with connect(url, **kwargs) as ws:
        message = json.loads(await ws.recv())
        try:
            while True:
                await asyncio.wait_for(ws.recv(), 20)
        except ConnectionClosed:
            pass
        return message, ws.close_code


async def _open_watchers(url: str, n: int, **kwargs: Any) -> list[Any]:
    """``n`` tournament sockets, each past its first event (so each was accepted)."""
    sockets = []
    try:
        for _ in range(n):
            ws = await connect(url, **kwargs)
            sockets.append(ws)
            first = json.loads(await asyncio.wait_for(ws.recv(), 20))
            assert first["type"] == "tournament", first
    except BaseException:
        for ws in sockets:
            await ws.close()
        raise
    return sockets


def test_tournament_sockets_are_capped_per_address_and_freed_when_their_clients_go(
    start_server, sessions
) -> None:  # type: ignore[no-untyped-def]
    server: ServerProcess = start_server(extra_env={"DEW_SOCKETS_TOURNAMENT_PER_ADDRESS": "4"})
    tid = _registering_tournament(sessions)
    url = f"{server.ws_url}/competitions/{tid}/ws"

    async def scenario() -> None:
        held = await _open_watchers(url, 4)
        refused, code = await _first_and_close(url)
        assert refused["type"] == "error" and refused["error"]["code"] == "too_many_sockets"
        assert "4" in refused["error"]["message"] and code == 4429
        for ws in held:
            await ws.close()

        # The server notices the clients went (their slots come back) without sending them
        # anything: a tournament in registration has nothing to send.
        async def four_again() -> list[Any] | None:
            try:
                return await _open_watchers(url, 4)
            except AssertionError:
                return None

        deadline = asyncio.get_running_loop().time() + 20
        again = None
        while again is None:
            assert asyncio.get_running_loop().time() < deadline, "closed sockets never freed"
            again = await four_again()
        for ws in again:
            await ws.close()

    asyncio.run(scenario())


def test_one_tournament_caps_its_watchers_from_any_address(start_server, sessions) -> None:  # type: ignore[no-untyped-def]
    server: ServerProcess = start_server(extra_env={"DEW_SOCKETS_TOURNAMENT_PER_TOURNAMENT": "3"})
    tid = _registering_tournament(sessions)
    url = f"{server.ws_url}/competitions/{tid}/ws"

    async def scenario() -> None:
        # Four client addresses on the loopback network, one socket each.
        held = []
        for n in (2, 3, 4):
            held += await _open_watchers(url, 1, local_addr=(f"127.0.0.{n}", 0))
        refused, code = await _first_and_close(url, local_addr=("127.0.0.5", 0))
        assert refused["error"]["code"] == "too_many_sockets" and code == 4429
        # Another tournament is not affected by this one's cap.
        other = f"{server.ws_url}/competitions/{_registering_tournament(sessions)}/ws"
        for ws in [*held, *await _open_watchers(other, 1, local_addr=("127.0.0.5", 0))]:
            await ws.close()

    asyncio.run(scenario())


def test_a_full_tournament_still_lets_its_entrants_watch(start_server, sessions) -> None:  # type: ignore[no-untyped-def]
    """Before, the tournament's pool was one for everyone: 126 addresses of 16 sockets
    filled a tournament's 2,000, and its own players got 4429 (and the page stopped
    reconnecting). Now a signed-in entrant's sockets have their own slots, per entrant."""
    server: ServerProcess = start_server(
        extra_env={
            "DEW_SOCKETS_TOURNAMENT_PER_ADDRESS": "1",
            "DEW_SOCKETS_TOURNAMENT_PER_TOURNAMENT": "2",
            "DEW_SOCKETS_TOURNAMENT_PER_ENTRANT": "2",
        }
    )
    tid = _registering_tournament(sessions)
    entrant, entrant_token = sign_in(server.url)
    _, stranger_token = sign_in(server.url)
    with sessions() as session:
        competitions.register(
            session=session, gate=None, tournament_id=tid, address=entrant.address
        )
    url = f"{server.ws_url}/competitions/{tid}/ws"

    async def scenario() -> None:
        held = []
        try:
            for n in (2, 3):  # two addresses fill the public slots
                held += await _open_watchers(url, 1, local_addr=(f"127.0.0.{n}", 0))
            for who in (url, f"{url}?token={stranger_token}", f"{url}?token=garbage"):
                refused, code = await _first_and_close(who, local_addr=("127.0.0.4", 0))
                assert refused["error"]["code"] == "too_many_sockets" and code == 4429
            # The entrant gets in, from a new address and from the full one, up to its own cap.
            mine = f"{url}?token={entrant_token}"
            held += await _open_watchers(mine, 1, local_addr=("127.0.0.4", 0))
            held += await _open_watchers(mine, 1, local_addr=("127.0.0.2", 0))
            refused, code = await _first_and_close(mine, local_addr=("127.0.0.5", 0))
            assert refused["error"]["code"] == "too_many_sockets" and code == 4429
            assert "entrant" in refused["error"]["message"]
            # The entrant's sockets took nothing from the public: still full for others.
            refused, code = await _first_and_close(url, local_addr=("127.0.0.5", 0))
            assert code == 4429
        finally:
            for ws in held:
                await ws.close()

    asyncio.run(scenario())


def test_closed_tournament_sockets_let_the_server_stop_on_sigterm(start_server, sessions) -> None:  # type: ignore[no-untyped-def]
    """200 connect-and-close cycles, then SIGTERM with sockets still open: the server stops.
    (Before, every closed socket's handler polled the database forever and uvicorn waited
    for them: the server never stopped.)"""
    # The per-address cap is not what is tested here (closing sockets are counted until
    # their handler returns).
    server: ServerProcess = start_server(extra_env={"DEW_SOCKETS_TOURNAMENT_PER_ADDRESS": "1000"})
    tid = _registering_tournament(sessions)
    url = f"{server.ws_url}/competitions/{tid}/ws"

    async def cycles() -> list[Any]:
        for _ in range(200):
            async with connect(url):
                pass
        return await _open_watchers(url, 3)

    async def scenario() -> None:
        held = await cycles()
        assert server.proc is not None
        server.proc.terminate()
        # Wait for the exit off the event loop, so the open sockets can see their close.
        code = await asyncio.to_thread(server.proc.wait, 20)
        # uvicorn re-raises the signal it caught once it has shut down: -SIGTERM is a clean stop.
        assert code in (0, -signal.SIGTERM), server.log_path.read_text()[-2000:]
        for ws in held:  # the rest of their first four events, then the close
            with pytest.raises(ConnectionClosed):
                for _ in range(10):
                    await asyncio.wait_for(ws.recv(), 10)

    try:
        asyncio.run(scenario())
    except subprocess.TimeoutExpired:
        pytest.fail("the server did not stop within 20 s of SIGTERM")


def test_huge_unknown_table_ids_are_refused_by_format_before_anything_is_loaded(
    start_server,
) -> None:  # type: ignore[no-untyped-def]
    """An id that cannot be a table's is refused before the token check, the hub or the
    database see it; before the fix it was looked up, and the hub kept it (and a lock) for
    good: +17 MB per 2,000 connects with 8,000-character ids (scripts/bench_abuse.py
    measures resident memory)."""
    server: ServerProcess = start_server()
    huge = "x" * 8000
    for table_id, token in ((huge, None), (huge, "garbage"), ("A" * 32, None), ("nope", None)):
        url = f"{server.ws_url}/ws/tables/{table_id}" + (f"?token={token}" if token else "")
        message, code = asyncio.run(_first_and_close(url))
        assert message["error"]["code"] == "table_not_found" and code == 4404, message
        # The refusal names the format, without echoing 8,000 characters back (and before
        # the token: a garbage token is not what is refused).
        assert "32 lowercase hexadecimal" in message["error"]["message"]
        assert len(message["error"]["message"]) < 200


def _moves(sessions: sessionmaker[Session], match_id: str) -> int:
    with sessions() as session:
        return session.scalar(
            select(func.count()).select_from(MatchMove).where(MatchMove.match_id == match_id)
        )


def test_spectators_see_the_delayed_position_also_on_resync(start_server, sessions) -> None:  # type: ignore[no-untyped-def]
    server: ServerProcess = start_server(bot_move_delay_s=0.1)
    _, token = sign_in(server.url)
    _, watcher_token = sign_in(server.url)
    with api(server.url, token) as client:
        far = client.post(
            "/tables",
            json={"preset": "dew200", "kind": "ai", "seats": 4, "spectator_delay_s": 600},
        ).json()
        near = client.post(
            "/tables",
            json={"preset": "dew200", "kind": "ai", "seats": 4, "spectator_delay_s": 2},
        ).json()
    wait_for(lambda: _moves(sessions, far["match_id"]) >= 4, what="moves at the delayed table")

    async def far_scenario() -> None:
        for who in (None, watcher_token):  # anonymous, and a signed-in wallet without a seat
            spectator = await Player(server.ws_url, far["id"], who).connect()
            first = spectator.messages[0]
            # Ten minutes ago the match had not begun: nothing of it is shown yet.
            assert (first["ply"], first["moves"], first["final"]) == (0, [], None)
            assert first["view"]["line"] == [] and first["match_status"] == "live"
            await spectator.send({"type": "resync"})
            again = await spectator.recv()
            assert again["type"] == "snapshot" and (again["ply"], again["moves"]) == (0, [])
            await spectator.close()

    asyncio.run(far_scenario())

    wait_for(lambda: _moves(sessions, near["match_id"]) >= 25, what="moves at the 2 s table")

    async def near_scenario() -> None:
        spectator = await Player(server.ws_url, near["id"], None).connect()
        shown = spectator.ply
        now = _moves(sessions, near["match_id"])
        assert shown < now, (shown, now)  # bots move every 0.1 s: 2 s behind is behind
        assert len(spectator.messages[0]["moves"]) == shown
        # The moves in between follow, in order and without a gap, as they come of age.
        plies = []
        while len(plies) < now - shown:
            message = await spectator.recv(timeout=20)
            if message["type"] == "moved":
                plies.append(message["ply"])
        assert plies == list(range(shown + 1, now + 1))
        await spectator.close()

    asyncio.run(near_scenario())


def test_private_tables_are_watched_by_invitation_only(start_server) -> None:  # type: ignore[no-untyped-def]
    server: ServerProcess = start_server()
    _, creator = sign_in(server.url)
    guest, guest_token = sign_in(server.url)
    _, stranger = sign_in(server.url)
    with api(server.url, creator) as client:
        created = client.post(
            "/tables",
            json={"preset": "draw", "seats": 2, "visibility": "private", "invite": [guest.address]},
        )
        assert created.status_code == 201, created.text
        table = created.json()
    url = f"{server.ws_url}/ws/tables/{table['id']}"

    for token in (None, stranger):
        message, code = asyncio.run(_first_and_close(url + (f"?token={token}" if token else "")))
        assert message["type"] == "error" and message["error"]["code"] == "not_invited"
        assert code == 4403

    async def allowed() -> tuple[Any, Any]:
        invited = await Player(server.ws_url, table["id"], guest_token).connect()
        seated = await Player(server.ws_url, table["id"], creator).connect()
        await invited.close()
        await seated.close()
        return invited.messages[0], seated.messages[0]

    invited, seated = asyncio.run(allowed())
    assert invited["you"] is None and seated["you"] == 0
    # The refusals changed nothing at the table.
    with api(server.url, creator) as client:
        after = client.get(f"/tables/{table['id']}").json()
    assert after["status"] == "open" and after["seats"] == table["seats"]


async def _table_socket(url: str, host: str) -> tuple[Any, dict[str, Any]]:
    """A table socket from client address ``host`` and its first message."""
    ws = await connect(url, local_addr=(host, 0))
    return ws, json.loads(await asyncio.wait_for(ws.recv(), 20))


async def _refused(url: str, host: str) -> str:
    ws, first = await _table_socket(url, host)
    try:
        assert first["type"] == "error", first
        with pytest.raises(ConnectionClosed):
            await asyncio.wait_for(ws.recv(), 20)
        assert ws.close_code == 4429, ws.close_code
        return str(first["error"]["code"])
    finally:
        await ws.close()


def test_table_spectators_are_capped_per_address_and_table_and_seats_always_get_in(
    start_server,
) -> None:  # type: ignore[no-untyped-def]
    """Before, table sockets had no cap but the HTTP edge's handshake budget: 2,000
    spectator sockets came from four addresses."""
    server: ServerProcess = start_server(
        extra_env={
            "DEW_SOCKETS_TABLE_PER_ADDRESS": "3",
            "DEW_SOCKETS_TABLE_SPECTATORS_PER_TABLE": "5",
            "DEW_SOCKETS_TABLE_PER_SEAT": "2",
        }
    )
    _, host_token = sign_in(server.url)
    _, watcher_token = sign_in(server.url)
    with api(server.url, host_token) as client:
        created = client.post("/tables", json={"preset": "draw", "seats": 2})
        assert created.status_code == 201, created.text
        table_id = created.json()["id"]
    url = f"{server.ws_url}/ws/tables/{table_id}"

    async def scenario() -> None:
        held = []
        try:
            for _ in range(3):  # an address's three spectators
                ws, first = await _table_socket(url, "127.0.0.2")
                held.append(ws)
                assert first["type"] == "snapshot" and first["you"] is None, first
            # A fourth from that address, anonymous or signed in, is refused.
            assert await _refused(url, "127.0.0.2") == "too_many_sockets"
            assert await _refused(f"{url}?token={watcher_token}", "127.0.0.2") == "too_many_sockets"
            # Two more from another address fill the table's five; a third address is refused.
            for _ in range(2):
                ws, first = await _table_socket(url, "127.0.0.3")
                held.append(ws)
                assert first["type"] == "snapshot", first
            assert await _refused(url, "127.0.0.4") == "too_many_sockets"
            # The seated creator gets in from the full address of the full table, twice; a
            # third socket for its seat is refused.
            seated = f"{url}?token={host_token}"
            for _ in range(2):
                ws, first = await _table_socket(seated, "127.0.0.2")
                held.append(ws)
                assert first["type"] == "snapshot" and first["you"] == 0, first
            assert await _refused(seated, "127.0.0.4") == "too_many_sockets"
            # A spectator that goes frees its slots: another from its address gets in (the
            # server notices the close on its own: poll for it).
            await held.pop(0).close()
            deadline = asyncio.get_running_loop().time() + 20
            while True:
                ws, first = await _table_socket(url, "127.0.0.2")
                if first["type"] == "snapshot":
                    held.append(ws)
                    break
                await ws.close()
                assert asyncio.get_running_loop().time() < deadline, first
        finally:
            for ws in held:
                await ws.close()

    asyncio.run(scenario())
