"""Denial of service by anonymous sockets: GET /tables latency and server memory, before and after.

Against a real server process (``tests.fixtures.harness.ServerProcess``, as ``dew serve`` runs
it) on a fresh PostgreSQL database and on a SQLite file, one client drives the two attacks
of issue 17 and the same run's figures before the attack are the baseline:

1. ``sockets``: 1,500 connect-and-close cycles of ``/competitions/{id}/ws`` for a tournament
   in registration (which has nothing more to send after its first events), as fast as one
   client goes, each closed after its first message;
2. ``unknown_ids``: 2,000 connects to ``/ws/tables/<id>`` with 8,000-character ids, 20 at once.

After each attack, ``GET /tables`` is timed (the median of several samples) and the server's
resident memory is read from ``/proc/<pid>/status`` (VmRSS).

Then a third attack, on a fresh server with the production rate limits and pacing (nothing
switched off): ``free_play``, a fresh wallet (no avatar, pass, stake or terms) farming the
season for ``FARM_S`` seconds (60; 15 with ``--quick``) with free practice matches against
easy bots and same-device matches, one after the other, as fast as the limits let it. The
economy plans its matches as the worker does; a rival plays one contested earning match;
the season ends and its rewards are planned (docs/economy.md, "What a match counts for").

Figures, per database (``sqlite_*``, ``postgresql_*``) and the worst of the two:
  tables_latency_ratio_after_sockets      median GET /tables after attack 1 / before
  tables_latency_ratio_after_unknown_ids  ... after attack 2 / before
  rss_growth_mb_after_unknown_ids         VmRSS after attack 2 - before the attacks (MB)
  rss_growth_mb_after_sockets             VmRSS after attack 1 - before (MB)
  free_play_leaderboard_wins              the farmer's wins on the season's leaderboard (0)
  free_play_reward_dew                    DEW the season's end pays the farmer (0)
  acceptance_met                          both ratios <= 2, the growth <= 20 MB and both
                                          free-play figures 0, both databases

    uv run python scripts/bench_abuse.py [--json] [--quick]
"""

from __future__ import annotations

import asyncio
import json
import secrets
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
from eth_account import Account
from sqlalchemy import select
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from backend.competitions import service as competitions
from backend.config import Settings
from backend.db import create_db_engine, make_session_factory, migrate
from backend.db.base import utcnow
from backend.economy import jobs as economy_jobs
from backend.economy import season_rewards
from backend.economy.models import LedgerLeg, SeatRecord
from backend.economy.operator import create_season
from backend.economy.policy import DEW, FinishedMatch, SeatResult, default_policies
from backend.economy.reports import season_leaderboard
from backend.economy.settlement import plan_settlement
from backend.protocol.client import DewClient, DewClientError
from backend.tables.models import Table, TableSeat
from scripts.figures import bench_main
from tests.fixtures.database import create_pg_database, drop_pg_database
from tests.fixtures.harness import ServerProcess

LATENCY_SAMPLES = 31
# Open tables in the lobby, so that GET /tables does real work (its page holds 100).
LOBBY_TABLES = 100
SAMPLE_TIMEOUT_S = 60.0
ID_LENGTH = 8000
CONCURRENT_UNKNOWN_IDS = 20
MAX_LATENCY_RATIO = 2.0
# Each attack stops after this long even if unfinished (a starved server answers each cycle
# in seconds); the figures say how much of it was done.
ATTACK_BUDGET_S = 60.0
MAX_RSS_GROWTH_MB = 20.0
# The free-play farming attack: how long the farmer plays, what it plays, the season's table.
FARM_S = 60.0
FARM_S_QUICK = 15.0
FARM_TABLES = (
    {"preset": "draw", "seats": 2, "kind": "practice", "bot_level": "easy"},
    {"preset": "draw", "seats": 2, "kind": "same_device"},
)
FARM_REWARDS = [30 * 10**18, 20 * 10**18, 10 * 10**18]
FARM_TREASURY = "0xa0Ee7A142d267C1f36714E4a8F75612F20a79720"


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


