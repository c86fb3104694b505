"""A match never stalls: the hostile review of main 7b68057 (``make demo`` froze a table).

1. The bot registry's first load raced: ``_load_builtin`` set its flag before importing the
   bot modules, and bot moves are computed in worker threads, so a second thread could find
   the registry empty (``UnknownBotError("no bot 'easy'; bots: []")``).
2. The failed bot turn was a fire-and-forget task: nothing logged it against the match,
   tried it again or handed the turn on, and the table waited forever. Every turn a table's
   timer starts is now supervised (``backend.tables.live.loops``). The failures are injected by
   ``tests.tables.faulty_app`` into a real server process, on SQLite and PostgreSQL.
"""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from sqlalchemy import Engine, select

from backend.db import create_db_engine
from backend.tables.live import store
from backend.tables.models import Match, MatchMove, Table
from tests.tables.harness import REPO, Player, ServerProcess, api, sign_in, wait_for

pytestmark = pytest.mark.timeout(240)

# A fresh interpreter: the registry is empty, and many threads make their first bot at once.
FIRST_BOTS = textwrap.dedent(
    """
    import sys, threading
    sys.setswitchinterval(1e-6)  # switch threads as often as possible: the race shows
    from backend.game.bots import make_bot

    barrier = threading.Barrier(16)
    failures = []

    def first_bot(n):
        barrier.wait()
        try:
            make_bot(("easy", "medium", "hard", "expert")[n % 4], n)
        except Exception as error:
            failures.append(repr(error))

    threads = [threading.Thread(target=first_bot, args=(n,)) for n in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print("\\n".join(failures))
    sys.exit(1 if failures else 0)
    """
)


