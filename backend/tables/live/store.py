"""Database side of live play: loading a match to replay it, committing moves, finishing.

All functions here are synchronous and are called from worker threads, never on the
event loop. Moves are inserted with ON CONFLICT DO NOTHING on ``(match_id, ply)``: the
loser of a race between two processes learns it lost and catches up from the log.
"""

from __future__ import annotations

import contextlib
import logging
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson
from sqlalchemy import Connection, Engine, delete, func, select, update
from sqlalchemy.orm import Session, sessionmaker

from backend.chain import match_ids
from backend.db import dialect
from backend.db.base import aware, utcnow
from backend.economy import settlement
from backend.kit.rows import columns
from backend.tables.models import (
    ChainMatchSequence,
    EarningHold,
    Match,
    MatchMove,
    MatchResult,
    Table,
    TableInvitation,
    TableSeat,
)
from backend.tables.play import SeatOutcome

log = logging.getLogger(__name__)


@dataclass
class LoadedTable:
    """A table with its seats, current match and that match's move log."""

    table: Table
    seats: list[TableSeat]
    match: Match | None
    moves: list[MatchMove] = field(default_factory=list)
    # The invited wallets of a private table (who, with its seats, may watch it).
    invited: list[str] = field(default_factory=list)


def load_table(session_factory: sessionmaker[Session], table_id: str) -> LoadedTable | None:
    with session_factory() as session:
        table = session.get(Table, table_id)
        if table is None:
            return None
        seats = list(
            session.scalars(
                select(TableSeat).where(TableSeat.table_id == table_id).order_by(TableSeat.seat)
            )
        )
        match = session.get(Match, table.match_id) if table.match_id else None
        moves = (
            list(
                session.scalars(
                    select(MatchMove).where(MatchMove.match_id == match.id).order_by(MatchMove.ply)
                )
            )
            if match
            else []
        )
        invited = (
            list(
                session.scalars(
                    select(TableInvitation.address).where(TableInvitation.table_id == table_id)
                )
            )
            if table.visibility == "private"
            else []
        )
        return LoadedTable(table=table, seats=seats, match=match, moves=moves, invited=invited)


def load_moves_since(
    session_factory: sessionmaker[Session], match_id: str, ply: int
) -> tuple[str, list[MatchMove]]:
    """The match status and its moves from ``ply`` on."""
    with session_factory() as session:
        status = session.scalar(select(Match.status).where(Match.id == match_id)) or "missing"
        moves = list(
            session.scalars(
                select(MatchMove)
                .where(MatchMove.match_id == match_id, MatchMove.ply >= ply)
                .order_by(MatchMove.ply)
            )
        )
        return status, moves


def _live_tables_last_active(
    session_factory: sessionmaker[Session], *where: Any
) -> list[tuple[str, float, float]]:
    """(table id, turn timeout, unix time of the last move or of the start) per live match."""
    # Correlated per live match: the move log's (match_id, ply) primary key answers it
    # without reading the moves of finished matches.
    last_move = (
        select(func.max(MatchMove.created_at))
        .where(MatchMove.match_id == Match.id)
        .correlate(Match)
        .scalar_subquery()
    )
    with session_factory() as session:
        rows = session.execute(
            select(Table.id, Table.turn_timeout_s, Match.created_at, last_move)
            .join(Match, Match.id == Table.match_id)
            .where(Match.status == "live", *where)
        ).all()
    active = []
    for table_id, timeout, started, moved in rows:
        active.append((table_id, timeout, aware(moved or started).timestamp()))
    return active


def overdue_tables(session_factory: sessionmaker[Session], now: float, grace_s: float) -> list[str]:
    """Tables whose live match has had no move for its turn timeout plus ``grace_s``."""
    return [
        table_id
        for table_id, timeout, since in _live_tables_last_active(session_factory)
        if now - since > timeout + grace_s
    ]


def idle_tables_of_kind(
    session_factory: sessionmaker[Session], kind: str, now: float, idle_s: float
) -> list[str]:
    """Tables of ``kind`` whose live match has had no move for ``idle_s``: matches another
    package started (a tournament round) that no server process may be hosting yet."""
    rows = _live_tables_last_active(session_factory, Table.kind == kind)
    return [table_id for table_id, _timeout, since in rows if now - since >= idle_s]


def move_row(
    match_id: str, ply: int, seat: int, move: str | None, actor: str, kind: str = "move"
) -> dict[str, Any]:
    return {
        "match_id": match_id,
        "ply": ply,
        "seat": seat,
        "kind": kind,
        "move": {"move": move} if move is not None else None,
        "actor": actor,
        "created_at": utcnow(),
    }