def tables_ms(base_url: str) -> float:
    """Median milliseconds of ``GET /tables`` over a few sequential samples. A request not
    answered within ``SAMPLE_TIMEOUT_S`` counts as that long; after two of them the server
    is taken as starved and the remaining samples count as unanswered too (the run ends in
    minutes, not hours, against a starved server)."""
    samples: list[float] = []
    unanswered = 0
    with httpx.Client(base_url=base_url, timeout=SAMPLE_TIMEOUT_S) as client:
        for n in range(LATENCY_SAMPLES + 1):  # the first one warms the connection up
            started = time.perf_counter()
            try:
                client.get("/tables").raise_for_status()
                elapsed = (time.perf_counter() - started) * 1000
            except httpx.HTTPError:
                unanswered += 1
                elapsed = SAMPLE_TIMEOUT_S * 1000
            if n:
                samples.append(elapsed)
            if unanswered >= 2:
                samples += [SAMPLE_TIMEOUT_S * 1000] * (LATENCY_SAMPLES - len(samples))
                break
    return statistics.median(samples)


def seed(db_url: str) -> int:
    """A full lobby of open tables and a tournament in registration; the tournament's id."""
    engine = create_db_engine(db_url)
    try:
        with make_session_factory(engine)() as session:
            for n in range(LOBBY_TABLES):
                table_id = uuid.uuid4().hex
                creator = "0x" + f"{n + 1:040x}"
                session.add(
                    Table(
                        id=table_id,
                        preset="draw",
                        options={},
                        seat_count=2,
                        kind="human",
                        visibility="public",
                        invite_code=secrets.token_urlsafe(12),
                        creator=creator,
                        turn_timeout_s=30.0,
                        status="open",
                        created_at=utcnow(),
                    )
                )
                session.flush()
                session.add(TableSeat(table_id=table_id, seat=0, address=creator))
            session.commit()
            return competitions.create_tournament(
                session=session,
                spec=competitions.TournamentSpec(
                    name="bench-abuse", preset="draw", starts_at=utcnow() + timedelta(days=1)
                ),
            ).id
    finally:
        engine.dispose()


async def socket_cycles(url: str, cycles: int) -> dict[str, int]:
    """Connect, read the first message (the socket is live), close; ``cycles`` times. How
    the connects were answered: events, or a refusal by the per-address cap."""
    answered = {"watched": 0, "refused": 0, "failed": 0}
    deadline = time.monotonic() + ATTACK_BUDGET_S
    for _ in range(cycles):
        if time.monotonic() > deadline:
            break
        try:
            async with connect(url, open_timeout=30) as ws:
                first = json.loads(await asyncio.wait_for(ws.recv(), 30))
                answered["refused" if first["type"] == "error" else "watched"] += 1
        except (InvalidStatus, ConnectionClosed, OSError, TimeoutError):
            answered["failed"] += 1
    return answered


async def unknown_ids(ws_url: str, total: int) -> int:
    """Connects to unknown 8,000-character ids, 20 at once; how many were made."""
    deadline = time.monotonic() + ATTACK_BUDGET_S
    made = [0]

    async def some(worker: int, count: int) -> None:
        for i in range(count):
            if time.monotonic() > deadline:
                return
            made[0] += 1
            table_id = f"{worker:03d}{i:05d}".rjust(ID_LENGTH, "x")
            try:
                async with connect(f"{ws_url}/ws/tables/{table_id}", open_timeout=30) as ws:
                    try:
                        while True:
                            await ws.recv()
                    except ConnectionClosed:
                        pass
            except (InvalidStatus, OSError, TimeoutError):
                pass

    per_worker = total // CONCURRENT_UNKNOWN_IDS
    await asyncio.gather(*(some(w, per_worker) for w in range(CONCURRENT_UNKNOWN_IDS)))
    return made[0]


