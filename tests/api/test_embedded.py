"""The embedded defaults (SQLite, one process): a practice match played to the end over
the app's WebSocket, move by move, with the end of match written to the outbox."""

from __future__ import annotations

import json
import time

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, func, select

from backend.api.app import create_app
from backend.config import AuthSettings, ChainSettings, DatabaseSettings, ServerSettings, Settings
from backend.economy.models import SettlementRequest
from backend.tables.models import Match, MatchMove
from tests.accounts.signing import sign_in

pytestmark = pytest.mark.timeout(120)


def test_practice_match_on_sqlite_over_websocket(sqlite_url: str) -> None:
    settings = Settings(
        db=DatabaseSettings(url=sqlite_url),
        auth=AuthSettings(),
        chain=ChainSettings(manifest_path="/nonexistent/deployment.json"),
        server=ServerSettings(bot_move_delay_s=0.0, ws_rate_per_s=1000, ws_rate_burst=1000),
    )
    with TestClient(create_app(settings)) as client:
        token = sign_in(client)["access_token"]
        headers = {"Authorization": f"Bearer {token}"}
        table = client.post(
            "/tables", json={"preset": "draw", "seats": 2, "kind": "practice"}, headers=headers
        ).json()
        acked = 0
        with client.websocket_connect(f"/ws/tables/{table['id']}?token={token}") as ws:
            view, over = None, None
            while over is None:
                message = json.loads(ws.receive_text())
                if message["type"] in ("snapshot", "moved"):
                    view = message["view"]
                    ply = message["ply"]
                    if message["type"] == "snapshot" and message.get("final"):
                        over = message["final"]
                elif message["type"] == "match_over":
                    over = message
                elif message["type"] == "ack":
                    acked += 1
                    continue
                elif message["type"] == "error":
                    raise AssertionError(message)
                if over is None and view and view["turn"] == view["seat"] and view["legal_moves"]:
                    ws.send_text(
                        json.dumps(
                            {"v": 1, "type": "move", "move": view["legal_moves"][0], "ply": ply}
                        )
                    )
    engine = create_engine(sqlite_url)
    with engine.connect() as conn:
        match = conn.execute(select(Match).where(Match.id == table["match_id"])).one()
        moves = conn.scalar(
            select(func.count()).select_from(MatchMove).where(MatchMove.match_id == match.id)
        )
        outbox = conn.scalar(
            select(func.count())
            .select_from(SettlementRequest)
            .where(SettlementRequest.match_id == match.id)
        )
    engine.dispose()
    assert match.status == "finished"
    assert acked > 0 and moves == over["ply"]
    assert outbox == 1


def test_a_stopped_app_leaves_no_gc_hooks_or_frozen_heap(sqlite_url: str) -> None:
    import gc

    from backend.tables.live import loops as live

    settings = Settings(
        db=DatabaseSettings(url=sqlite_url),
        chain=ChainSettings(manifest_path="/nonexistent/deployment.json"),
        server=ServerSettings(gc_freeze_every_s=0.01),
    )
    with TestClient(create_app(settings)) as client:
        assert live._gc_pause in gc.callbacks
        # Wait for the heap loop to freeze the heap at least once (bounded, polled).
        deadline = time.monotonic() + 10
        while gc.get_freeze_count() == 0 and time.monotonic() < deadline:
            assert client.get("/health").status_code == 200
        assert gc.get_freeze_count() > 0
    assert live._gc_pause not in gc.callbacks
    assert gc.get_freeze_count() == 0
