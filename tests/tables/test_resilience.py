"""Durability and scale-out with real processes: SIGKILL a server mid-match and finish the
match on another process with nothing lost; two processes sharing PostgreSQL and Redis
serve one match with a player connected to each."""

from __future__ import annotations

import asyncio
import uuid

import pytest
from sqlalchemy import select

from backend.economy.models import SettlementRequest
from backend.game import replay
from backend.tables.models import Match, MatchMove
from tests.fixtures.harness import Player, ServerProcess, api, sign_in, wait_for
from tests.fixtures.redis import REDIS_URL

pytestmark = pytest.mark.timeout(300)

FAST = {"turn_timeout_s": 60, "bot_move_delay_s": 0.0, "ws_rate_per_s": 1000, "ws_rate_burst": 1000}


def _logged_moves(db, match_id: str) -> list[tuple[int, int, str]]:  # type: ignore[no-untyped-def]
    with db.connect() as conn:
        return [
            (r.ply, r.seat, (r.move or {}).get("move", r.kind))
            for r in conn.execute(
                select(MatchMove).where(MatchMove.match_id == match_id).order_by(MatchMove.ply)
            )
        ]


def test_sigkill_mid_match_resumes_on_another_process_with_nothing_lost(pg_url: str, db) -> None:  # type: ignore[no-untyped-def]
    first = ServerProcess(pg_url, **FAST).start()
    try:
        tokens = [sign_in(first.url)[1] for _ in range(4)]
        with api(first.url, tokens[0]) as host:
            table_id = host.post("/tables", json={"preset": "dew200"}).json()["id"]
        for token in tokens[1:]:
            with api(first.url, token) as guest:
                assert guest.post(f"/tables/{table_id}/join").status_code == 200

        async def until(ply: int, url: str) -> list[Player]:
            players = [await Player(url, table_id, t).connect() for t in tokens]
            await asyncio.gather(*(p.play_until_over(stop_after_ply=ply) for p in players))
            return players

        before = asyncio.run(until(24, first.ws_url))
        acked = sorted(ply for p in before for ply in p.acked)
        seen = max(p.ply for p in before)
        first.kill()
    finally:
        first.stop()

    match_id = before[0].messages[0]["match_id"] or before[0].messages[-1]["match_id"]
    logged = _logged_moves(db, match_id)
    # Every acknowledged move was in the database before its acknowledgement.
    assert acked and set(acked) <= {ply + 1 for ply, _, _ in logged}
    assert [ply for ply, _, _ in logged] == list(range(len(logged)))
    assert len(logged) >= seen

    second = ServerProcess(pg_url, **FAST).start()
    try:

        async def finish() -> list[Player]:
            players = [await Player(second.ws_url, table_id, t).connect() for t in tokens]
            # The resync snapshot is the whole logged match: nothing lost, nothing invented.
            for p in players:
                snapshot = p.messages[0]
                assert snapshot["ply"] == len(logged)
                assert [m for _, m, _ in snapshot["moves"]] == [m for _, _, m in logged]
                assert snapshot["match_status"] == "live"
            await asyncio.gather(*(p.play_until_over() for p in players))
            return players

        after = asyncio.run(finish())
    finally:
        second.stop()
    assert all(p.over for p in after)
    final = _logged_moves(db, match_id)
    assert final[: len(logged)] == logged
    with db.connect() as conn:
        match = conn.execute(select(Match).where(Match.id == match_id)).one()
        outbox = conn.execute(
            select(SettlementRequest).where(SettlementRequest.match_id == match_id)
        ).all()
    assert match.status == "finished"
    assert len(outbox) == 1
    assert replay(match.record).scores == tuple(match.result["scores"])


def test_two_processes_share_one_match_over_postgres_and_redis(pg_url: str, db) -> None:  # type: ignore[no-untyped-def]
    prefix = f"dewtest-{uuid.uuid4().hex[:8]}"
    a = ServerProcess(pg_url, redis_url=REDIS_URL, channel_prefix=prefix, **FAST).start()
    b = ServerProcess(pg_url, redis_url=REDIS_URL, channel_prefix=prefix, **FAST).start()
    try:
        (_, host_token), (_, guest_token) = sign_in(a.url), sign_in(b.url)
        with api(a.url, host_token) as host:
            table = host.post("/tables", json={"preset": "dew200", "seats": 4}).json()
        with api(b.url, guest_token) as guest:
            assert guest.post(f"/tables/{table['id']}/join").status_code == 200

        async def play() -> list[Player]:
            on_a = await Player(a.ws_url, table["id"], host_token).connect()
            on_b = await Player(b.ws_url, table["id"], guest_token).connect()
            # The creator fills the two empty seats with bots through process A; process B
            # learns of the start through Redis and sends its player the new snapshot.
            with api(a.url, host_token) as host:
                assert host.post(f"/tables/{table['id']}/start").status_code == 200
            await asyncio.gather(on_a.play_until_over(), on_b.play_until_over())
            await on_a.close()
            await on_b.close()
            return [on_a, on_b]

        players = asyncio.run(play())
    finally:
        a.stop()
        b.stop()
    on_a, on_b = players
    assert on_a.seat == 0 and on_b.seat == 1
    assert on_a.over and on_b.over
    assert on_a.over["match_id"] == on_b.over["match_id"]
    assert on_a.acked and on_b.acked
    match_id = on_a.over["match_id"]
    logged = _logged_moves(db, match_id)
    assert [ply for ply, _, _ in logged] == list(range(len(logged)))
    # Each player saw every move of the match (in a snapshot or as it was made), whichever
    # process committed it.
    for p in players:
        seen: dict[int, str] = {}
        for m in p.messages:
            if m["type"] == "snapshot":
                seen.update({ply + 1: move for ply, (_, move, _) in enumerate(m["moves"])})
            elif m["type"] == "moved":
                seen[m["ply"]] = m["move"]
        assert [seen.get(ply + 1) for ply, _, _ in logged] == [m for _, _, m in logged]
    wait_for(
        lambda: (
            db.connect().execute(select(Match.status).where(Match.id == match_id)).scalar()
            == "finished"
        ),
        what="match finished",
    )
