"""What drives the hosted tables besides their sockets: the turn timers, the background loops
(matchmaking, adopting orphaned and started matches, heap upkeep) and the Redis bus's events
(table events, and table talk other processes relay).

The loops act through the hub (``Host``): they decide when, the hub moves and commits.

A table's turn work (a bot's move, a turn timeout) runs supervised: when it raises, the
failure is logged with the table, match and ply, counted (``dew_table_task_failures_total``)
and the table's timer is armed again, so no match waits forever. The same ply is tried
again with a growing pause (``TURN_RETRIES`` times); a bot's turn that still fails goes to
the turn timer's path (the seat's deadline, then the timeout move); when that fails too,
the match is abandoned and every stake returned (``MatchHub.abandon_stalled``), and the
abandonment itself is tried again until the database takes it.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from typing import Any, Protocol

from sqlalchemy.orm import Session, sessionmaker

from backend.config import Settings
from backend.ops.metrics import TABLE_TASK_FAILURES, TABLE_TASKS, bounded
from backend.tables import matchmaking
from backend.tables.live import store, talk
from backend.tables.live.state import LiveTable

log = logging.getLogger(__name__)

_gc_started = 0.0


def _gc_pause(phase: str, info: dict[str, Any]) -> None:
    global _gc_started
    if phase == "start":
        _gc_started = time.perf_counter()
        return
    pause = time.perf_counter() - _gc_started
    if pause > 0.02:
        log.warning(
            "garbage collection of generation %d stopped the server for %.0f ms",
            info.get("generation", -1),
            pause * 1000,
        )


_gc_watchers = 0


# A failed turn is tried again this many times at the same ply, after pauses of
# RETRY_FIRST_S doubled each time up to RETRY_MAX_S; a bot's turn then goes to the turn
# timer's path for as many tries, and after those the match is abandoned.
TURN_RETRIES = 3
RETRY_FIRST_S = 0.5
RETRY_MAX_S = 8.0


@dataclass
class Trouble:
    """The failures of one table's work at one ply of one match."""

    match_id: str | None
    ply: int
    failures: int = 0
    retry_at: float = 0.0  # event-loop time before which nothing is tried again


def _watch_gc() -> None:
    global _gc_watchers
    _gc_watchers += 1
    if _gc_pause not in gc.callbacks:
        gc.callbacks.append(_gc_pause)


def _unwatch_gc() -> None:
    """Undo ``_watch_gc`` when the last hub in this process stops (tests run several)."""
    global _gc_watchers
    _gc_watchers = max(0, _gc_watchers - 1)
    if _gc_watchers == 0 and _gc_pause in gc.callbacks:
        gc.callbacks.remove(_gc_pause)


class Host(Protocol):
    """What the loops need of the hub (``backend.tables.live.hub.MatchHub``)."""

    settings: Settings
    session_factory: sessionmaker[Session]
    read_sessions: sessionmaker[Session]
    tables: dict[str, LiveTable]

    async def get(self, table_id: str) -> LiveTable: ...

    async def table_changed(self, table_id: str, *, publish: bool = True) -> None: ...

    async def catch_up(self, lt: LiveTable) -> None: ...

    async def bot_turn(self, lt: LiveTable, ply: int) -> None: ...

    async def timeout_turn(self, lt: LiveTable, ply: int) -> None: ...

    async def abandon_stalled(self, lt: LiveTable, ply: int) -> None: ...


