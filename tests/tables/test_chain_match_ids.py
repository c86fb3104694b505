"""Sequential chain match ids: the layout the settlement contract's bitmap wants, and the
database sequence behind them (unique under concurrent finishes on real PostgreSQL and
SQLite, continued across a process restart, given back by a rolled-back finish)."""

from __future__ import annotations

import subprocess
import sys
import threading
import uuid

import pytest
from sqlalchemy import Engine, select

from backend.chain import match_ids
from backend.chain.contracts import REPO_ROOT
from backend.db import create_db_engine
from backend.economy.models import SettlementRequest
from backend.tables.live import store
from backend.tables.models import ChainMatchSequence
from tests.fixtures.finished_match import bot_played_match

pytestmark = pytest.mark.timeout(120)

PREFIX = match_ids.deployment_prefix("test-deployment", 31337)


def _fresh_prefix() -> int:
    return match_ids.deployment_prefix(f"test-{uuid.uuid4().hex}", 31337)


# -- layout (pure) -------------------------------------------------------------------------


def test_earning_id_layout_is_tag_prefix_then_sequence() -> None:
    raw = bytes.fromhex(match_ids.earning_match_id(PREFIX, 0x0102)[2:])
    assert len(raw) == 32
    assert raw[0] == match_ids.TAG_EARNING
    assert int.from_bytes(raw[1:9]) == PREFIX
    assert int.from_bytes(raw[9:]) == 0x0102
    parsed = match_ids.parse(match_ids.earning_match_id(PREFIX, 77))
    assert parsed == match_ids.ChainMatchId(tag=1, prefix=PREFIX, sequence=77)


def test_neighbouring_sequence_numbers_share_one_settled_bitmap_word() -> None:
    # MatchSettlement: bit (id & 0xff) of word (id >> 8); 256 matches per storage word.
    ids = [int(match_ids.earning_match_id(PREFIX, n), 16) for n in range(1, 512)]
    words = {i >> 8 for i in ids}
    assert len(words) == 2  # 1..255 in one word, 256..511 in the next
    assert len({i & 0xFF for i in ids[:255]}) == 255


def test_kinds_never_share_an_id_space() -> None:
    free = match_ids.free_match_id("ab" * 16)
    withdrawal = match_ids.withdrawal_id(bytes(range(32)))
    prize = match_ids.prize_id(bytes(range(32)))
    earning = match_ids.earning_match_id(PREFIX, 1)
    assert free == "0x" + "00" * 16 + "ab" * 16
    assert [match_ids.parse(i).tag for i in (free, earning, withdrawal, prize)] == [0, 1, 2, 3]
    assert withdrawal == "0x02" + bytes(range(31)).hex()
    assert prize == "0x03" + bytes(range(31)).hex()


def test_prefix_depends_on_deployment_name_and_chain_and_nothing_else() -> None:
    assert match_ids.deployment_prefix("prod", 1) == match_ids.deployment_prefix("prod", 1)
    assert match_ids.deployment_prefix("prod", 1) != match_ids.deployment_prefix("prod", 8453)
    assert match_ids.deployment_prefix("prod", 1) != match_ids.deployment_prefix("staging", 1)
    assert 0 <= match_ids.deployment_prefix("prod", 1) < 1 << 64


@pytest.mark.parametrize(
    "call",
    [
        lambda: match_ids.deployment_prefix("", 1),
        lambda: match_ids.deployment_prefix(" prod", 1),
        lambda: match_ids.deployment_prefix("prod", 0),
        lambda: match_ids.earning_match_id(PREFIX, 0),
        lambda: match_ids.earning_match_id(PREFIX, match_ids.MAX_SEQUENCE + 1),
        lambda: match_ids.earning_match_id(1 << 64, 1),
        lambda: match_ids.free_match_id("zz" * 16),
        lambda: match_ids.free_match_id("ab"),
        lambda: match_ids.free_match_id("00" * 16),
        lambda: match_ids.withdrawal_id(b"short"),
        lambda: match_ids.prize_id(b"short"),
        lambda: match_ids.parse("0x1234"),
        lambda: match_ids.parse("0x" + "zz" * 32),
    ],
)
def test_bad_input_is_refused_with_a_clear_error(call) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(match_ids.MatchIdError):
        call()


# -- the sequence in the database ----------------------------------------------------------


def _issue(engine: Engine, prefix: int) -> str:
    with engine.begin() as conn:
        return store.next_chain_match_id(conn, prefix=prefix)


def _sequence(chain_match_id: str) -> int:
    return match_ids.parse(chain_match_id).sequence


