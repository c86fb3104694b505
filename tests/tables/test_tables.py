"""Tables over HTTP against a real server: private invitations, lobby, practice and AI
tables, matchmaking with bots after the wait, and the turn-timer policy."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
from sqlalchemy import select

from backend.economy.models import SettlementRequest
from backend.tables.models import Match, MatchMove, MatchResult
from tests.fixtures.harness import Player, ServerProcess, api, sign_in, wait_for

pytestmark = pytest.mark.timeout(180)


@pytest.fixture(scope="module")
def server(pg_url: str) -> Iterator[ServerProcess]:
    with ServerProcess(
        pg_url,
        turn_timeout_s=1,
        forfeit_after_timeouts=2,
        matchmaking_wait_s=1,
        bot_move_delay_s=0.0,
        ws_rate_per_s=1000,
        ws_rate_burst=1000,
    ) as proc:
        yield proc


def _match_status(db, match_id: str) -> str | None:  # type: ignore[no-untyped-def]
    with db.connect() as conn:
        return conn.scalar(select(Match.status).where(Match.id == match_id))


def test_private_table_admits_by_invitation_address_or_link_only(server) -> None:  # type: ignore[no-untyped-def]
    _, host = sign_in(server.url)
    invited, invited_token = sign_in(server.url)
    _, stranger = sign_in(server.url)
    _, linked = sign_in(server.url)
    with api(server.url, host) as client:
        created = client.post(
            "/tables",
            json={"preset": "dew200", "visibility": "private", "invite": [invited.address]},
        )
        assert created.status_code == 201, created.text
        table = created.json()
        assert table["invite_code"] and table["invite_link"]
        lobby_ids = [t["id"] for t in client.get("/tables").json()]
        assert table["id"] not in lobby_ids
    with api(server.url, stranger) as client:
        refused = client.post(f"/tables/{table['id']}/join")
        assert refused.status_code == 403 and refused.json()["error"]["code"] == "not_invited"
        wrong = client.post(f"/tables/{table['id']}/join", json={"invite_code": "guess"})
        assert wrong.status_code == 403
        # A stranger does not see the table at all (as if it did not exist).
        assert client.get(f"/tables/{table['id']}").status_code == 404
    with api(server.url, invited_token) as client:
        assert client.post(f"/tables/{table['id']}/join").status_code == 200
        # Only the creator sees the invite code.
        assert client.get(f"/tables/{table['id']}").json()["invite_code"] is None
    with api(server.url, linked) as client:
        joined = client.post(
            f"/tables/{table['id']}/join", json={"invite_code": table["invite_code"]}
        )
        assert joined.status_code == 200
        assert len(joined.json()["seats"]) == 3
        again = client.post(
            f"/tables/{table['id']}/join", json={"invite_code": table["invite_code"]}
        )
        assert again.status_code == 409 and again.json()["error"]["code"] == "already_seated"


def test_public_lobby_lists_open_tables_and_bad_options_are_refused(server) -> None:  # type: ignore[no-untyped-def]
    _, token = sign_in(server.url)
    with api(server.url, token) as client:
        table = client.post("/tables", json={"preset": "dew200"}).json()
        assert table["id"] in [t["id"] for t in client.get("/tables?preset=dew200").json()]
        unknown = client.post("/tables", json={"preset": "chess"})
        assert unknown.status_code == 422 and unknown.json()["error"]["code"] == "unknown_preset"
        bad = client.post("/tables", json={"preset": "dew200", "options": {"nope": 1}})
        assert bad.status_code == 422 and bad.json()["error"]["code"] == "invalid_options"
        earning = client.post("/tables", json={"preset": "dew200", "earning": True})
        # No chain is configured for this server: earning tables are unavailable, clearly.
        assert earning.status_code == 503
        assert earning.json()["error"]["code"] == "chain_unavailable"
        presets = client.get("/presets").json()
        assert {"dew200", "doscientos", "partnership", "draw"} <= {p["preset"] for p in presets}


def test_ai_table_plays_itself_to_the_end_and_is_watchable(server, db) -> None:  # type: ignore[no-untyped-def]
    _, token = sign_in(server.url)
    with api(server.url, token) as client:
        table = client.post("/tables", json={"preset": "draw", "kind": "ai", "seats": 2}).json()
        assert table["status"] == "playing"
        assert all(s["bot_level"] for s in table["seats"])
    wait_for(lambda: _match_status(db, table["match_id"]) == "finished", what="AI match end")
    with db.connect() as conn:
        outbox = conn.execute(
            select(SettlementRequest).where(SettlementRequest.match_id == table["match_id"])
        ).one()
    assert all(seat["is_bot"] for seat in outbox.seats)
    with api(server.url) as client:
        match = client.get(f"/matches/{table['match_id']}").json()
    assert match["server_seed"] and match["record"]["server"]["match_id"] == table["match_id"]


def test_turn_timer_bot_plays_for_the_absent_player_then_forfeit(server, db) -> None:  # type: ignore[no-untyped-def]
    account, token = sign_in(server.url)
    with api(server.url, token) as client:
        table = client.post(
            "/tables", json={"preset": "dew200", "kind": "practice", "bot_level": "easy"}
        ).json()
    match_id = table["match_id"]
    # Nobody connects: the practice table's bots play; the absent human's turns time out.
    wait_for(lambda: _match_status(db, match_id) == "finished", timeout=60, what="forfeit")
    with db.connect() as conn:
        mine = [
            (r.kind, r.actor)
            for r in conn.execute(
                select(MatchMove)
                .where(MatchMove.match_id == match_id, MatchMove.seat == 0)
                .order_by(MatchMove.ply)
            )
        ]
        result = conn.execute(
            select(MatchResult).where(MatchResult.match_id == match_id, MatchResult.seat == 0)
        ).one()
    # Policy: the first timed-out turn is played by the bot, the second forfeits the match.
    assert mine == [("move", "timeout"), ("forfeit", "timeout")]
    assert result.forfeited and not result.won and result.address == account.address
    with api(server.url) as client:
        history = client.get(f"/results?address={account.address}").json()
    assert [h["match_id"] for h in history] == [match_id]


def test_matchmaking_fills_with_bots_after_the_wait(server, db) -> None:  # type: ignore[no-untyped-def]
    _, token = sign_in(server.url)
    with api(server.url, token) as client:
        ticket = client.post("/matchmaking", json={"preset": "dew200"})
        assert ticket.status_code == 201, ticket.text
        again = client.post("/matchmaking", json={"preset": "dew200"})
        assert again.status_code == 409
        matched = wait_for(
            lambda: (
                (t := client.get(f"/matchmaking/{ticket.json()['id']}").json())["status"]
                == "matched"
                and t
            ),
            what="matchmaking",
        )
        table = client.get(f"/tables/{matched['table_id']}").json()
    assert table["status"] == "playing"
    assert sum(1 for s in table["seats"] if s["bot_level"]) == 3

    async def look() -> Player:
        player = await Player(server.ws_url, table["id"], token).connect()
        await player.close()
        return player

    player = asyncio.run(look())
    assert player.seat is not None and player.view is not None
    assert len(player.view["hand"]) > 0


def test_concurrent_joins_for_the_last_seats_start_the_match(server) -> None:  # type: ignore[no-untyped-def]
    import threading

    _, host = sign_in(server.url)
    guests = [sign_in(server.url)[1] for _ in range(3)]
    for _ in range(3):
        with api(server.url, host) as client:
            table_id = client.post("/tables", json={"preset": "dew200"}).json()["id"]
        statuses: list[int] = []
        barrier = threading.Barrier(len(guests))

        def join(
            token: str,
            table_id: str = table_id,
            barrier: threading.Barrier = barrier,
            statuses: list[int] = statuses,
        ) -> None:
            with api(server.url, token) as client:
                barrier.wait()
                statuses.append(client.post(f"/tables/{table_id}/join").status_code)

        threads = [threading.Thread(target=join, args=(t,)) for t in guests]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert statuses == [200, 200, 200]
        with api(server.url, host) as client:
            table = client.get(f"/tables/{table_id}").json()
        # Whichever join filled the last seat started the match.
        assert table["status"] == "playing" and table["match_id"]
        assert sorted(s["seat"] for s in table["seats"]) == [0, 1, 2, 3]
