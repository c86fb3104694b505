"""The chain-follower kit on a real anvil, PostgreSQL and SQLite: a run reads only confirmed
blocks, a bounded span at a time, and moves its cursor in the commit of what it applied; a
failed run moves nothing; two followers racing on one cursor apply each event once; the
migration keeps every cursor's block (the markets' among them) in the one table."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from alembic.config import Config
from sqlalchemy import inspect, text
from sqlalchemy.orm import Session, sessionmaker

from backend.chain.follower import (
    ChainCursor,
    EventReader,
    EventSet,
    FollowReport,
    cursor_positions,
    follow,
    topic_hex,
)
from backend.db import create_db_engine, make_session_factory
from backend.db.session import MIGRATIONS_DIR
from tests.chain.conftest import wait_for
from tests.economy.chain_helpers import address, send
from tests.fixtures.database import create_pg_database, drop_pg_database

Key = tuple[str, int]


def _key(event: Any) -> Key:
    return topic_hex(event["transactionHash"]), int(event["logIndex"])


def _transfers(reader: EventReader) -> Callable[[int, int], list[Any]]:
    """The DEW token's ``Transfer`` events (the deployment itself logs several)."""
    token = reader.contracts.token
    event = token.events.Transfer()
    return lambda start, end: list(reader.logs(event, token.address, [], start, end))


def _follow(
    sessions: sessionmaker[Session],
    reader: EventReader,
    name: str,
    apply: Callable[[Session, list[Any]], int],
    *,
    max_blocks: int = 10_000,
) -> FollowReport:
    """One run of a follower of the token's transfers."""
    read = _transfers(reader)
    return follow(sessions, name=name, reader=reader, max_blocks=max_blocks, read=read, apply=apply)


def _mine(reader: EventReader, blocks: int) -> None:
    for _ in range(blocks):
        reader.w3.provider.make_request("evm_mine", [])  # type: ignore[arg-type]


def _recorder(into: list[Key]) -> Callable[[Session, list[Any]], int]:
    def apply(session: Session, events: list[Any]) -> int:
        into.extend(_key(e) for e in events)
        return len(events)

    return apply


def test_a_run_reads_confirmed_blocks_a_bounded_span_at_a_time(
    deployment: Any, session_factory: sessionmaker[Session]
) -> None:
    reader = EventReader(deployment.contracts, confirmations=3)
    name = f"test:{uuid.uuid4().hex}"
    _mine(reader, 4)
    head = int(reader.w3.eth.block_number)
    confirmed = head - 2
    start = reader.start_block
    assert confirmed >= start + 1
    read = _transfers(reader)
    applied: list[Key] = []
    reports: list[FollowReport] = []
    while not reports or reports[-1].to_block >= reports[-1].from_block:
        reports.append(_follow(session_factory, reader, name, _recorder(applied), max_blocks=2))
        assert len(reports) < 1_000
    ranges = [(r.from_block, r.to_block) for r in reports[:-1]]
    assert ranges[0] == (start, start + 1)
    assert all(hi - lo + 1 <= 2 for lo, hi in ranges)
    assert [lo for lo, _ in ranges[1:]] == [hi + 1 for _, hi in ranges[:-1]]
    assert ranges[-1][1] == confirmed  # never a block short of the confirmation depth
    assert (reports[-1].from_block, reports[-1].events) == (confirmed + 1, 0)
    expected = [_key(e) for e in read(start, confirmed)]
    assert expected and applied == expected
    with session_factory() as session:
        assert cursor_positions(session)[name] == confirmed + 1

    _mine(reader, 1)  # one more block reaches the depth: the next run reads it alone
    again = _follow(session_factory, reader, name, _recorder([]), max_blocks=2)
    assert (again.from_block, again.to_block) == (confirmed + 1, confirmed + 1)


def test_a_failed_run_moves_neither_its_writes_nor_its_cursor(
    deployment: Any, session_factory: sessionmaker[Session]
) -> None:
    reader = EventReader(deployment.contracts, confirmations=1)
    name, witness = f"test:{uuid.uuid4().hex}", f"witness:{uuid.uuid4().hex}"

    def crash(session: Session, events: list[Any]) -> int:
        session.add(ChainCursor(name=witness, next_block=7))  # a write of the run's own
        session.flush()
        raise RuntimeError("the worker died before its commit")

    with pytest.raises(RuntimeError):
        _follow(session_factory, reader, name, crash)
    with session_factory() as session:
        positions = cursor_positions(session)
    assert name not in positions and witness not in positions
    applied: list[Key] = []
    report = _follow(session_factory, reader, name, _recorder(applied))
    assert report.from_block == reader.start_block and report.events == len(applied) > 0


def test_an_event_set_decodes_what_it_follows_in_chain_order(deployment: Any) -> None:
    reader = EventReader(deployment.contracts, confirmations=1)
    token = deployment.contracts.token
    events = EventSet().add("token", token, ("Transfer", "NoSuchEvent"))
    tagged = reader.tagged_events(events, reader.start_block, reader.safe_head())
    assert tagged and {tag for tag, _ in tagged} == {"token"}
    order = [(int(e["blockNumber"]), int(e["logIndex"])) for _, e in tagged]
    assert order == sorted(order)
    assert [_key(e) for _, e in tagged] == [
        _key(e) for e in _transfers(reader)(reader.start_block, reader.safe_head())
    ]
    assert reader.tagged_events(EventSet().add("token", token, ("NoSuchEvent",)), 0, 10) == []


