"""Live play in one server process: the tables it hosts, their sockets, timers and bots.

The database is the only source of truth. A ``LiveTable`` is a cache of one table's
match, rebuilt by replaying the move log; every accepted move is committed before it is
acknowledged or broadcast, and any process may host any table at any time (a restarted
process, or a second process with a player of the same match, catches up from the log).
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import gc
import json
import logging
import time
import uuid
from collections import deque
from dataclasses import dataclass, field
from typing import Any

import orjson
from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from backend.chain import match_ids
from backend.config import Settings
from backend.db.base import aware
from backend.db.session import make_session_factory
from backend.game import Match as EngineMatch
from backend.ops.metrics import MOVE_ACTORS, MOVES, bounded
from backend.tables import exceptions as exc
from backend.tables import play, store
from backend.tables.bus import RedisBus
from backend.tables.gating import Gate

log = logging.getLogger(__name__)

PROTOCOL_VERSION = 1
# The close code of a socket that may no longer watch its table (docs/protocol.md).
CLOSE_FORBIDDEN = 4403


def _dumps(message: dict[str, Any]) -> str:
    """A protocol message as compact JSON text (orjson: this runs five times per move)."""
    message = {"v": PROTOCOL_VERSION, **message}
    try:
        return orjson.dumps(message).decode()
    except orjson.JSONEncodeError:  # e.g. an int beyond 64 bits in a record: rare, not hot
        return json.dumps(message, separators=(",", ":"))


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


class Conn:
    """One WebSocket as the hub sees it: a bounded outbox that the socket's writer drains.

    Not an ``asyncio.Queue``: pushing is the hot path (five messages per move), so it is a
    deque plus one future that wakes the writer, which then sends everything queued.
    """

    __slots__ = (
        "_pending",
        "_waiter",
        "address",
        "close_code",
        "closed",
        "delayed",
        "max_queue",
        "overflowed",
        "seat",
        "table_id",
    )

    def __init__(self, address: str | None, max_queue: int = 512) -> None:
        self.address = address
        self.seat: int | None = None
        self.table_id: str | None = None
        self.max_queue = max_queue
        self.overflowed = False
        self.closed = False
        self.close_code = 1000
        # Messages held back by the spectator delay: cancelled when the socket goes, so a
        # gone spectator leaves nothing behind.
        self.delayed: list[asyncio.TimerHandle] = []
        self._pending: deque[str | None] = deque()
        self._waiter: asyncio.Future[None] | None = None

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def push(self, text: str) -> None:
        if self.overflowed or self.closed:
            return
        if len(self._pending) >= self.max_queue:
            # A client that does not read is cut off; it can reconnect and resync.
            self.overflowed = True
            log.warning("closing slow connection of %s", self.address)
            self._pending.clear()
            self._pending.append(None)
        else:
            self._pending.append(text)
        self._wake()

    def push_later(self, delay: float, text: str) -> None:
        """``push`` after ``delay`` seconds (the spectator delay)."""
        if self.closed:
            return
        now = asyncio.get_running_loop().time()
        if len(self.delayed) >= 64:
            self.delayed = [h for h in self.delayed if h.when() > now and not h.cancelled()]
        self.delayed.append(asyncio.get_running_loop().call_later(delay, self.push, text))

    def close(self, code: int = 1000) -> None:
        """Ask the writer to close the socket after what is already queued."""
        if self.closed:
            return
        self.closed = True
        self.close_code = code
        for handle in self.delayed:
            handle.cancel()
        self.delayed.clear()
        if len(self._pending) >= self.max_queue:
            self.overflowed = True
            self._pending.clear()
        self._pending.append(None)
        self._wake()

    async def drain(self) -> list[str | None]:
        """Everything queued (waiting for at least one message); ``None`` means close."""
        while not self._pending:
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        batch = list(self._pending)
        self._pending.clear()
        return batch


@dataclass
class LiveTable:
    table_id: str
    table: dict[str, Any]
    seats: list[dict[str, Any]]
    match_id: str | None = None
    match: EngineMatch | None = None
    match_status: str = "none"  # none|live|finished|abandoned
    seed_commitment: str | None = None
    ply: int = 0
    moves: list[tuple[int, str, str]] = field(default_factory=list)  # (seat, move|"forfeit", actor)
    move_times: list[float] = field(default_factory=list)  # commit time of each move (Unix s)
    private: bool = False
    invited: frozenset[str] = frozenset()
    # Spectators' ``moved`` texts by ply, while a spectator delay may still hold them back:
    # every spectator shares one copy (the window of a long delay holds many moves).
    spectator_moved: dict[int, str] = field(default_factory=dict)
    forfeited_seat: int | None = None
    timeouts: dict[int, int] = field(default_factory=dict)
    turn_started: float = 0.0
    final: dict[str, Any] | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    seat_conns: dict[int, set[Conn]] = field(default_factory=dict)
    spectators: set[Conn] = field(default_factory=set)
    timer: asyncio.TimerHandle | None = None

    def seat_of(self, address: str | None) -> int | None:
        if address is None:
            return None
        for s in self.seats:
            if s.get("address") == address:
                return int(s["seat"])
        return None

    def bot_level(self, seat: int) -> str | None:
        for s in self.seats:
            if s["seat"] == seat:
                return s.get("bot_level")
        return None

    @property
    def live(self) -> bool:
        return self.match is not None and self.match_status == "live"

    def deadline(self) -> float | None:
        if not self.live:
            return None
        return self.turn_started + float(self.table["turn_timeout_s"])

    def to_move(self) -> int | None:
        return play.to_move(self.match) if self.live and self.match is not None else None


class MatchHub:
    """Hosts live tables for one process; see the module docstring for the guarantees."""

    def __init__(
        self,
        settings: Settings,
        engine: Engine,
        session_factory: sessionmaker[Session],
        gate: Gate | None = None,
    ) -> None:
        self.settings = settings
        self.gate = gate
        self.engine = engine
        self.session_factory = session_factory
        # Loading tables and the periodic scans only read: on SQLite they take no write lock.
        self.read_sessions = make_session_factory(engine, read_only=True)
        self.origin = uuid.uuid4().hex
        self.chain_prefix = match_ids.deployment_prefix(
            settings.chain.deployment_name, settings.chain.chain_id
        )
        self.tables: dict[str, LiveTable] = {}
        self._loading: dict[str, asyncio.Lock] = {}
        self.writer = store.MoveWriter(engine, settings.server.commit_batch_window_s)
        self.bus: RedisBus | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._matchmaker: asyncio.Task[None] | None = None
        self._janitor: asyncio.Task[None] | None = None
        self._adopter: asyncio.Task[None] | None = None
        self._heap: asyncio.Task[None] | None = None

    # -- lifecycle -----------------------------------------------------------------------
    async def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        _watch_gc()
        # A fresh writer per start: an app may be started again after a stop (tests).
        self.writer = store.MoveWriter(self.engine, self.settings.server.commit_batch_window_s)
        self.writer.start()
        if self.settings.server.redis_url:
            self.bus = RedisBus(
                self.settings.server.redis_url,
                self.settings.server.redis_channel_prefix,
                self.origin,
            )
            await self.bus.start(self._on_bus)
        self._matchmaker = asyncio.create_task(self._matchmaking_loop(), name="dew-matchmaker")
        self._janitor = asyncio.create_task(self._janitor_loop(), name="dew-janitor")
        self._adopter = asyncio.create_task(self._adopt_started_loop(), name="dew-adopter")
        if self.settings.server.gc_freeze_every_s > 0:
            self._heap = asyncio.create_task(self._heap_loop(), name="dew-heap")

    async def stop(self) -> None:
        for loop_task in (self._matchmaker, self._janitor, self._adopter, self._heap):
            if loop_task:
                loop_task.cancel()
        for lt in self.tables.values():
            if lt.timer:
                lt.timer.cancel()
            for conn in self._conns(lt):
                conn.close()
        for task in list(self._tasks):
            task.cancel()
        if self.bus:
            await self.bus.stop()
        await asyncio.to_thread(self.writer.stop)
        if self._heap:
            gc.unfreeze()  # frozen objects would otherwise outlive this hub in the process
        _unwatch_gc()

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # -- loading and catching up -----------------------------------------------------------
    async def get(self, table_id: str) -> LiveTable:
        return (await self._get(table_id))[0]

    async def _get(self, table_id: str) -> tuple[LiveTable, bool]:
        """The hosted table, loading it if needed; True if it was loaded just now."""
        lt = self.tables.get(table_id)
        if lt is not None:
            return lt, False
        fresh = False
        lock = self._loading.setdefault(table_id, asyncio.Lock())
        try:
            async with lock:
                lt = self.tables.get(table_id)
                if lt is None:
                    lt = await self._load(table_id)
                    self.tables[table_id] = lt
                    self._schedule(lt)
                    fresh = True
        finally:
            # Also when the load fails (an unknown id): nothing of a refused connect stays.
            # Only our own lock: a later caller may already have put a new one.
            if self._loading.get(table_id) is lock:
                del self._loading[table_id]
        return lt, fresh

    async def _load(self, table_id: str) -> LiveTable:
        loaded = await asyncio.to_thread(store.load_table, self.read_sessions, table_id)
        if loaded is None:
            raise exc.TableNotFound(f"no table {table_id!r}")
        lt = LiveTable(table_id=table_id, table={}, seats=[])
        self._refresh_table(lt, loaded)
        return lt

    def _refresh_table(self, lt: LiveTable, loaded: store.LoadedTable) -> None:
        t = loaded.table
        lt.table = {
            "id": t.id,
            "preset": t.preset,
            "options": t.options,
            "seat_count": t.seat_count,
            "earning": t.earning,
            "stake": t.stake,
            "kind": t.kind,
            "status": t.status,
            "bot_level": t.bot_level,
            "turn_timeout_s": t.turn_timeout_s,
            "spectators_allowed": t.spectators_allowed,
            "spectator_delay_s": t.spectator_delay_s,
        }
        lt.private = t.visibility == "private"
        lt.invited = frozenset(loaded.invited)
        if loaded.match is None:
            lt.seats = [
                {
                    "seat": s.seat,
                    "address": s.address,
                    "bot_level": s.bot_level,
                    "avatar_id": s.avatar_id,
                    "admitted_as": s.admitted_as,
                }
                for s in loaded.seats
            ]
            return
        if lt.match_id == loaded.match.id:
            return
        m = loaded.match
        lt.match_id = m.id
        lt.seats = list(m.seats)
        lt.seed_commitment = m.seed_commitment
        lt.match = play.start(m.preset, m.options, self._names(lt.seats), m.seed)
        lt.ply = 0
        lt.moves = []
        lt.move_times = []
        lt.spectator_moved = {}
        lt.timeouts = {}
        lt.forfeited_seat = None
        lt.turn_started = aware(m.created_at).timestamp()
        for row in loaded.moves:
            self._replay(lt, row)
        lt.match_status = m.status
        if m.status == "finished":
            lt.final = self._final_message(lt, m.result or {}, m.seed, m.result_hash)

    @staticmethod
    def _names(seats: list[dict[str, Any]]) -> list[str]:
        return [s.get("address") or f"bot:{s.get('bot_level')}" for s in seats]

    def _replay(self, lt: LiveTable, row: Any) -> str:
        """Apply one logged move to the cached match; returns its public text."""
        assert lt.match is not None
        if row.kind == "forfeit":
            lt.forfeited_seat = row.seat
            text = "forfeit"
        else:
            text = row.move["move"]
            play.apply(lt.match, text)
        lt.moves.append((row.seat, text, row.actor))
        lt.turn_started = aware(row.created_at).timestamp()
        lt.move_times.append(lt.turn_started)
        self._count_timeout(lt, row.seat, row.actor)
        lt.ply = row.ply + 1
        return text

    def _rewind(self, lt: LiveTable) -> None:
        """Rebuild the cached match from the moves known to be committed (an uncommitted
        move was applied to it), without touching the database."""
        assert lt.match is not None
        match = play.start(
            lt.match.rules.preset,
            lt.match.rules.options,
            self._names(lt.seats),
            lt.match.server_seed,
        )
        for _, text, _ in lt.moves:
            if text != "forfeit":
                play.apply(match, text)
        lt.match = match
        lt.match_status = "live" if lt.final is None else lt.match_status

    @staticmethod
    def _count_timeout(lt: LiveTable, seat: int, actor: str) -> None:
        if actor == "timeout":
            lt.timeouts[seat] = lt.timeouts.get(seat, 0) + 1
        elif actor == "player":
            lt.timeouts[seat] = 0

    async def _catch_up(self, lt: LiveTable) -> None:
        """Bring the cache up to the database (lock held); broadcast what was new."""
        if lt.match_id is None:
            return
        status, rows = await asyncio.to_thread(
            store.load_moves_since, self.read_sessions, lt.match_id, lt.ply
        )
        for row in rows:
            if row.ply != lt.ply:
                continue
            text = self._replay(lt, row)
            self._broadcast_move(lt, row.seat, text, row.actor)
        if status != "live" and lt.match_status == "live":
            await self._reload(lt)  # finished elsewhere, or abandoned by an operator
        self._schedule(lt)

    async def _reload(self, lt: LiveTable) -> None:
        """Rebuild the cache completely from the database (lock held)."""
        loaded = await asyncio.to_thread(store.load_table, self.read_sessions, lt.table_id)
        if loaded is None:
            return
        was_live, old_match = lt.live, lt.match_id
        if loaded.match is not None and loaded.match.id == lt.match_id:
            lt.match_id = None  # force a replay of the whole log
        self._refresh_table(lt, loaded)
        if lt.final is not None and (was_live or old_match != lt.match_id):
            self._push_final(lt)
        elif was_live and lt.match_status == "abandoned":
            for conn in self._conns(lt):
                conn.push(self._snapshot_for(lt, conn))

    # -- connections -----------------------------------------------------------------------
    def _conns(self, lt: LiveTable) -> list[Conn]:
        return [c for conns in lt.seat_conns.values() for c in conns] + list(lt.spectators)

    async def attach(self, table_id: str, conn: Conn) -> LiveTable:
        lt, fresh = await self._get(table_id)
        async with lt.lock:
            if not fresh:  # a table loaded by this very call is already up to date
                await self._reload_if_open(lt)
                await self._catch_up(lt)
            conn.table_id = table_id
            conn.seat = lt.seat_of(conn.address)
            refusal = self._watch_refusal(lt, conn)
            if refusal is not None and lt.private and not fresh and conn.address is not None:
                # An invitation may be newer than this cache; an anonymous caller can never
                # be invited, so it costs no reload (a script could repeat it at will).
                await self._reload(lt)
                conn.seat = lt.seat_of(conn.address)
                refusal = self._watch_refusal(lt, conn)
            if refusal is not None:
                self._forget_if_idle(lt)
                raise refusal
            if conn.seat is None:
                lt.spectators.add(conn)
                snapshot, later = self._spectator_snapshot(lt)
                conn.push(snapshot)
                for delay, text in later:
                    conn.push_later(delay, text)
            else:
                lt.seat_conns.setdefault(conn.seat, set()).add(conn)
                conn.push(self._snapshot(lt, conn.seat))
        return lt

    @staticmethod
    def _watch_refusal(lt: LiveTable, conn: Conn) -> exc.Forbidden | None:
        """Why ``conn`` may not watch ``lt`` (None: it may). Seats always may; a private
        table is watched only by its invited wallets."""
        if conn.seat is not None:
            return None
        if not lt.table["spectators_allowed"]:
            return exc.Forbidden("this table does not allow spectators")
        if lt.private and conn.address not in lt.invited:
            how = "" if conn.address else "sign in with an invited wallet: "
            return exc.NotInvited(f"{how}this private table is watched by invitation only")
        return None

    def _forget_if_idle(self, lt: LiveTable) -> None:
        """Nothing to drive and nobody watching: forget it (the database keeps it)."""
        if not self._conns(lt) and not lt.live and self.tables.get(lt.table_id) is lt:
            if lt.timer:
                lt.timer.cancel()
            del self.tables[lt.table_id]

    async def _reload_if_open(self, lt: LiveTable) -> None:
        if lt.match_id is None:
            await self._reload(lt)

    def detach(self, conn: Conn) -> None:
        lt = self.tables.get(conn.table_id or "")
        if lt is None:
            return
        lt.spectators.discard(conn)
        if conn.seat is not None:
            lt.seat_conns.get(conn.seat, set()).discard(conn)
        self._forget_if_idle(lt)

    async def resync(self, conn: Conn) -> None:
        lt = await self.get(conn.table_id or "")
        async with lt.lock:
            await self._catch_up(lt)
            # A spectator's later moves are already on their way (delayed): only the snapshot.
            conn.push(self._snapshot_for(lt, conn))

    # -- messages --------------------------------------------------------------------------
    def _deadline_ms(self, lt: LiveTable) -> int | None:
        deadline = lt.deadline()
        return None if deadline is None else int(deadline * 1000)

    def _seat_list(self, lt: LiveTable) -> list[dict[str, Any]]:
        return [
            {
                "seat": s["seat"],
                "address": s.get("address"),
                "bot": s.get("bot_level"),
                "avatar_id": s.get("avatar_id"),
            }
            for s in lt.seats
        ]

    def _snapshot(self, lt: LiveTable, seat: int | None) -> str:
        view = None
        if lt.match is not None:
            view = play.view(lt.match, seat) if seat is not None else play.public_view(lt.match)
        return _dumps(
            {
                "type": "snapshot",
                "table": lt.table,
                "seats": self._seat_list(lt),
                "you": seat,
                "match_id": lt.match_id,
                "match_status": lt.match_status,
                "seed_commitment": lt.seed_commitment,
                "ply": lt.ply,
                "moves": [[s, m, a] for s, m, a in lt.moves],
                "view": view,
                "deadline_ms": self._deadline_ms(lt),
                "final": orjson.loads(lt.final) if lt.final else None,
            }
        )

    def _snapshot_for(self, lt: LiveTable, conn: Conn) -> str:
        """The snapshot ``conn`` may see now: its seat's, or a spectator's (delayed)."""
        if conn.seat is not None:
            return self._snapshot(lt, conn.seat)
        return self._spectator_snapshot(lt)[0]

    def _spectator_snapshot(self, lt: LiveTable) -> tuple[str, list[tuple[float, str]]]:
        """A spectator's snapshot at the position of ``spectator_delay_s`` ago, and the
        messages after it (each ``moved``, then ``match_over``) with the seconds until each
        is due. Without a delay, or with every move old enough: the current snapshot."""
        delay = float(lt.table["spectator_delay_s"])
        if delay <= 0 or lt.match is None:
            return self._snapshot(lt, None), []
        now = time.time()
        shown = self._spectators_shown(lt, delay, now)
        if shown >= len(lt.moves):
            return self._snapshot(lt, None), []
        rules = lt.match.rules
        match = play.start(rules.preset, rules.options, self._names(lt.seats), lt.match.server_seed)
        for _, text, _ in lt.moves[:shown]:
            play.apply(match, text)  # a forfeit ends the match: it is never before ``shown``
        snapshot = _dumps(
            {
                "type": "snapshot",
                "table": lt.table,
                "seats": self._seat_list(lt),
                "you": None,
                "match_id": lt.match_id,
                "match_status": "live",
                "seed_commitment": lt.seed_commitment,
                "ply": shown,
                "moves": [[s, m, a] for s, m, a in lt.moves[:shown]],
                "view": play.public_view(match),
                "deadline_ms": None,
                "final": None,
            }
        )
        timeout = float(lt.table["turn_timeout_s"])
        later: list[tuple[float, str]] = []
        for ply in range(shown, len(lt.moves)):
            seat, text, actor = lt.moves[ply]
            moved_at = lt.move_times[ply]
            if text == "forfeit":
                break  # the match_over that follows says it
            play.apply(match, text)
            moved = lt.spectator_moved.get(ply + 1)
            if moved is None:
                moved = lt.spectator_moved[ply + 1] = _dumps(
                    {
                        "type": "moved",
                        "match_id": lt.match_id,
                        "ply": ply + 1,
                        "seat": seat,
                        "move": text,
                        "actor": actor,
                        "view": play.public_view(match),
                        "deadline_ms": int((moved_at + timeout) * 1000),
                    }
                )
            later.append((max(moved_at + delay - now, 0.0), moved))
        if lt.final is not None:
            later.append((max(lt.move_times[-1] + delay - now, 0.0), lt.final))
        return snapshot, later

    @staticmethod
    def _spectators_shown(lt: LiveTable, delay: float, now: float) -> int:
        """How many moves are old enough for spectators; forgets the shared ``moved`` texts
        that no spectator can be sent any more."""
        shown = bisect.bisect_right(lt.move_times, now - delay)
        cached = lt.spectator_moved
        while cached and (first := next(iter(cached))) <= shown:
            del cached[first]
        return shown

    def _push_final(self, lt: LiveTable) -> None:
        """``match_over`` to every socket: spectators after the table's delay."""
        final = lt.final
        assert final is not None
        delay = float(lt.table["spectator_delay_s"])
        for conns in lt.seat_conns.values():
            for conn in conns:
                conn.push(final)
        for conn in lt.spectators:
            if delay > 0:
                conn.push_later(delay, final)
            else:
                conn.push(final)

    def _broadcast_move(self, lt: LiveTable, seat: int, text: str, actor: str) -> None:
        assert lt.match is not None
        base = {
            "v": PROTOCOL_VERSION,
            "type": "moved",
            "match_id": lt.match_id,
            "ply": lt.ply,
            "seat": seat,
            "move": text,
            "actor": actor,
            "deadline_ms": self._deadline_ms(lt),
        }
        watched = [s for s, conns in lt.seat_conns.items() if conns]
        if not watched and not lt.spectators:
            return
        views = play.seat_views(lt.match, watched or [0])
        for s in watched:
            base["view"] = views[s]
            message = orjson.dumps(base).decode()
            for conn in lt.seat_conns[s]:
                conn.push(message)
        if lt.spectators:
            base["view"] = play.public_of(next(iter(views.values())))
            message = orjson.dumps(base).decode()
            delay = float(lt.table["spectator_delay_s"])
            if delay > 0:
                self._spectators_shown(lt, delay, time.time())
                lt.spectator_moved[lt.ply] = message
            for conn in lt.spectators:
                if delay > 0:
                    conn.push_later(delay, message)
                else:
                    conn.push(message)

    def _final_message(
        self,
        lt: LiveTable,
        result: dict[str, Any],
        seed: str,
        result_hash: str | None,
        ply: int | None = None,
    ) -> str:
        return _dumps(
            {
                "type": "match_over",
                "match_id": lt.match_id,
                "ply": lt.ply if ply is None else ply,
                "result": result,
                "server_seed": seed,
                "result_hash": result_hash,
            }
        )

    # -- moves -----------------------------------------------------------------------------
    async def submit(self, conn: Conn, move: object, ply: object, ref: object) -> None:
        """A seat's move: checked by the engine, committed, then acknowledged and broadcast."""
        lt = await self.get(conn.table_id or "")
        async with lt.lock:
            if conn.seat is None:
                raise exc.Forbidden("spectators cannot move")
            if not lt.live or lt.match is None:
                raise exc.MatchNotLive("no match is in play at this table")
            if ply is not None and ply != lt.ply:
                raise exc.StalePly(f"the match is at ply {lt.ply}, your move was for ply {ply!r}")
            checked = play.check(lt.match, conn.seat, move)
            committed = await self._commit(lt, conn.seat, str(checked), "player")
            if not committed:
                raise exc.StalePly("another move was committed first; your view is resynced")
            conn.push(_dumps({"type": "ack", "ref": ref, "ply": lt.ply}))
            self._after_move(lt, conn.seat, str(checked), "player")

    async def _commit(self, lt: LiveTable, seat: int, text: str, actor: str) -> bool:
        """Apply and durably commit one move (lock held). False: another process took the
        ply first; the cache is then rebuilt from the database and nothing was written."""
        assert lt.match is not None and lt.match_id is not None
        ply = lt.ply
        forfeit = text == "forfeit"
        row = store.move_row(
            lt.match_id,
            ply,
            seat,
            None if forfeit else text,
            actor,
            "forfeit" if forfeit else "move",
        )
        try:
            if not forfeit:
                play.apply(lt.match, text)
            if forfeit or lt.match.over:
                finish = self._finish_payload(
                    lt, seat if forfeit else None, [*lt.moves, (seat, text, actor)]
                )
                if finish.earning:
                    finish.still_eligible = await asyncio.to_thread(self._recheck, lt)
                ok = await asyncio.to_thread(store.commit_final, self.engine, row, finish)
                if ok:
                    lt.match_status = "finished"
                    lt.forfeited_seat = seat if forfeit else None
                    lt.final = self._final_message(
                        lt, finish.result, lt.match.server_seed, finish.result_hash, ply + 1
                    )
            else:
                ok = await self._write(row)
        except Exception:
            log.exception("commit of ply %d in match %s failed", ply, lt.match_id)
            self._rewind(lt)
            raise exc.Unavailable("the move could not be stored; try again") from None
        if not ok:
            # Another process committed this ply first: forget our move, then catch up
            # (which broadcasts the winning move to our sockets like any remote move).
            self._rewind(lt)
            await self._catch_up(lt)
            return False
        lt.moves.append((seat, text, actor))
        self._count_timeout(lt, seat, actor)
        MOVES.labels(bounded(actor, MOVE_ACTORS)).inc()
        lt.ply = ply + 1
        lt.turn_started = aware(row["created_at"]).timestamp()
        lt.move_times.append(lt.turn_started)
        return True

    def _write(self, row: dict[str, Any]) -> asyncio.Future[bool]:
        future: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self.writer.submit(row, future, self._from_writer)
        return future

    def _from_writer(self, results: list[tuple[Any, bool | BaseException]]) -> None:
        """Called in the writer thread once per batch: one wake-up of the event loop."""
        assert self._loop is not None
        # RuntimeError: the loop is closed (the server is stopping); nobody waits any more.
        with contextlib.suppress(RuntimeError):
            self._loop.call_soon_threadsafe(self._settle_writes, results)

    @staticmethod
    def _settle_writes(results: list[tuple[Any, bool | BaseException]]) -> None:
        for future, outcome in results:
            if future.done():
                continue
            if isinstance(outcome, BaseException):
                future.set_exception(outcome)
            else:
                future.set_result(outcome)

    def _finish_payload(
        self, lt: LiveTable, forfeited_seat: int | None, moves: list[tuple[int, str, str]]
    ) -> store.Finish:
        assert lt.match is not None and lt.match_id is not None
        earning = bool(lt.table["earning"])
        outcomes = play.outcome(lt.match, forfeited_seat)
        record = play.record(
            lt.match,
            match_id=lt.match_id,
            seats=self._seat_list(lt),
            moves=moves,
            forfeited_seat=forfeited_seat,
        )
        result = {
            "winner_seats": [o.seat for o in outcomes if o.won],
            "forfeited_seat": forfeited_seat,
            "seats": [o.__dict__ for o in outcomes],
            "scores": list(lt.match.scores),
        }
        return store.Finish(
            match_id=lt.match_id,
            table_id=lt.table_id,
            record=record,
            result=result,
            result_hash=play.record_hash(record),
            # Earning matches get a sequential id in the final commit (cheaper to settle).
            chain_match_id=None if earning else match_ids.free_match_id(lt.match_id),
            chain_prefix=self.chain_prefix,
            preset=lt.table["preset"],
            earning=earning,
            stake=str(lt.table["stake"]),
            seats=lt.seats,
            outcomes=outcomes,
        )

    def _recheck(self, lt: LiveTable) -> dict[int, bool | None]:
        """Gating again before settlement: is each seated wallet still entitled to the
        avatar (or pass) it was admitted with? None: the chain could not be read."""
        verdicts: dict[int, bool | None] = {}
        recheck = getattr(self.gate, "still_admitted", None)
        for s in lt.seats:
            if s.get("address") is None:
                continue
            try:
                verdicts[s["seat"]] = (
                    bool(recheck(s["address"], s.get("avatar_id"))) if recheck else None
                )
            except exc.TablesError:
                verdicts[s["seat"]] = None
        return verdicts

    def _after_move(self, lt: LiveTable, seat: int, text: str, actor: str) -> None:
        if text != "forfeit":
            self._broadcast_move(lt, seat, text, actor)
        if lt.final is not None and lt.match_status == "finished":
            self._push_final(lt)
        if self.bus:
            self.bus.publish_soon(lt.table_id, "move")
        self._schedule(lt)

    async def _publish(self, table_id: str, kind: str) -> None:
        if self.bus:
            await self.bus.publish(table_id, kind)

    # -- timers and bots -------------------------------------------------------------------
    def _schedule(self, lt: LiveTable) -> None:
        if lt.timer:
            lt.timer.cancel()
            lt.timer = None
        seat = lt.to_move()
        if seat is None:
            return
        loop = asyncio.get_running_loop()
        ply = lt.ply
        if lt.bot_level(seat):
            delay = self.settings.server.bot_move_delay_s
            lt.timer = loop.call_later(delay, lambda: self._spawn(self._bot_turn(lt, ply)))
        else:
            deadline = lt.deadline() or time.time()
            delay = max(deadline - time.time(), 0.0)
            lt.timer = loop.call_later(delay, lambda: self._spawn(self._timeout_turn(lt, ply)))

    async def _bot_turn(self, lt: LiveTable, ply: int) -> None:
        async with lt.lock:
            seat = lt.to_move()
            if lt.ply != ply or seat is None or lt.match is None:
                return
            level = lt.bot_level(seat) or "medium"
            move = play.bot_move(lt.match, level, f"{lt.match_id}/{ply}")
            try:
                if await self._commit(lt, seat, move, "bot"):
                    self._after_move(lt, seat, move, "bot")
                else:
                    self._schedule(lt)
            except exc.TablesError:
                self._schedule(lt)

    async def _timeout_turn(self, lt: LiveTable, ply: int) -> None:
        """The turn timer ran out: the bot plays for the seat; repeated, the seat forfeits."""
        async with lt.lock:
            seat = lt.to_move()
            if lt.ply != ply or seat is None or lt.match is None:
                return
            await self._catch_up(lt)
            if lt.ply != ply:
                return
            if lt.timeouts.get(seat, 0) + 1 >= self.settings.server.forfeit_after_timeouts:
                move = "forfeit"
            else:
                move = play.bot_move(lt.match, str(lt.table["bot_level"]), f"{lt.match_id}/{ply}")
            try:
                if await self._commit(lt, seat, move, "timeout"):
                    log.info("seat %d timed out at ply %d of %s: %s", seat, ply, lt.match_id, move)
                    self._after_move(lt, seat, move, "timeout")
                else:
                    self._schedule(lt)
            except exc.TablesError:
                self._schedule(lt)

    # -- other processes and the HTTP side -------------------------------------------------
    async def table_changed(self, table_id: str, *, publish: bool = True) -> None:
        """Seats or the match of a table changed in the database (join, start, matchmaking)."""
        lt = self.tables.get(table_id)
        if lt is not None:
            async with lt.lock:
                await self._reload(lt)
                for conn in self._conns(lt):
                    self._reseat(lt, conn)
                    refusal = self._watch_refusal(lt, conn)
                    if refusal is not None:  # e.g. left a private table it was not invited to
                        lt.spectators.discard(conn)
                        conn.push(
                            _dumps(
                                {
                                    "type": "error",
                                    "ref": None,
                                    "error": {
                                        "code": refusal.code,
                                        "message": refusal.message,
                                        "detail": None,
                                    },
                                }
                            )
                        )
                        conn.close(CLOSE_FORBIDDEN)
                        continue
                    conn.push(self._snapshot_for(lt, conn))
                self._schedule(lt)
        elif await self._needs_host(table_id):
            await self.get(table_id)
        if publish:
            await self._publish(table_id, "table")

    @staticmethod
    def _reseat(lt: LiveTable, conn: Conn) -> None:
        """A spectator whose wallet has just been seated becomes that seat (and back)."""
        seat = lt.seat_of(conn.address)
        if seat == conn.seat:
            return
        lt.spectators.discard(conn)
        if conn.seat is not None:
            lt.seat_conns.get(conn.seat, set()).discard(conn)
        conn.seat = seat
        if seat is None:
            lt.spectators.add(conn)
        else:
            lt.seat_conns.setdefault(seat, set()).add(conn)

    async def _needs_host(self, table_id: str) -> bool:
        """A match in play needs a process to run its timers and bots even when nobody is
        connected: the process that starts it hosts it (the janitor adopts orphans)."""
        loaded = await asyncio.to_thread(store.load_table, self.read_sessions, table_id)
        return bool(loaded and loaded.match is not None and loaded.match.status == "live")

    async def _on_bus(self, table_id: str, kind: str) -> None:
        lt = self.tables.get(table_id)
        if lt is None:
            return
        if kind == "move":
            async with lt.lock:
                await self._catch_up(lt)
        else:
            await self.table_changed(table_id, publish=False)

    async def _janitor_loop(self) -> None:
        """Adopt live matches whose turn is long overdue: their host process died."""
        grace = self.settings.server.orphan_grace_s
        while True:
            try:
                await asyncio.sleep(max(grace / 2, 0.5))
                orphans = await asyncio.to_thread(
                    store.overdue_tables, self.read_sessions, time.time(), grace
                )
                for table_id in orphans:
                    if table_id not in self.tables:
                        log.info("adopting orphaned table %s", table_id)
                        await self.get(table_id)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("janitor pass failed")

    async def _adopt_started_loop(self) -> None:
        """Host the matches other packages start in the database (tournament rounds) within
        about a second, instead of the orphan grace: nobody connects to start them. Every
        process may adopt one; the move log's primary key keeps a single line of play."""
        every = self.settings.server.adopt_started_every_s
        if every <= 0:
            return
        idle = 2 * self.settings.server.bot_move_delay_s + every
        while True:
            try:
                await asyncio.sleep(every)
                started = await asyncio.to_thread(
                    store.idle_tables_of_kind, self.read_sessions, "tournament", time.time(), idle
                )
                for table_id in started:
                    if table_id not in self.tables:
                        await self.get(table_id)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("adoption pass failed")

    async def _heap_loop(self) -> None:
        """Keep the garbage collector's pauses short with thousands of sockets open.

        Freeze what is alive: the collector's passes then scan only newer objects (young
        cycles are still found by the frequent young-generation passes). Frozen objects
        are still freed by reference counting; only cycles among them wait for the
        periodic full collection (one longer pause per period)."""
        every = self.settings.server.gc_freeze_every_s
        full_every = self.settings.server.gc_full_every_s
        last_full = time.monotonic()
        while True:
            try:
                await asyncio.sleep(every)
                if full_every > 0 and time.monotonic() - last_full >= full_every:
                    gc.unfreeze()
                    gc.collect()
                    last_full = time.monotonic()
                gc.freeze()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("heap pass failed")

    async def _matchmaking_loop(self) -> None:
        from backend.tables import service

        while True:
            try:
                await asyncio.sleep(1.0)

                def run() -> list[str]:
                    with self.session_factory() as session:
                        return service.run_matchmaking(session=session, settings=self.settings)

                for table_id in await asyncio.to_thread(run):
                    await self.table_changed(table_id)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("matchmaking pass failed")