def test_ids_are_sequential_per_prefix(db_engine: Engine) -> None:
    first, second = _fresh_prefix(), _fresh_prefix()
    assert [_sequence(_issue(db_engine, first)) for _ in range(3)] == [1, 2, 3]
    assert _sequence(_issue(db_engine, second)) == 1
    assert _sequence(_issue(db_engine, first)) == 4
    assert match_ids.parse(_issue(db_engine, second)).prefix == second


def test_a_rolled_back_finish_gives_its_number_back(db_engine: Engine) -> None:
    prefix = _fresh_prefix()
    assert _sequence(_issue(db_engine, prefix)) == 1
    with pytest.raises(RuntimeError, match="finish failed"), db_engine.begin() as conn:
        assert _sequence(store.next_chain_match_id(conn, prefix=prefix)) == 2
        raise RuntimeError("finish failed")
    assert _sequence(_issue(db_engine, prefix)) == 2


def test_concurrent_finishes_get_distinct_consecutive_numbers(db_engine: Engine) -> None:
    prefix = _fresh_prefix()
    threads, each = 8, 15
    start = threading.Barrier(threads)
    issued: list[str] = []
    errors: list[BaseException] = []
    lock = threading.Lock()

    def worker() -> None:
        try:
            start.wait(timeout=30)
            for _ in range(each):
                chain_match_id = _issue(db_engine, prefix)
                with lock:
                    issued.append(chain_match_id)
        except BaseException as error:  # reported below, with the thread's failure
            errors.append(error)

    pool = [threading.Thread(target=worker) for _ in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join(timeout=90)
    assert not errors, errors
    assert len(issued) == threads * each
    assert sorted(_sequence(i) for i in issued) == list(range(1, threads * each + 1))
    with db_engine.connect() as conn:
        last = conn.scalar(
            select(ChainMatchSequence.last).where(ChainMatchSequence.prefix == f"{prefix:016x}")
        )
    assert last == threads * each


def test_a_restarted_process_continues_the_sequence(pg_url: str) -> None:
    prefix = _fresh_prefix()
    engine = create_db_engine(pg_url)
    try:
        assert _sequence(_issue(engine, prefix)) == 1
    finally:
        engine.dispose()
    code = (
        "import sys; from backend.db import create_db_engine; from backend.tables.live import store\n"
        "engine = create_db_engine(sys.argv[1])\n"
        "with engine.begin() as conn:\n"
        "    print(store.next_chain_match_id(conn, prefix=int(sys.argv[2])))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, pg_url, str(prefix)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=REPO_ROOT,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == match_ids.earning_match_id(prefix, 2)
    engine = create_db_engine(pg_url)
    try:
        assert _sequence(_issue(engine, prefix)) == 3
    finally:
        engine.dispose()


# -- through the match's final commit ------------------------------------------------------


def _finished_match(engine: Engine, *, earning: bool, prefix: int) -> tuple[store.Finish, dict]:
    seats = [{"seat": s, "address": None, "bot_level": "easy", "avatar_id": None} for s in range(2)]
    return bot_played_match(engine, preset="dew200", seats=seats, earning=earning, prefix=prefix)


def _requested_id(engine: Engine, match_id: str) -> str | None:
    with engine.connect() as conn:
        return conn.scalar(
            select(SettlementRequest.chain_match_id).where(SettlementRequest.match_id == match_id)
        )


def test_the_final_commit_gives_earning_matches_sequential_ids(db_engine: Engine) -> None:
    prefix = _fresh_prefix()
    earning = [_finished_match(db_engine, earning=True, prefix=prefix) for _ in range(2)]
    free, free_last = _finished_match(db_engine, earning=False, prefix=prefix)
    for finish, last in earning:
        assert store.commit_final(db_engine, last, finish)
    assert store.commit_final(db_engine, free_last, free)
    assert [_requested_id(db_engine, f.match_id) for f, _ in earning] == [
        match_ids.earning_match_id(prefix, 1),
        match_ids.earning_match_id(prefix, 2),
    ]
    assert _requested_id(db_engine, free.match_id) == match_ids.free_match_id(free.match_id)
    # A finish that lost the race for its last ply writes nothing and issues no number.
    finish, last = earning[0]
    assert not store.commit_final(db_engine, last, finish)
    third, third_last = _finished_match(db_engine, earning=True, prefix=prefix)
    assert store.commit_final(db_engine, third_last, third)
    assert _requested_id(db_engine, third.match_id) == match_ids.earning_match_id(prefix, 3)