def test_bots_made_from_many_threads_at_once_in_a_fresh_process_all_exist():
    for run in range(8):
        child = subprocess.run(
            [sys.executable, "-c", FIRST_BOTS],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert child.returncode == 0, f"run {run}: {child.stdout}{child.stderr}"


class FaultyServer(ServerProcess):
    """A real server process running ``tests.tables.faulty_app`` (failures injected)."""

    def command(self) -> list[str]:
        factory = ["-m", "uvicorn", "tests.tables.faulty_app:create_app", "--factory"]
        where = ["--host", "127.0.0.1", "--port", str(self.port), "--log-level", "warning"]
        return [sys.executable, *factory, *where]


@pytest.fixture
def faulty(db_url: str) -> Iterator[Any]:
    started: list[FaultyServer] = []

    def start(**faults: str) -> FaultyServer:
        server = FaultyServer(
            db_url,
            extra_env={"DEW_TEST_RETRY_S": "0.05", **faults},
            # The player's own turns are played at once; the bot's seat reaches its deadline
            # in the ladder of the always-failing bot.
            turn_timeout_s=5,
            bot_move_delay_s=0.0,
            ws_rate_per_s=1000,
            ws_rate_burst=1000,
        ).start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


@pytest.fixture
def engine(db_url: str) -> Iterator[Engine]:
    engine = create_db_engine(db_url)
    yield engine
    engine.dispose()


def _practice_table(server: ServerProcess) -> tuple[str, str]:
    """A free table against one bot, its match started: (table id, the player's token)."""
    _, token = sign_in(server.url)
    with api(server.url, token) as client:
        answer = client.post(
            "/tables",
            json={"preset": "draw", "seats": 2, "kind": "practice", "bot_level": "easy"},
        )
    assert answer.status_code in (200, 201), answer.text
    return answer.json()["id"], token


def _metric(server: ServerProcess, name: str) -> float:
    """The sum of a counter's series on the server's ``/metrics`` (loopback may read it)."""
    text = httpx.get(f"{server.url}/metrics", timeout=10).text
    pattern = re.compile(rf"^{re.escape(name)}(\{{[^}}]*\}})? ([0-9.e+]+)$", re.M)
    return sum(float(m.group(2)) for m in pattern.finditer(text))


def _match(engine: Engine, table_id: str) -> Any:
    with engine.connect() as conn:
        table = conn.execute(select(Table).where(Table.id == table_id)).one()
        return conn.execute(select(Match).where(Match.id == table.match_id)).one()


def test_a_failing_bot_turn_and_a_failing_commit_do_not_stop_the_match(faulty, engine) -> None:  # type: ignore[no-untyped-def]
    # The bot's first two moves raise (the registry race), then its first two commits fail.
    server = faulty(DEW_TEST_FAIL_BOT_MOVES="2", DEW_TEST_FAIL_BOT_COMMITS="2")
    table_id, token = _practice_table(server)

    async def play() -> Player:
        player = await Player(server.ws_url, table_id, token).connect()
        await asyncio.wait_for(player.play_until_over(), timeout=90)
        return player

    player = asyncio.run(play())
    assert player.over is not None
    match = _match(engine, table_id)
    assert match.status == "finished"
    with engine.connect() as conn:
        actors = {
            r.actor for r in conn.execute(select(MatchMove).where(MatchMove.match_id == match.id))
        }
    assert "bot" in actors  # the bot played on after its failures
    # Each failure was counted and logged against its table and match.
    assert _metric(server, "dew_table_task_failures_total") >= 4
    log = server.log_path.read_text()
    assert log.count("table work failed") >= 4
    assert table_id in log and match.id in log


def test_a_bot_turn_that_always_fails_ends_the_match_abandoned(faulty, engine) -> None:  # type: ignore[no-untyped-def]
    # No bot move can ever be made: retried, handed to the turn timer (which needs a bot
    # move too), then the match is abandoned and its seats hear it.
    server = faulty(DEW_TEST_FAIL_BOT_MOVES="always")
    table_id, token = _practice_table(server)

    async def until_abandoned() -> Player:
        player = await Player(server.ws_url, table_id, token).connect()
        sent = None
        while True:
            if player.my_turn() and sent != player.ply:
                sent = player.ply
                await player.send(player.move())
            message = await player.recv(timeout=60)
            if message["type"] == "snapshot" and message["match_status"] == "abandoned":
                return player

    asyncio.run(asyncio.wait_for(until_abandoned(), timeout=90))
    match = _match(engine, table_id)
    assert match.status == "abandoned" and match.result == {"abandoned": "stalled"}
    wait_for(lambda: _metric(server, "dew_matches_abandoned_total") == 1, what="the count")
    # The ladder: the bot's turn tried 1 + 3 times, then the turn timer's path 3 times and
    # once more before abandoning.
    log = server.log_path.read_text()
    failed = re.findall(r"table work failed: \w+ of table \w+, match \w+, ply \d+", log)
    assert log.count("table work failed: bot_turn") == 4, failed
    assert log.count("table work failed: timeout_turn") == 4
    assert _metric(server, "dew_table_task_failures_total") == 8


def test_the_move_writer_outlives_a_batch_whose_settling_fails(engine) -> None:  # type: ignore[no-untyped-def]
    # The one writer thread commits every live match's moves: if settling one batch raised
    # and ended the thread, every later move (of every table) would wait forever.
    writer = store.MoveWriter(engine, window_s=0.0)
    writer.start()
    settled: list[Any] = []
    calls = 0

    def settle(results: list[tuple[Any, Any]]) -> None:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise RuntimeError("settling failed")
        settled.extend(results)

    try:
        # Unknown matches: the insert refuses or ignores them; either way each is settled.
        writer.submit(store.move_row("no-such-match", 0, 0, "6:6L", "bot"), "first", settle)
        wait_for(lambda: calls >= 1, what="the first batch")
        writer.submit(store.move_row("no-such-match", 1, 1, "6:5R", "bot"), "second", settle)
        wait_for(lambda: any(token == "second" for token, _ in settled), what="the second")
    finally:
        writer.stop()
