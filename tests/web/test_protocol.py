"""The shared message definitions: the generated JavaScript module is fresh, bad messages are
refused, and the Python client plays whole matches against a real server with them."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from eth_account import Account

from backend.game import replay
from backend.protocol import messages as protocol
from backend.protocol.client import DewClient, DewClientError
from backend.protocol.messages import PROTOCOL_VERSION as SERVER_VERSION

pytestmark = pytest.mark.timeout(180)
REPO = Path(__file__).resolve().parents[2]


def test_protocol_js_is_generated_from_protocol_py():
    committed = (REPO / "backend" / "web" / "protocol.js").read_text()
    assert committed == protocol.render_js(), "run: uv run python scripts/gen_protocol_js.py"
    check = subprocess.run(
        [sys.executable, "scripts/gen_protocol_js.py", "--check"], cwd=REPO, capture_output=True
    )
    assert check.returncode == 0, check.stdout


def test_the_server_speaks_this_version():
    assert protocol.PROTOCOL_VERSION == SERVER_VERSION


@pytest.mark.parametrize(
    ("kind", "fields", "problem"),
    [
        ("move", {"move": "7:1L"}, "not a move"),
        ("move", {"move": "6:4"}, "not a move"),
        ("move", {}, "without 'move'"),
        ("move", {"move": "draw", "ply": "3"}, "must be a integer"),
        ("move", {"move": "draw", "seat": 1}, "no field"),
        ("shout", {}, "unknown message type"),
        ("talk", {"phrase": 3}, "must be a string"),
        ("talk", {"volume": 11}, "no field"),
        ("mute", {"seat": 1}, "without 'muted'"),
        ("mute", {"seat": "1", "muted": True}, "must be a integer"),
        ("mute", {"seat": 1, "muted": "yes"}, "must be a boolean"),
    ],
)
def test_bad_client_messages_are_refused(kind, fields, problem):
    with pytest.raises(protocol.ProtocolError, match=problem):
        protocol.client_message(kind, **fields)


def test_talk_messages_and_the_catalogue():
    assert protocol.client_message("talk", phrase="hello")["phrase"] == "hello"
    assert protocol.client_message("mute", seat=2, muted=True)["muted"] is True
    for catalogue in (protocol.TALK_PHRASES, protocol.TALK_EMOTES, protocol.REPORT_REASONS):
        assert len(set(catalogue)) == len(catalogue)
        assert all(re.fullmatch(r"[a-z_]{1,32}", x) for x in catalogue)
    talk = protocol.talk(seat=0, phrase=None, emote="clap", text=None, at_ms=1)
    assert protocol.check_server_message(talk) is talk
    with pytest.raises(protocol.ProtocolError, match="without 'at_ms'"):
        protocol.check_server_message({k: v for k, v in talk.items() if k != "at_ms"})
    with pytest.raises(protocol.ProtocolError, match="must be a array"):
        protocol.check_server_message({"v": 1, "type": "muted", "seats": 0})


def test_server_messages_are_checked():
    ok = {"v": 1, "type": "ack", "ref": "m1", "ply": 4}
    assert protocol.check_server_message(ok) is ok
    for bad, problem in [
        ({**ok, "v": 2}, "protocol version"),
        ({**ok, "ply": None}, "must not be null"),
        ({"v": 1, "type": "ack", "ref": None}, "without 'ply'"),
        ({**ok, "type": "nope"}, "unknown message type"),
    ]:
        with pytest.raises(protocol.ProtocolError, match=problem):
            protocol.check_server_message(bad)
    with pytest.raises(protocol.ProtocolError, match="not JSON"):
        protocol.parse_server_message("{")


def test_the_server_builders_satisfy_the_definitions():
    built = [
        protocol.snapshot(
            table={"id": "t"},
            seats=[],
            you=None,
            match_id=None,
            match_status="none",
            seed_commitment=None,
            ply=0,
            moves=[],
            view=None,
            deadline_ms=None,
            final=None,
        ),
        protocol.moved(
            match_id="m", ply=1, seat=0, move="6:6L", actor="player", deadline_ms=None, view={}
        ),
        protocol.match_over(
            match_id="m", ply=9, result={"winner_seats": [0]}, server_seed="s", result_hash=None
        ),
        protocol.ack(ref="m1", ply=3),
        protocol.pong(ref=7),
        protocol.error("stale_ply", "moved on", "m2"),
        protocol.talk(seat=1, phrase="hello", emote=None, text=None, at_ms=1_700_000_000_000),
        protocol.muted(seats=[0, 2]),
    ]
    assert {m["type"] for m in built} == {m.type for m in protocol.SERVER_MESSAGES}
    for message in built:
        assert protocol.check_server_message(message) is message
        assert list(message)[:2] == ["v", "type"]
    # The wire text of the small messages, byte for byte.
    assert json.dumps(protocol.ack(ref="m1", ply=3), separators=(",", ":")) == (
        '{"v":1,"type":"ack","ref":"m1","ply":3}'
    )
    assert json.dumps(protocol.error("x", "y"), separators=(",", ":")) == (
        '{"v":1,"type":"error","ref":null,"error":{"code":"x","message":"y","detail":null}}'
    )


def test_dew_client_plays_a_practice_match_and_the_record_replays(server):
    with DewClient(server.url) as client:
        address = client.sign_in(Account.create().key.hex())
        table = client.create_table(preset="draw", seats=2, kind="practice")
        assert table["status"] == "playing"
        final = client.play(table["id"])
        match = client.match(final["match_id"])
    assert match["status"] == "finished"
    assert [s["address"] for s in match["seats"]].count(address) == 1
    assert replay(match["record"]).to_json()["winner_seats"] == final["result"]["winner_seats"]


def test_dew_client_plays_two_wallets_against_each_other(server):
    import threading

    clients = [DewClient(server.url) for _ in range(2)]
    for c in clients:
        c.sign_in(Account.create().key.hex())
    table = clients[0].create_table(preset="draw", seats=2)
    clients[1].join(table["id"])
    finals: list[dict] = []
    threads = [
        threading.Thread(target=lambda c=c: finals.append(c.play(table["id"]))) for c in clients
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(150)
    for c in clients:
        c.close()
    assert len(finals) == 2
    assert finals[0]["result_hash"] == finals[1]["result_hash"]


def test_dew_client_reports_refusals_with_their_code(server):
    with DewClient(server.url) as client:
        with pytest.raises(DewClientError) as refused:
            client.create_table(preset="draw", seats=2)
        assert (refused.value.code, refused.value.status) == ("not_authenticated", 401)
        client.sign_in(Account.create().key.hex())
        with pytest.raises(DewClientError) as unknown:
            client.create_table(preset="no-such-game", seats=2)
        assert unknown.value.code == "unknown_preset"


def test_the_web_client_is_served(server):
    page = httpx.get(server.url + "/")
    assert page.status_code == 200
    assert '<script type="module" src="/web/app.js">' in page.text
    for name in ("app.js", "api.js", "protocol.js", "wallet.js", "i18n.js", "replay.js"):
        module = httpx.get(f"{server.url}/web/{name}")
        assert module.status_code == 200, name
        assert "javascript" in module.headers["content-type"], name
    assert httpx.get(server.url + "/web/../pyproject.toml").status_code == 404
    assert httpx.get(server.url + "/web/nope.js").status_code == 404