@pytest.mark.parametrize("cursor", ["new", "existing"])
def test_two_followers_racing_on_one_range_apply_each_event_once(
    deployment: Any, pg_url: str, cursor: str
) -> None:
    """The first to claim the cursor applies the range; the other waits on the cursor's lock
    (PostgreSQL; SQLite runs one writer at a time) and then finds nothing left to read."""
    reader = EventReader(deployment.contracts, confirmations=1)
    engine = create_db_engine(pg_url)
    sessions = make_session_factory(engine)
    name = f"race:{uuid.uuid4().hex}"
    read = _transfers(reader)
    if cursor == "existing":  # a cursor past the deployment, then new events to race for
        _follow(sessions, reader, name, _recorder([]))
        who = address(deployment.player_keys[0])
        send(
            deployment.w3,
            deployment.deployer_key,
            deployment.contracts.token.functions.transfer(who, 1),
        )
    head = reader.safe_head()
    applying, release = threading.Event(), threading.Event()
    applied: dict[str, list[Key]] = {"first": [], "second": []}
    reports: dict[str, FollowReport] = {}
    errors: list[BaseException] = []

    def first_apply(session: Session, events: list[Any]) -> int:
        applied["first"].extend(_key(e) for e in events)
        applying.set()
        assert release.wait(30), "the race was never released"
        return len(events)

    def run(who: str, apply: Callable[[Session, list[Any]], int]) -> None:
        try:
            reports[who] = _follow(sessions, reader, name, apply)
        except BaseException as error:  # reported to the test's thread below
            errors.append(error)
            applying.set()

    def lock_waiters() -> int:
        with engine.connect() as conn:
            return int(
                conn.execute(
                    text(
                        "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                        " AND wait_event_type = 'Lock'"
                    )
                ).scalar_one()
            )

    first = threading.Thread(target=run, args=("first", first_apply))
    second = threading.Thread(target=run, args=("second", _recorder(applied["second"])))
    try:
        first.start()
        assert applying.wait(30) and not errors, errors
        second.start()
        wait_for(lock_waiters, timeout_s=30, what="the second follower waiting on the cursor")
    finally:
        release.set()
        first.join(30)
        second.join(30)
        engine.dispose()
    assert not errors, errors
    start = reports["first"].from_block
    assert reports["first"].to_block == head and applied["first"]
    assert applied["first"] == [_key(e) for e in read(start, head)]
    assert applied["second"] == [] and reports["second"].from_block == head + 1
    assert len(set(applied["first"])) == len(applied["first"])


# --- the migration that made one cursor table ----------------------------------------------

BEFORE = ("economy_0001", "markets_h19markets_0001", "chain_0001")
OLD_ROWS = {
    "economy_indexer_cursors": {"registry:31337:0xR": 1_234, "deposits:31337:0xV": 99},
    "markets_indexer_cursors": {"markets:31337:0xM": 5_678},
}


def _alembic(url: str) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return config


@pytest.fixture(params=["sqlite", "postgresql"])
def empty_url(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'dew.sqlite3'}"
        return
    url = create_pg_database()
    try:
        yield url
    finally:
        drop_pg_database(url)


def _rows(url: str, table: str) -> dict[str, int]:
    engine = create_db_engine(url)
    try:
        with engine.connect() as conn:
            found = conn.execute(text(f"SELECT name, next_block FROM {table}"))
            return {str(n): int(b) for n, b in found}
    finally:
        engine.dispose()


def _tables(url: str) -> set[str]:
    engine = create_db_engine(url)
    try:
        return set(inspect(engine).get_table_names())
    finally:
        engine.dispose()


def test_the_migration_moves_every_cursor_and_its_block_into_one_table(empty_url: str) -> None:
    config = _alembic(empty_url)
    for revision in BEFORE:
        command.upgrade(config, revision)
    engine = create_db_engine(empty_url)
    with engine.begin() as conn:
        for table, rows in OLD_ROWS.items():
            for name, block in rows.items():
                conn.execute(
                    text(f"INSERT INTO {table} (name, next_block) VALUES (:n, :b)"),
                    {"n": name, "b": block},
                )
    engine.dispose()

    command.upgrade(config, "heads")
    moved = {**OLD_ROWS["economy_indexer_cursors"], **OLD_ROWS["markets_indexer_cursors"]}
    assert _rows(empty_url, "chain_cursors") == moved
    assert not set(OLD_ROWS) & _tables(empty_url)

    command.downgrade(config, "chain_0001")  # and back: each table gets its own rows again
    for table, rows in OLD_ROWS.items():
        assert _rows(empty_url, table) == rows
    assert "chain_cursors" not in _tables(empty_url)
    command.upgrade(config, "heads")
    assert _rows(empty_url, "chain_cursors")["markets:31337:0xM"] == 5_678
