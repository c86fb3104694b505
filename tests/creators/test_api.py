"""The creator routes and the fee schedule over HTTP, against a real server process on SQLite
and PostgreSQL: a creator registers a code, a player binds to it with a statement its wallet
signs, the public page and the dashboard show it; ``GET /fees`` and every table summary show
the one fee schedule."""

from __future__ import annotations

import pytest

from tests.creators.helpers import sign
from tests.fixtures.harness import ServerProcess, api, sign_in


@pytest.fixture(scope="module")
def server(db_url):
    with ServerProcess(
        db_url,
        extra_env={"DEW_FEES_RAKE_BPS": "400", "DEW_FEES_CENTER_BPS": "2500"},
    ) as process:
        yield process


def test_a_player_binds_to_a_creator_through_its_signed_statement(server):
    creator, creator_token = sign_in(server.url)
    with api(server.url, creator_token) as c:
        made = c.post("/creators", json={"code": "Streamer42"})
        assert made.status_code == 201, made.text
        assert made.json() == {
            "code": "STREAMER42",
            "address": creator.address,
            "players": 0,
            "created_at": made.json()["created_at"],
        }
    player, token = sign_in(server.url)
    with api(server.url, token) as c:
        statement = c.post("/creators/bind/statement", json={"code": "streamer42"})
        assert statement.status_code == 201, statement.text
        text = statement.json()["message"]
        assert "STREAMER42" in text and player.address in text
        assert statement.json()["nonce"] in text
        bound = c.post(
            "/creators/bind",
            json={"nonce": statement.json()["nonce"], "signature": sign(player, text)},
        )
        assert bound.status_code == 201, bound.text
        assert bound.json()["creator"] == creator.address
        assert bound.json()["player"] == player.address
    with api(server.url) as c:
        page = c.get("/creators/streamer42").json()
    assert page["players"] == 1 and page["address"] == creator.address
    with api(server.url, creator_token) as c:
        board = c.get("/creators/me/dashboard")
    assert board.status_code == 200
    assert [p["player"] for p in board.json()["players"]] == [player.address]
    assert board.json()["players"][0]["matches"] == 0
    assert board.json()["earnings"] == []
    with api(server.url, token) as c:  # a wallet without a code has no dashboard
        assert c.get("/creators/me/dashboard").status_code == 404


def test_the_fee_schedule_is_one_and_tables_show_it(server):
    with api(server.url) as c:
        fees = c.get("/fees").json()
    assert fees["rake_bps"] == 400 and fees["center_bps"] == 2500
    assert fees["treasury_bps"] + fees["center_bps"] + fees["creator_bps"] == 10_000
    _, token = sign_in(server.url)
    with api(server.url, token) as c:
        made = c.post("/tables", json={"preset": "draw", "seats": 2})
        assert made.status_code == 201, made.text
        table = c.get(f"/tables/{made.json()['id']}").json()
        listed = [t for t in c.get("/tables").json() if t["id"] == table["id"]]
    # A free table takes no rake; no center hosts it, so the center's share is the treasury's.
    assert table["fees"] == {
        "rake_bps": 0,
        "treasury_bps": 10_000 - fees["creator_bps"],
        "center_bps": 0,
        "creator_bps": fees["creator_bps"],
        "center_id": None,
    }
    assert listed and listed[0]["fees"] == table["fees"]