def attack(db_url: str, cycles: int, ids: int) -> dict[str, Any]:
    """Both attacks against one server on ``db_url`` (migrated); its figures."""
    tid = seed(db_url)
    # The HTTP rate limits (tests/hostile/test_http.py) would refuse a one-address attack
    # before it reached the socket handlers: switched off, this measures the handlers.
    server = ServerProcess(db_url, extra_env={"DEW_HTTP_RATE_LIMITS": "false"}).start()
    try:
        assert server.proc is not None
        pid = server.proc.pid
        tables_ms(server.url)  # warm-up: imports, pools, first queries
        before_ms = tables_ms(server.url)
        before_rss = rss_mb(pid)

        started = time.perf_counter()
        answered = asyncio.run(socket_cycles(f"{server.ws_url}/competitions/{tid}/ws", cycles))
        sockets_s = time.perf_counter() - started
        after_sockets_ms = tables_ms(server.url)
        after_sockets_rss = rss_mb(pid)

        started = time.perf_counter()
        ids_made = asyncio.run(unknown_ids(server.ws_url, ids))
        ids_s = time.perf_counter() - started
        after_ids_ms = tables_ms(server.url)
        after_ids_rss = rss_mb(pid)

        server.proc.terminate()
        try:
            server.proc.wait(30)
            stopped = True
        except Exception:
            stopped = False
    finally:
        server.stop()
    return {
        "tables_ms_before": round(before_ms, 1),
        "tables_ms_after_sockets": round(after_sockets_ms, 1),
        "tables_ms_after_unknown_ids": round(after_ids_ms, 1),
        "tables_latency_ratio_after_sockets": round(after_sockets_ms / before_ms, 2),
        "tables_latency_ratio_after_unknown_ids": round(after_ids_ms / before_ms, 2),
        "rss_mb_before": round(before_rss, 1),
        "rss_growth_mb_after_sockets": round(after_sockets_rss - before_rss, 1),
        "rss_growth_mb_after_unknown_ids": round(after_ids_rss - before_rss, 1),
        "socket_cycles_s": round(sockets_s, 1),
        "socket_cycles_done": sum(answered.values()),
        "socket_cycles_refused_by_cap": answered["refused"],
        "unknown_id_connects_done": ids_made,
        "socket_cycles_failed": answered["failed"],
        "unknown_ids_s": round(ids_s, 1),
        "stopped_on_sigterm_within_30s": stopped,
    }


def play_free(client: DewClient, spec: dict[str, Any], deadline: float) -> tuple[str | None, int]:
    """Create one free table (waiting out the create limit's 429s until ``deadline``) and
    play it to the end: its match id (None: the deadline came first) and the 429s met."""
    refused = 0
    while True:
        try:
            table = client.create_table(**spec)
            break
        except DewClientError as error:
            if error.status != 429:
                raise
            refused += 1
            if time.monotonic() > deadline:
                return None, refused
            time.sleep(1.0)
    over = client.play(table["id"], timeout_s=120)
    return str(over["match_id"]), refused


