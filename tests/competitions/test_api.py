"""The HTTP API and WebSocket of tournaments on a real server: wallets register over HTTP,
play their rounds' matches over the table WebSocket, and a watcher hears every event."""

from __future__ import annotations

import asyncio
import json
import threading
from datetime import timedelta

import httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect
from websockets.asyncio.client import connect

from backend.api.routers.competitions import router
from backend.competitions import jobs, service
from backend.competitions.models import TournamentStatus
from backend.competitions.watch import TournamentWatch
from backend.config import Settings, SocketSettings
from backend.db.base import utcnow
from tests.fixtures.harness import Player, ServerProcess, api, sign_in

SETTINGS = Settings()


def _advance_in_background(sessions, stop: threading.Event) -> threading.Thread:
    def run() -> None:
        while not stop.is_set():
            jobs.advance_tournaments(session_factory=sessions, settings=SETTINGS)
            stop.wait(0.2)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


async def _play_my_games(server: ServerProcess, tid: int, token: str, number: int) -> int:
    """Play every game of entrant ``number`` until the tournament ends; returns games played."""
    played: set[str] = set()
    async with httpx.AsyncClient(base_url=server.url, timeout=10) as client:
        while True:
            t = (await client.get(f"/competitions/{tid}")).json()
            if t["status"] in ("finished", "cancelled"):
                return len(played)
            rounds = (await client.get(f"/competitions/{tid}/bracket")).json()
            mine = [
                g
                for r in rounds
                for g in r["games"]
                if number in (g["a"], g["b"]) and g["match_id"] and g["match_id"] not in played
            ]
            if not mine:
                await asyncio.sleep(0.2)
                continue
            game = mine[0]
            player = await Player(server.ws_url, game["table_id"], token).connect()
            assert player.seat == (0 if game["a"] == number else 1)
            await player.play_until_over()
            await player.close()
            played.add(game["match_id"])


async def _watch(server: ServerProcess, tid: int) -> list[dict]:
    events = []
    async with connect(f"{server.ws_url}/competitions/{tid}/ws") as ws:
        async for raw in ws:
            events.append(json.loads(raw))
    return events


def test_register_play_and_watch_a_tournament(pg_url, sessions):
    with sessions() as session:
        t = service.create_tournament(
            session=session,
            spec=service.TournamentSpec(
                name="api-swiss",
                preset="draw",
                format="swiss",
                min_entrants=4,
                max_entrants=4,
                starts_at=utcnow() + timedelta(hours=1),
                turn_timeout_s=20,
            ),
        )
        tid = t.id
    stop = threading.Event()
    with ServerProcess(pg_url, bot_move_delay_s=0.01, adopt_started_every_s=0.2) as server:
        _, token_a = sign_in(server.url)
        _, token_b = sign_in(server.url)
        with api(server.url) as anonymous:
            refused = anonymous.post(f"/competitions/{tid}/register")
            assert refused.status_code == 401
            assert anonymous.get("/competitions/999999").json()["error"]["code"] == (
                "tournament_not_found"
            )
        with api(server.url, token_a) as client:
            assert client.post(f"/competitions/{tid}/register").json()["number"] == 1
            again = client.post(f"/competitions/{tid}/register")
            assert (again.status_code, again.json()["error"]["code"]) == (409, "already_registered")
            bad = client.post(f"/competitions/{tid}/register", json={"avatar_id": 0})
            assert bad.status_code == 422

        async def scenario() -> tuple[list[dict], int, int]:
            watcher = asyncio.create_task(_watch(server, tid))
            await asyncio.sleep(0.5)
            with api(server.url, token_b) as client:
                assert client.post(f"/competitions/{tid}/register").json()["number"] == 2
            with sessions() as session:  # the organizer fills the draw with bots: it starts
                service.add_bots(session=session, tournament_id=tid, count=2, level="easy")
            _advance_in_background(sessions, stop)
            games = await asyncio.gather(
                _play_my_games(server, tid, token_a, 1), _play_my_games(server, tid, token_b, 2)
            )
            return await asyncio.wait_for(watcher, 30), *games

        try:
            events, games_a, games_b = asyncio.run(scenario())
        finally:
            stop.set()
        # 4 entrants: two Swiss rounds, every entrant plays both
        assert (games_a, games_b) == (2, 2)
        kinds = [e["type"] for e in events]
        assert kinds[:4] == ["tournament", "registration", "bracket", "standings"]
        registrations = [e["data"] for e in events if e["type"] == "registration"]
        counts = [len(r) for r in registrations]
        assert counts[0] == 1 and counts[-1] == 4 and counts == sorted(counts)
        final = [e for e in events if e["type"] == "tournament"][-1]["data"]
        assert final["status"] == TournamentStatus.FINISHED
        brackets = [e["data"] for e in events if e["type"] == "bracket"]
        assert len(brackets[-1]) == 2 and all(
            g["status"] in ("finished", "bye") for r in brackets[-1] for g in r["games"]
        )
        with api(server.url) as client:
            standings = client.get(f"/competitions/{tid}/standings").json()
            listed = client.get("/competitions", params={"status": "finished"}).json()
        assert [s["place"] for s in standings] == [1, 2, 3, 4]
        assert sum(s["score"] for s in standings) == 2 * 4  # two games per round, 2 half points
        assert standings == [e["data"] for e in events if e["type"] == "standings"][-1]
        assert tid in [x["id"] for x in listed]


def test_the_tournament_socket_refuses_an_id_out_of_range(sessions):
    """The WebSocket takes the HTTP routes' bounded id: a huge one (>= 2**63 overflows the
    database's integer) is a clean refusal, not an error on the first query."""
    app = FastAPI()
    app.state.session_factory = sessions
    app.state.tournament_watch = TournamentWatch(SocketSettings(), sessions)
    app.include_router(router)
    with TestClient(app) as client:
        for bad in (0, 2**31, 2**63, 2**70):
            with (
                pytest.raises(WebSocketDisconnect) as refused,
                client.websocket_connect(f"/competitions/{bad}/ws") as ws,
            ):
                ws.receive_text()
            assert refused.value.code == 1008
        # in range but unknown: accepted, then the domain error and 4404
        with client.websocket_connect(f"/competitions/{2**31 - 1}/ws") as ws:
            assert json.loads(ws.receive_text())["error"]["code"] == "tournament_not_found"
            with pytest.raises(WebSocketDisconnect) as closed:
                ws.receive_text()
            assert closed.value.code == 4404
