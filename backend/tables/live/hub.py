"""Live play in one server process: the tables it hosts, and the path of a move.

The database is the only source of truth. A ``LiveTable`` (``backend.tables.live.state``) is a
cache of one table's match, rebuilt by replaying the move log; every accepted move is
committed before it is acknowledged or broadcast, and any process may host any table at
any time (a restarted process, or a second process with a player of the same match,
catches up from the log).

The hub's neighbours: ``connections`` (a socket's outbox, who watches a table),
``cache`` (what each socket may see), ``loops`` (turn timers, background loops, the bus).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from typing import Any

from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from backend.chain import match_ids
from backend.config import Settings
from backend.db.base import aware
from backend.db.session import make_session_factory
from backend.ops.metrics import MATCHES_ABANDONED, MOVE_ACTORS, MOVES, bounded
from backend.protocol import messages as protocol
from backend.tables import exceptions as exc
from backend.tables import play, service
from backend.tables.gating import Gate
from backend.tables.live import state, store
from backend.tables.live.bus import RedisBus
from backend.tables.live.connections import Conn, encode
from backend.tables.live.loops import Loops
from backend.tables.live.state import LiveTable

log = logging.getLogger(__name__)

# A commit that has not answered in this long is given up on (the move is rewound and the
# turn tried again): a hung write must not hold its table's lock forever. Should it commit
# after all, the next try of that ply loses to it and catches up from the log.
COMMIT_TIMEOUT_S = 30.0


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
        self.loops = Loops(self)
        self._loop: asyncio.AbstractEventLoop | None = None

    # -- lifecycle -----------------------------------------------------------------------
    async def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self.loops.watch_gc()
        # A fresh writer per start: an app may be started again after a stop (tests).
        self.writer = store.MoveWriter(self.engine, self.settings.server.commit_batch_window_s)
        self.writer.start()
        if self.settings.server.redis_url:
            self.bus = RedisBus(
                self.settings.server.redis_url,
                self.settings.server.redis_channel_prefix,
                self.origin,
            )
            await self.bus.start(self.loops.on_bus, self.loops.on_talk)
        self.loops.start()

    async def stop(self) -> None:
        self.loops.stop_loops()
        for lt in self.tables.values():
            if lt.timer:
                lt.timer.cancel()
            for conn in lt.watchers.all():
                conn.close()
        self.loops.stop_turns()
        if self.bus:
            await self.bus.stop()
        await asyncio.to_thread(self.writer.stop)
        self.loops.release_heap()

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
                    self.loops.schedule(lt)
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
        lt.match = play.start(m.preset, m.options, state.player_names(lt.seats), m.seed)
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
            lt.final = state.final_message(lt, m.result or {}, m.seed, m.result_hash)

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
            state.player_names(lt.seats),
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

    async def catch_up(self, lt: LiveTable) -> None:
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
            state.broadcast_move(lt, row.seat, text, row.actor)
        if status != "live" and lt.match_status == "live":
            await self._reload(lt)  # finished elsewhere, or abandoned by an operator
        self.loops.schedule(lt)

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
            state.push_final(lt)
        elif was_live and lt.match_status == "abandoned":
            for conn in lt.watchers.all():
                conn.push(state.snapshot_for(lt, conn))

    # -- connections -----------------------------------------------------------------------
    async def attach(self, table_id: str, conn: Conn) -> LiveTable:
        """Host ``conn`` at its table (as its wallet's seat, or a spectator) and send it the
        first snapshot; ``Forbidden`` if it may not watch, ``TableNotFound``."""
        lt, fresh = await self._get(table_id)
        async with lt.lock:
            if not fresh:  # a table loaded by this very call is already up to date
                if lt.match_id is None:
                    await self._reload(lt)
                await self.catch_up(lt)
            conn.table_id = table_id
            conn.seat = lt.seat_for(conn.address)
            refusal = state.watch_refusal(lt, conn)
            if refusal is not None and lt.private and not fresh and conn.address is not None:
                # An invitation may be newer than this cache; an anonymous caller can never
                # be invited, so it costs no reload (a script could repeat it at will).
                await self._reload(lt)
                conn.seat = lt.seat_for(conn.address)
                refusal = state.watch_refusal(lt, conn)
            if refusal is not None:
                self._forget_if_idle(lt)
                raise refusal
            lt.watchers.add(conn)
            if conn.seat is None:
                first, later = state.spectator_snapshot(lt)
                conn.push(first)
                for delay, text in later:
                    conn.push_later(delay, text)
            else:
                conn.push(state.snapshot(lt, conn.seat))
        return lt

    def _forget_if_idle(self, lt: LiveTable) -> None:
        """Nothing to drive and nobody watching: forget it (the database keeps it)."""
        if not lt.watchers and not lt.live and self.tables.get(lt.table_id) is lt:
            if lt.timer:
                lt.timer.cancel()
            del self.tables[lt.table_id]

    def detach(self, conn: Conn) -> None:
        lt = self.tables.get(conn.table_id or "")
        if lt is None:
            return
        lt.watchers.discard(conn)
        self._forget_if_idle(lt)

    async def resync(self, conn: Conn) -> None:
        lt = await self.get(conn.table_id or "")
        async with lt.lock:
            await self.catch_up(lt)
            # A spectator's later moves are already on their way (delayed): only the snapshot.
            conn.push(state.snapshot_for(lt, conn))

    # -- other processes and the HTTP side -------------------------------------------------
    async def table_changed(self, table_id: str, *, publish: bool = True) -> None:
        """Seats or the match of a table changed in the database (join, start, matchmaking)."""
        lt = self.tables.get(table_id)
        if lt is not None:
            async with lt.lock:
                await self._reload(lt)
                for conn in lt.watchers.all():
                    # A spectator whose wallet has just been seated becomes that seat (and back).
                    lt.watchers.reseat(conn, lt.seat_for(conn.address))
                    refusal = state.watch_refusal(lt, conn)
                    if refusal is not None:  # e.g. left a private table it was not invited to
                        lt.watchers.spectators.discard(conn)
                        conn.push(encode(protocol.error(refusal.code, refusal.message)))
                        conn.close(protocol.CLOSE_FORBIDDEN)
                        continue
                    conn.push(state.snapshot_for(lt, conn))
                self.loops.schedule(lt)
        elif await self._needs_host(table_id):
            await self.get(table_id)
        if publish and self.bus:
            await self.bus.publish(table_id, "table")

    async def _needs_host(self, table_id: str) -> bool:
        """A match in play needs a process to run its timers and bots even when nobody is
        connected: the process that starts it hosts it (the janitor adopts orphans)."""
        loaded = await asyncio.to_thread(store.load_table, self.read_sessions, table_id)
        return bool(loaded and loaded.match is not None and loaded.match.status == "live")

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
            conn.push(encode(protocol.ack(ref=ref, ply=lt.ply)))
            self._after_move(lt, conn.seat, str(checked), "player")

    async def bot_turn(self, lt: LiveTable, ply: int) -> None:
        """The bot's move for its seat at ``ply`` (its timer ran out). Raises what fails:
        the caller (``Loops``) logs, counts and tries again."""
        async with lt.lock:
            seat = lt.to_move()
            if lt.ply != ply or seat is None or lt.match is None:
                return
            level = lt.bot_level(seat) or "medium"
            # The expert bot searches for tens of milliseconds: off the event loop (the
            # table's lock keeps the match still meanwhile).
            move = await asyncio.to_thread(play.bot_move, lt.match, level, f"{lt.match_id}/{ply}")
            if await self._commit(lt, seat, move, "bot"):
                self._after_move(lt, seat, move, "bot")
            else:
                self.loops.schedule(lt)

    async def timeout_turn(self, lt: LiveTable, ply: int) -> None:
        """The turn timer ran out: the bot plays for the seat; repeated, the seat forfeits.
        Raises what fails, as ``bot_turn``."""
        async with lt.lock:
            seat = lt.to_move()
            if lt.ply != ply or seat is None or lt.match is None:
                return
            await self.catch_up(lt)
            if lt.ply != ply:
                return
            if lt.timeouts.get(seat, 0) + 1 >= self.settings.server.forfeit_after_timeouts:
                move = "forfeit"
            else:
                move = play.bot_move(lt.match, str(lt.table["bot_level"]), f"{lt.match_id}/{ply}")
            if await self._commit(lt, seat, move, "timeout"):
                log.info("seat %d timed out at ply %d of %s: %s", seat, ply, lt.match_id, move)
                self._after_move(lt, seat, move, "timeout")
            else:
                self.loops.schedule(lt)

    async def abandon_stalled(self, lt: LiveTable, ply: int) -> None:
        """The turn at ``ply`` kept failing (``Loops``): end the match without a result and
        give every stake back, as an operator's ``dew abandon-match`` does."""
        async with lt.lock:
            match_id = lt.match_id
            if lt.ply != ply or not lt.live or match_id is None:
                return

            def abandon() -> None:
                with self.session_factory() as session:
                    service.abandon_match(session=session, match_id=match_id, reason="stalled")

            try:
                await asyncio.to_thread(abandon)
                MATCHES_ABANDONED.inc()
            except exc.MatchNotLive:
                pass  # it ended meanwhile (another process): the reload shows how
            await self._reload(lt)
            self.loops.schedule(lt)
        if self.bus:
            await self.bus.publish(lt.table_id, "table")

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
                ok = await asyncio.wait_for(
                    asyncio.to_thread(store.commit_final, self.engine, row, finish),
                    COMMIT_TIMEOUT_S,
                )
                if ok:
                    lt.match_status = "finished"
                    lt.forfeited_seat = seat if forfeit else None
                    lt.final = state.final_message(
                        lt, finish.result, lt.match.server_seed, finish.result_hash, ply + 1
                    )
            else:
                ok = await asyncio.wait_for(self._write(row), COMMIT_TIMEOUT_S)
        except Exception:
            log.exception("commit of ply %d in match %s failed", ply, lt.match_id)
            self._rewind(lt)
            raise exc.Unavailable("the move could not be stored; try again") from None
        if not ok:
            # Another process committed this ply first: forget our move, then catch up
            # (which broadcasts the winning move to our sockets like any remote move).
            self._rewind(lt)
            await self.catch_up(lt)
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
            seats=state.seat_list(lt),
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
            state.broadcast_move(lt, seat, text, actor)
        if lt.final is not None and lt.match_status == "finished":
            state.push_final(lt)
        if self.bus:
            self.bus.publish_soon(lt.table_id, "move")
        self.loops.schedule(lt)