def farm(db_url: str, seconds: float) -> dict[str, Any]:
    """The free-play farming attack against a server with the production limits."""
    engine = create_db_engine(db_url)
    sessions = make_session_factory(engine)
    try:
        with sessions.begin() as session:
            season_id = create_season(
                session=session,
                name=f"bench-farmed-{secrets.token_hex(4)}",
                starts_at=utcnow() - timedelta(hours=1),
                ends_at=utcnow() + timedelta(hours=1),
                emission_budget=1_000 * DEW,
                rewards=FARM_REWARDS,
            ).id
        farmer = Account.create()
        played: list[str] = []
        refused = 0
        server = ServerProcess(db_url).start()
        try:
            with DewClient(server.url, timeout_s=30) as client:
                client.sign_in(farmer.key)
                started = time.monotonic()
                deadline = started + seconds
                while time.monotonic() < deadline:
                    spec = FARM_TABLES[len(played) % len(FARM_TABLES)]
                    match_id, met = play_free(client, spec, deadline)
                    refused += met
                    if match_id is not None:
                        played.append(match_id)
                farmed_s = time.monotonic() - started
        finally:
            server.stop()
        # What the worker does with finished matches, then a rival's contested earning match.
        economy_jobs.plan_finished_matches(
            session_factory=sessions, settings=Settings(), limit=len(played) + 10
        )
        rival, second = Account.create().address, Account.create().address
        with sessions.begin() as session:
            plan_settlement(
                session=session,
                match=FinishedMatch(
                    match_id=uuid.uuid4().hex,
                    chain_match_id="0x" + secrets.token_hex(32),
                    result_hash="0x" + "ef" * 32,
                    earning=True,
                    stake=0,
                    seats=(
                        SeatResult(0, rival, placement=1, won=True, points=60),
                        SeatResult(1, second, placement=2, points=20),
                    ),
                ),
                finished_at=utcnow(),
                policies=default_policies(),
                treasury=FARM_TREASURY,
            )
        with sessions() as session:
            history_wins = sum(
                r.won
                for r in session.scalars(
                    select(SeatRecord).where(SeatRecord.address == farmer.address)
                )
            )
            board = season_leaderboard(session=session, season_id=season_id, limit=500)
        board_wins = sum(int(str(r["wins"])) for r in board if r["address"] == farmer.address)
        # The season ends: its rewards are planned as the worker's beat task does.
        with sessions.begin() as session:
            planned = season_rewards.plan_season_rewards(
                session=session,
                season_id=season_id,
                treasury=FARM_TREASURY,
                now=utcnow() + timedelta(hours=2),
            )
            paid: dict[str, int] = {}
            if planned is not None:
                for leg in session.scalars(
                    select(LedgerLeg).where(LedgerLeg.match_id == planned.match_id)
                ):
                    paid[leg.address] = paid.get(leg.address, 0) + int(leg.amount)
    finally:
        engine.dispose()
    return {
        "free_play_s": round(farmed_s, 1),
        "free_play_matches": len(played),
        "free_play_matches_per_minute": round(len(played) * 60 / farmed_s, 1),
        "free_play_create_refused_429": refused,
        "free_play_wins_in_history": int(history_wins),
        "free_play_leaderboard_wins": board_wins,
        "free_play_reward_dew": paid.get(farmer.address, 0) / DEW,
        "free_play_rival_reward_dew": paid.get(rival, 0) / DEW,
    }


def run(quick: bool) -> dict[str, Any]:
    cycles, ids = (150, 200) if quick else (1500, 2000)
    farm_s = FARM_S_QUICK if quick else FARM_S
    figures: dict[str, Any] = {
        "socket_cycles": cycles,
        "unknown_id_connects": ids,
        "free_play_budget_s": farm_s,
    }
    per_db: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        sqlite_url = f"sqlite:///{tmp}/bench-abuse.sqlite3"
        migrate(sqlite_url)
        per_db["sqlite"] = attack(sqlite_url, cycles, ids) | farm(sqlite_url, farm_s)
    pg_url = create_pg_database()
    try:
        migrate(pg_url)
        per_db["postgresql"] = attack(pg_url, cycles, ids) | farm(pg_url, farm_s)
    finally:
        drop_pg_database(pg_url)
    for db, found in per_db.items():
        figures.update({f"{db}_{k}": v for k, v in found.items()})
    for key in (
        "tables_latency_ratio_after_sockets",
        "tables_latency_ratio_after_unknown_ids",
        "rss_growth_mb_after_sockets",
        "rss_growth_mb_after_unknown_ids",
        "free_play_leaderboard_wins",
        "free_play_reward_dew",
    ):
        figures[key] = max(found[key] for found in per_db.values())
    figures["acceptance_met"] = (
        figures["tables_latency_ratio_after_sockets"] <= MAX_LATENCY_RATIO
        and figures["tables_latency_ratio_after_unknown_ids"] <= MAX_LATENCY_RATIO
        and figures["rss_growth_mb_after_unknown_ids"] <= MAX_RSS_GROWTH_MB
        and figures["free_play_leaderboard_wins"] == 0
        and figures["free_play_reward_dew"] == 0
    )
    return figures


def main(argv: Sequence[str] | None = None, out: Callable[[str], None] = print) -> int:
    return bench_main(
        __doc__.splitlines()[0],
        "smoke run: 150 socket cycles, 200 unknown ids, 15 s of free play",
        run,
        argv,
        out,
    )


if __name__ == "__main__":
    raise SystemExit(main())
