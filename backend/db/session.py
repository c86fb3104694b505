"""Engines and sessions for SQLite (embedded default) and PostgreSQL (production)."""

from __future__ import annotations

import select
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DisconnectionError
from sqlalchemy.orm import ORMExecuteState, Session, sessionmaker

# Beside backend/models.py, above every aggregate: the migrations import all their models.
MIGRATIONS_DIR = Path(__file__).resolve().parent.parent / "migrations"


def create_db_engine(url: str, *, echo: bool = False, pool_size: int = 10) -> Engine:
    """An engine tuned per backend: WAL and a busy timeout on SQLite, a real pool on PostgreSQL."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        if parsed.database:
            Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(
            url, echo=echo, connect_args={"check_same_thread": False, "timeout": 30}
        )

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_connection, _record):  # type: ignore[no-untyped-def]
            # Let SQLAlchemy issue BEGIN itself so that BEGIN IMMEDIATE can be used for locks.
            dbapi_connection.isolation_level = None
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.close()

        @event.listens_for(engine, "begin")
        def _sqlite_begin(conn):  # type: ignore[no-untyped-def]
            if conn.get_execution_options().get(READ_ONLY):
                # A reader takes no lock: in WAL mode it reads its snapshot while the one
                # writer writes, and neither waits for the other.
                conn.exec_driver_sql("BEGIN DEFERRED")
            else:
                # A writer takes the write lock up front: no deadlocking lock upgrades (a
                # deferred reader turned writer fails at once if another wrote meanwhile).
                conn.exec_driver_sql("BEGIN IMMEDIATE")

        return engine
    engine = create_engine(url, echo=echo, pool_size=pool_size, max_overflow=pool_size)
    # Instead of pool_pre_ping (a SELECT 1 round trip on every checkout, the largest single
    # cost of a sign-in): a pooled connection that the server has closed (restart, idle
    # timeout, pg_terminate_backend) has its FATAL message or EOF waiting on the socket, so
    # a zero-timeout poll finds it without sending anything; the pool then replaces it.
    event.listen(engine, "checkout", _refuse_closed_connection)
    return engine


_DEAD = select.POLLIN | select.POLLERR | select.POLLHUP


def _refuse_closed_connection(dbapi_connection: Any, _record: Any, _proxy: Any) -> None:
    # An idle connection in the pool has nothing to read unless the server has spoken last
    # (we use no LISTEN/NOTIFY); a rare false alarm only costs a reconnect.
    poller = select.poll()
    try:
        poller.register(dbapi_connection.fileno(), _DEAD)
    except Exception as error:  # the driver already knows it is closed
        raise DisconnectionError(f"this pooled connection is closed: {error}") from None
    if poller.poll(0):
        raise DisconnectionError("the server closed this pooled connection")


def make_session_factory(engine: Engine, *, read_only: bool = False) -> sessionmaker[Session]:
    """Sessions on ``engine``. ``read_only`` sessions are for work that only reads (GET
    routes, authentication, loading a match): on SQLite they never hold the write lock, and
    on any database a write through one is a bug that raises ``ReadOnlySessionError``."""
    if not read_only:
        return sessionmaker(engine, expire_on_commit=False)
    factory = sessionmaker(engine.execution_options(**{READ_ONLY: True}), expire_on_commit=False)
    event.listen(factory, "before_flush", _refuse_flush)
    event.listen(factory, "do_orm_execute", _refuse_write_statement)
    return factory


READ_ONLY = "dew_read_only"


class ReadOnlySessionError(RuntimeError):
    """Something tried to write through a read-only session (a programming error)."""


def _refuse_flush(session: Session, _context: Any, _instances: Any) -> None:
    if session.new or session.dirty or session.deleted:
        raise ReadOnlySessionError("a read-only session cannot write; use a writer session")


def _refuse_write_statement(state: ORMExecuteState) -> None:
    if state.is_insert or state.is_update or state.is_delete:
        raise ReadOnlySessionError("a read-only session cannot write; use a writer session")


def migrate(url: str, revision: str = "heads") -> None:
    """Bring the database at ``url`` up to ``revision`` with Alembic."""
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    command.upgrade(config, revision)