@dataclass
class Finish:
    """Everything written in the one transaction that ends a match."""

    match_id: str
    table_id: str
    record: dict[str, Any]
    result: dict[str, Any]
    result_hash: str
    # A free match's id (``match_ids.free_match_id``); None for an earning match, which gets
    # the next sequential id under ``chain_prefix`` in the final commit itself.
    chain_match_id: str | None
    preset: str
    earning: bool
    stake: str
    seats: list[dict[str, Any]]  # seat dicts of the match (address, bot_level, avatar_id, ...)
    outcomes: list[SeatOutcome]
    # Earning tables: the gating re-check at the end, per human seat (None: unreadable).
    still_eligible: dict[int, bool | None] = field(default_factory=dict)
    chain_prefix: int | None = None  # ``match_ids.deployment_prefix`` of this deployment


def next_chain_match_id(conn: Connection, *, prefix: int) -> str:
    """Issue the next sequential chain match id under ``prefix`` in ``conn``'s transaction.

    One upsert: the first call inserts sequence 1, later ones add 1 and return the new
    value. On PostgreSQL the updated row stays locked until the caller's transaction ends,
    so concurrent callers get distinct numbers (and a rolled-back caller's number is
    reissued, never skipped); SQLite serializes writers with BEGIN IMMEDIATE. Callers keep
    the transaction short after this call: every other finishing match waits on the row.
    """
    key = f"{prefix:016x}"
    if len(key) != 16:
        raise match_ids.MatchIdError(f"prefix must fit 8 bytes: {prefix!r}")
    statement = (
        dialect.insert(conn, ChainMatchSequence)
        .values(prefix=key, last=1)
        .on_conflict_do_update(
            index_elements=[ChainMatchSequence.prefix],
            set_={"last": ChainMatchSequence.last + 1},
        )
        .returning(ChainMatchSequence.last)
    )
    return match_ids.earning_match_id(prefix, conn.execute(statement).scalar_one())


def commit_final(engine: Engine, last_move: dict[str, Any], finish: Finish) -> bool:
    """Commit the match's last move (or forfeit) together with its end; False if the ply was
    already taken by another process (then nothing is written)."""
    now = last_move["created_at"]
    with engine.begin() as conn:
        inserted = conn.execute(
            dialect.insert(engine, MatchMove)
            .values(**last_move)
            .on_conflict_do_nothing()
            .returning(MatchMove.ply)
        ).first()
        if inserted is None:
            return False
        finished = conn.execute(
            update(Match)
            .where(Match.id == finish.match_id, Match.status == "live")
            .values(
                status="finished",
                finished_at=now,
                record=finish.record,
                result=finish.result,
                result_hash=finish.result_hash,
            )
        ).rowcount
        if finished != 1:
            # Cannot happen while plies are unique; refuse rather than write a second end.
            raise RuntimeError(f"match {finish.match_id} was already finished")
        conn.execute(update(Table).where(Table.id == finish.table_id).values(status="finished"))
        if finish.earning:
            # Its players may sit at another earning table now (``seating.take_seat``).
            conn.execute(delete(EarningHold).where(EarningHold.table_id == finish.table_id))
        by_seat = {s["seat"]: s for s in finish.seats}
        seat_rows = []
        for o in finish.outcomes:
            s = by_seat[o.seat]
            seat_rows.append(
                {
                    "seat": o.seat,
                    "address": s.get("address"),
                    "avatar_id": s.get("avatar_id"),
                    "is_bot": s.get("address") is None,
                    "team": o.team,
                    "placement": o.placement,
                    "points": o.points,
                    "won": o.won,
                    "forfeited": o.forfeited,
                    "admitted_as": s.get("admitted_as"),
                    "still_eligible": finish.still_eligible.get(o.seat),
                }
            )
        conn.execute(
            dialect.insert(engine, MatchResult),
            [
                {
                    "match_id": finish.match_id,
                    "finished_at": now,
                    **{k: r[k] for k in r if k not in ("admitted_as", "still_eligible")},
                }
                for r in seat_rows
            ],
        )
        chain_match_id = finish.chain_match_id
        if chain_match_id is None:
            if finish.chain_prefix is None:
                raise ValueError(f"match {finish.match_id} has no chain match id and no prefix")
            # Last but one statement: the sequence row is locked from here to the commit.
            chain_match_id = next_chain_match_id(conn, prefix=finish.chain_prefix)
        conn.execute(
            settlement.queue_match(
                engine,
                **columns(finish, "match_id table_id preset earning stake result_hash"),
                chain_match_id=chain_match_id,
                seats=seat_rows,
                finished_at=now,
            )
        )
    return True


_STOP = object()

Settle = Callable[[list[tuple[Any, bool | BaseException]]], None]