class Loops:
    """The timers and background tasks of one hub."""

    def __init__(self, host: Host) -> None:
        self.host = host
        self.settings = host.settings
        self._tasks: set[asyncio.Task[Any]] = set()
        self._matchmaker: asyncio.Task[None] | None = None
        self._janitor: asyncio.Task[None] | None = None
        self._adopter: asyncio.Task[None] | None = None
        self._heap: asyncio.Task[None] | None = None
        self.trouble: dict[str, Trouble] = {}  # by table id

    # -- lifecycle -----------------------------------------------------------------------
    def watch_gc(self) -> None:
        _watch_gc()

    def start(self) -> None:
        self._matchmaker = asyncio.create_task(self._matchmaking_loop(), name="dew-matchmaker")
        self._janitor = asyncio.create_task(self._janitor_loop(), name="dew-janitor")
        self._adopter = asyncio.create_task(self._adopt_started_loop(), name="dew-adopter")
        if self.settings.server.gc_freeze_every_s > 0:
            self._heap = asyncio.create_task(self._heap_loop(), name="dew-heap")

    def stop_loops(self) -> None:
        for loop_task in (self._matchmaker, self._janitor, self._adopter, self._heap):
            if loop_task:
                loop_task.cancel()

    def stop_turns(self) -> None:
        """Cancel the turns under way (bots and timeouts the timers started)."""
        for task in list(self._tasks):
            task.cancel()
        self.trouble.clear()

    def release_heap(self) -> None:
        """Undo what this hub did to the process's garbage collector."""
        if self._heap:
            gc.unfreeze()  # frozen objects would otherwise outlive this hub in the process
        _unwatch_gc()

    def spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # -- turn timers -----------------------------------------------------------------------
    def schedule(self, lt: LiveTable) -> None:
        """(Re)arm the table's timer: a bot's move after the bot delay, or a human seat's
        turn timeout at its deadline. Nothing to move: no timer. After failures at this
        ply: the next try (module docstring), not before its pause is over. A bot already
        waiting for this very turn keeps its wait: a socket's catch-up (a player or spectator
        connecting) does not put its move off by another bot delay."""
        seat = lt.to_move()
        if seat is None:
            self._disarm(lt)
            self.trouble.pop(lt.table_id, None)
            return
        trouble = self.trouble.get(lt.table_id)
        if trouble is not None and (trouble.match_id, trouble.ply) != (lt.match_id, lt.ply):
            del self.trouble[lt.table_id]  # the match moved on: its failures are behind it
            trouble = None
        loop = asyncio.get_running_loop()
        failures = trouble.failures if trouble else 0
        pause = max(trouble.retry_at - loop.time(), 0.0) if trouble else 0.0
        bot = lt.bot_level(seat) is not None
        if failures > (2 if bot else 1) * TURN_RETRIES:
            work, delay = "abandon", pause
        elif bot and failures <= TURN_RETRIES:
            work = "bot_turn"
            delay = max(self.settings.server.bot_move_delay_s if not failures else 0.0, pause)
        else:
            work = "timeout_turn"
            deadline = lt.deadline() or time.time()
            delay = max(deadline - time.time(), pause, 0.0)
        ply = lt.ply
        armed_for = (lt.match_id, ply, work, failures)
        waiting = lt.timer is not None and not lt.timer.cancelled()
        if work == "bot_turn" and waiting and lt.timer_for == armed_for:
            return
        self._disarm(lt)

        def fire() -> None:
            lt.timer, lt.timer_for = None, None  # fired: the next schedule arms a new one
            self.spawn(self._turn(lt, ply, work))

        lt.timer, lt.timer_for = loop.call_later(delay, fire), armed_for

    @staticmethod
    def _disarm(lt: LiveTable) -> None:
        if lt.timer:
            lt.timer.cancel()
        lt.timer, lt.timer_for = None, None

    async def _turn(self, lt: LiveTable, ply: int, work: str) -> None:
        """Run one turn's work; a failure is logged, counted and tried again (never lost)."""
        host = self.host
        try:
            if work == "bot_turn":
                await host.bot_turn(lt, ply)
            elif work == "timeout_turn":
                await host.timeout_turn(lt, ply)
            else:
                # The turn once more first: after an outage of the database (which fails
                # every try alike) the match goes on; only a turn that fails while the
                # abandonment can be written is given up on.
                try:
                    await host.timeout_turn(lt, ply)
                except asyncio.CancelledError:
                    raise
                except Exception:
                    self._count(lt, ply, "timeout_turn", None)
                    await host.abandon_stalled(lt, ply)
        except asyncio.CancelledError:
            raise
        except Exception:
            self.failed(lt, ply, work)

    def failed(self, lt: LiveTable, ply: int, work: str) -> None:
        """``work`` for ``lt`` at ``ply`` raised: log and count it, and arm the next try."""
        trouble = self.trouble.get(lt.table_id)
        if trouble is None or (trouble.match_id, trouble.ply) != (lt.match_id, ply):
            trouble = self.trouble[lt.table_id] = Trouble(lt.match_id, ply)
        trouble.failures += 1
        pause = min(RETRY_FIRST_S * 2 ** (trouble.failures - 1), RETRY_MAX_S)
        trouble.retry_at = asyncio.get_running_loop().time() + pause
        self._count(lt, ply, work, trouble)
        # Also when the table has moved on meanwhile (the work failed after its commit): a
        # table whose timer nobody re-armed would wait forever.
        self.schedule(lt)

    @staticmethod
    def _count(lt: LiveTable, ply: int, work: str, trouble: Trouble | None) -> None:
        """Log (with the traceback being handled) and count one failure of ``work``."""
        TABLE_TASK_FAILURES.labels(bounded(work, TABLE_TASKS)).inc()
        failures = trouble.failures if trouble else None
        # One event with keys (``backend.ops.logs`` adds the extras to the line).
        log.exception(
            "table work failed: %s of table %s, match %s, ply %d",
            work,
            lt.table_id,
            lt.match_id,
            ply,
            extra={
                "table_id": lt.table_id,
                "match_id": lt.match_id,
                "ply": ply,
                "work": work,
                "failures": failures,
            },
        )

    # -- other processes -------------------------------------------------------------------
    async def on_bus(self, table_id: str, kind: str) -> None:
        """An event of another process (``backend.tables.live.bus``) about a table we host."""
        lt = self.host.tables.get(table_id)
        if lt is None:
            return
        if kind == "move":
            async with lt.lock:
                await self.host.catch_up(lt)
        else:
            await self.host.table_changed(table_id, publish=False)

    async def on_talk(self, relayed: dict[str, Any]) -> None:
        """Table talk another process relayed: to our sockets of that table, if we host it."""
        talk.heard(self.host.tables, relayed, self.settings.talk)

    # -- background loops ------------------------------------------------------------------
    @staticmethod
    async def _repeat(every_s: float, what: str, one_pass: Callable[[], Awaitable[None]]) -> None:
        """``one_pass`` every ``every_s`` seconds until cancelled: a pass that fails is logged
        and the next one runs."""
        while True:
            try:
                await asyncio.sleep(every_s)
                await one_pass()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("%s pass failed", what)

    async def _janitor_loop(self) -> None:
        """Adopt live matches whose turn is long overdue: their host process died."""
        grace = self.settings.server.orphan_grace_s

        async def adopt_orphans() -> None:
            orphans = await asyncio.to_thread(
                store.overdue_tables, self.host.read_sessions, time.time(), grace
            )
            for table_id in orphans:
                if table_id not in self.host.tables:
                    log.info("adopting orphaned table %s", table_id)
                    await self.host.get(table_id)

        await self._repeat(max(grace / 2, 0.5), "janitor", adopt_orphans)

    async def _adopt_started_loop(self) -> None:
        """Host the matches other packages start in the database (tournament rounds) within
        about a second, instead of the orphan grace: nobody connects to start them. Every
        process may adopt one; the move log's primary key keeps a single line of play."""
        every = self.settings.server.adopt_started_every_s
        if every <= 0:
            return
        idle = 2 * self.settings.server.bot_move_delay_s + every

        async def adopt_started() -> None:
            started = await asyncio.to_thread(
                store.idle_tables_of_kind, self.host.read_sessions, "tournament", time.time(), idle
            )
            for table_id in started:
                if table_id not in self.host.tables:
                    await self.host.get(table_id)

        await self._repeat(every, "adoption", adopt_started)

    async def _heap_loop(self) -> None:
        """Keep the garbage collector's pauses short with thousands of sockets open.

        Freeze what is alive: the collector's passes then scan only newer objects (young
        cycles are still found by the frequent young-generation passes). Frozen objects
        are still freed by reference counting; only cycles among them wait for the
        periodic full collection (one longer pause per period)."""
        full_every = self.settings.server.gc_full_every_s
        last_full = time.monotonic()

        async def freeze() -> None:
            nonlocal last_full
            if full_every > 0 and time.monotonic() - last_full >= full_every:
                gc.unfreeze()
                gc.collect()
                last_full = time.monotonic()
            gc.freeze()

        await self._repeat(self.settings.server.gc_freeze_every_s, "heap", freeze)

    async def _matchmaking_loop(self) -> None:
        def run() -> list[str]:
            with self.host.session_factory() as session:
                return matchmaking.run_matchmaking(session=session, settings=self.settings)

        async def match() -> None:
            for table_id in await asyncio.to_thread(run):
                await self.host.table_changed(table_id)

        await self._repeat(1.0, "matchmaking", match)