class MoveWriter:
    """Group commit: one thread writes the moves of all live matches in shared transactions.

    A move is acknowledged only after the transaction holding it has committed; batching
    lets one commit (one fsync) carry the moves of many matches. The thread keeps one
    connection (no pool checkout or ping per batch), inserts a batch with one Core
    executemany, and reports the whole batch back with one call (one event-loop wake-up).
    """

    def __init__(self, engine: Engine, window_s: float, max_batch: int = 500) -> None:
        self._engine = engine
        self._window_s = window_s
        self._max_batch = max_batch
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="dew-move-writer", daemon=True)
        self._insert = (
            dialect.insert(engine, MatchMove)
            .on_conflict_do_nothing()
            .returning(MatchMove.match_id, MatchMove.ply)
        )
        self._conn: Connection | None = None
        self._raw: Any = None  # the driver's own connection (PostgreSQL)
        self.batches = 0
        self.rows = 0

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._queue.put(_STOP)
        self._thread.join(timeout=10)

    def queue_row(self, row: dict[str, Any], token: Any, settle: Settle) -> None:
        """Queue ``row``. Once its batch is decided, ``settle`` is called from the writer
        thread, once per batch, with ``(token, outcome)`` pairs: True (committed), False
        (the ply was already taken: nothing written) or the exception."""
        self._queue.put((row, token, settle))

    def _run(self) -> None:
        stopping = False
        try:
            while not stopping:
                first = self._queue.get()
                if first is _STOP:
                    return
                batch = [first]
                deadline = time.monotonic() + self._window_s
                while len(batch) < self._max_batch:
                    remaining = deadline - time.monotonic()
                    try:
                        item = (
                            self._queue.get(timeout=remaining)
                            if remaining > 0
                            else self._queue.get_nowait()
                        )
                    except queue.Empty:
                        break
                    if item is _STOP:
                        stopping = True
                        break
                    batch.append(item)
                try:
                    self._write(batch)
                except Exception as error:
                    # The one writer of every live match must outlive any batch: a dead
                    # thread would leave every table waiting on its commit.
                    log.exception("move batch of %d could not be settled", len(batch))
                    for _, token, settle in batch:
                        with contextlib.suppress(Exception):
                            settle([(token, error)])
        finally:
            with contextlib.suppress(Exception):
                if self._conn is not None:
                    self._conn.close()
                if self._raw is not None:
                    self._raw.close()

    def _write(self, batch: list[tuple[dict[str, Any], Any, Settle]]) -> None:
        rows = [row for row, _, _ in batch]
        try:
            if dialect.is_postgresql(self._engine):
                inserted = self._insert_pg(rows)
            else:
                inserted = self._insert_core(rows)
        except Exception as error:
            log.exception("move batch of %d failed", len(batch))
            self._drop_connection()
            outcomes: list[tuple[Any, bool | BaseException]] = [
                (token, error) for _, token, _ in batch
            ]
        else:
            self.batches += 1
            self.rows += len(rows)
            outcomes = [
                (token, (row["match_id"], row["ply"]) in inserted) for row, token, _ in batch
            ]
        by_settle: dict[Settle, list[tuple[Any, bool | BaseException]]] = {}
        for (_, _, settle), outcome in zip(batch, outcomes, strict=True):
            by_settle.setdefault(settle, []).append(outcome)
        for settle, results in by_settle.items():
            settle(results)

    def _insert_core(self, rows: list[dict[str, Any]]) -> set[tuple[str, int]]:
        """SQLite (the embedded default): one Core executemany in one transaction."""
        if self._conn is None:
            self._conn = self._engine.connect()
        conn = self._conn
        try:
            inserted = {(r[0], r[1]) for r in conn.execute(self._insert, rows)}
            conn.commit()
        except BaseException:
            conn.rollback()
            raise
        return inserted

    def _insert_pg(self, rows: list[dict[str, Any]]) -> set[tuple[str, int]]:
        """PostgreSQL: one multi-row INSERT straight through the driver (psycopg), in one
        transaction. This runs hundreds of times a second under load, and SQLAlchemy's
        per-statement machinery cost more than the database work itself."""
        if self._raw is None:
            self._raw = self._engine.raw_connection()
        raw = self._raw
        params: list[Any] = []
        for row in rows:
            move = row["move"]
            params += (
                row["match_id"],
                row["ply"],
                row["seat"],
                row["kind"],
                None if move is None else orjson.dumps(move).decode(),
                row["actor"],
                row["created_at"],
            )
        sql = _PG_INSERT_HEAD + ",".join([_PG_ROW] * len(rows)) + _PG_INSERT_TAIL
        try:
            cursor = raw.cursor()
            try:
                cursor.execute(sql, params)
                inserted = {(r[0], r[1]) for r in cursor.fetchall()}
            finally:
                cursor.close()
            raw.commit()
        except BaseException:
            raw.rollback()
            raise
        return inserted

    def _drop_connection(self) -> None:
        """After a failure the connection may be broken: the next batch gets a fresh one."""
        with contextlib.suppress(Exception):
            if self._conn is not None:
                self._conn.invalidate()
                self._conn.close()
        with contextlib.suppress(Exception):
            if self._raw is not None:
                self._raw.invalidate()
                self._raw.close()
        self._conn = None
        self._raw = None


_PG_INSERT_HEAD = (
    "INSERT INTO match_moves (match_id, ply, seat, kind, move, actor, created_at) VALUES "
)
_PG_ROW = "(%s, %s, %s, %s, %s::json, %s, %s)"
_PG_INSERT_TAIL = " ON CONFLICT DO NOTHING RETURNING match_id, ply"
