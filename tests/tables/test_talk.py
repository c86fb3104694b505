"""Table talk and reports: the catalogue checks, the complaints service, `dew complaints`, and
two real clients talking over the play socket of a real server (a phrase seen by the other
seat and by a spectator, mute, free text when a deployment allows it)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from eth_account import Account
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from backend.config import TalkSettings
from backend.tables import exceptions as exc
from backend.tables.live import talk
from backend.tables.live.connections import Conn
from backend.tables.live.state import LiveTable
from backend.tables.models import Match, Table, TableSeat
from backend.tables.moderation import complaints
from backend.tables.moderation.complaints import Complaint
from tests.fixtures.redis import REDIS_URL
from tests.tables.harness import Player, ServerProcess, api, sign_in

pytestmark = pytest.mark.timeout(300)

REPO = Path(__file__).resolve().parents[2]
OFF = TalkSettings(free_text=False)
ON = TalkSettings(free_text=True, free_text_max_chars=10)


# --- the catalogue ---------------------------------------------------------------------------


def test_phrases_and_emotes_of_the_catalogue_pass() -> None:
    assert talk.check({"phrase": "good_game"}, OFF) == ("good_game", None, None)
    assert talk.check({"emote": "clap", "phrase": None}, OFF) == (None, "clap", None)


@pytest.mark.parametrize(
    ("message", "error", "words"),
    [
        ({}, exc.InvalidTalk, "exactly one"),
        ({"phrase": "hello", "emote": "clap"}, exc.InvalidTalk, "exactly one"),
        ({"phrase": "you_stink"}, exc.InvalidTalk, "unknown phrase"),
        ({"emote": "x" * 5000}, exc.InvalidTalk, "unknown emote"),
        ({"phrase": 7}, exc.InvalidTalk, "must be a string"),
        ({"text": "hola"}, exc.FreeTextOff, "free text is off"),
    ],
)
def test_talk_outside_the_catalogue_is_refused(message: Any, error: type, words: str) -> None:
    with pytest.raises(error, match=words):
        talk.check(message, OFF)


def test_free_text_is_cleaned_of_control_characters_and_bounded() -> None:
    # Bidi overrides, NUL, zero-width space and newlines go; runs of space become one.
    assert talk.check({"text": " hi\u202e\x00 \n\u200bthere "}, ON) == (None, None, "hi there")
    assert talk.check({"text": "0123456789"}, ON)[2] == "0123456789"
    for text, words in [("01234567890", "limited to 10"), ("\x00\u202e\n ", "empty")]:
        with pytest.raises(exc.InvalidTalk, match=words):
            talk.check({"text": text}, ON)


# --- the complaints service --------------------------------------------------------------------


@pytest.fixture
def sessions(session_factory: sessionmaker[Session]) -> sessionmaker[Session]:
    return session_factory


def _table(sessions: sessionmaker[Session], seated: list[str], played: list[str]) -> str:
    """A table with ``seated`` at its seats now and a finished match of ``played``."""
    table_id = uuid.uuid4().hex
    with sessions() as session:
        session.add(
            Table(
                id=table_id,
                preset="draw",
                seat_count=4,
                kind="human",
                invite_code=uuid.uuid4().hex,
                turn_timeout_s=30.0,
                status="open",
            )
        )
        session.flush()
        for seat, address in enumerate(seated):
            session.add(TableSeat(table_id=table_id, seat=seat, address=address))
        if played:
            session.add(
                Match(
                    id=uuid.uuid4().hex,
                    table_id=table_id,
                    preset="draw",
                    options={},
                    seats=[{"seat": i, "address": a} for i, a in enumerate(played)],
                    seed="00" * 32,
                    seed_commitment="11" * 32,
                    status="finished",
                )
            )
        session.commit()
    return table_id


def _addresses(n: int) -> list[str]:
    return [Account.create().address for _ in range(n)]


def _count(sessions: sessionmaker[Session]) -> int:
    with sessions() as session:
        return int(session.scalar(select(func.count()).select_from(Complaint)) or 0)


def _report(sessions: sessionmaker[Session], **fields: Any) -> complaints.ComplaintRow:
    args: dict[str, Any] = {"reason": "abusive_language", "note": None, "per_day": 3, **fields}
    with sessions() as session:
        return complaints.report(session=session, **args)


def test_a_table_mate_now_or_in_a_past_match_can_be_reported(sessions) -> None:  # type: ignore[no-untyped-def]
    me, now, before = _addresses(3)
    table_id = _table(sessions, [me, now], [me, before])
    row = _report(sessions, reporter=me, reported=now.lower(), table_id=table_id, note="a\u202eb")
    assert (row.reported, row.status, row.note) == (now, "open", "ab")  # its own spelling
    past = _report(sessions, reporter=me, reported=before, table_id=table_id, reason="cheating")
    assert past.reason == "cheating"


def test_bad_reports_are_refused_and_change_nothing(sessions) -> None:  # type: ignore[no-untyped-def]
    me, mate, stranger = _addresses(3)
    table_id = _table(sessions, [me, mate], [])
    elsewhere = _table(sessions, [stranger], [])
    before = _count(sessions)
    cases: list[tuple[dict[str, Any], type, str]] = [
        ({"reported": stranger, "table_id": table_id}, exc.NotTableMate, "does not share"),
        ({"reported": stranger, "table_id": elsewhere}, exc.NotTableMate, "does not share"),
        ({"reported": mate, "table_id": "f" * 32}, exc.NotTableMate, "does not share"),
        ({"reported": me, "table_id": table_id}, exc.InvalidRequest, "yourself"),
        ({"reported": mate, "table_id": table_id, "reason": "ugly"}, exc.InvalidRequest, "reason"),
        ({"reported": "0x12", "table_id": table_id}, exc.InvalidRequest, "not an address"),
        ({"reported": mate, "table_id": table_id, "note": "n" * 281}, exc.InvalidRequest, "280"),
    ]
    for fields, error, words in cases:
        with pytest.raises(error, match=words):
            _report(sessions, reporter=me, **fields)
    assert _count(sessions) == before


def test_a_player_is_reported_once_per_table_and_reports_are_capped_per_day(sessions) -> None:  # type: ignore[no-untyped-def]
    me, *others = _addresses(5)
    table_id = _table(sessions, [me, *others[:3]], [me, others[3]])
    _report(sessions, reporter=me, reported=others[0], table_id=table_id)
    with pytest.raises(exc.AlreadyReported):
        _report(sessions, reporter=me, reported=others[0], table_id=table_id, reason="spam")
    _report(sessions, reporter=me, reported=others[1], table_id=table_id)
    _report(sessions, reporter=me, reported=others[2], table_id=table_id)
    before = _count(sessions)
    with pytest.raises(exc.TooManyReports, match="at most 3"):
        _report(sessions, reporter=me, reported=others[3], table_id=table_id)
    assert _count(sessions) == before


def test_complaints_are_listed_shown_and_closed(sessions) -> None:  # type: ignore[no-untyped-def]
    me, mate = _addresses(2)
    table_id = _table(sessions, [me, mate], [])
    row = _report(sessions, reporter=me, reported=mate, table_id=table_id, note="rude")
    with sessions() as session:
        listed = complaints.list_complaints(session=session, reported=mate)
        assert [c.id for c in listed] == [row.id]
        closed = complaints.close_complaint(
            session=session, complaint_id=row.id, resolution="warned\x07 the player"
        )
        assert (closed.status, closed.resolution) == ("closed", "warned the player")
        with pytest.raises(exc.Conflict, match="already closed"):
            complaints.close_complaint(session=session, complaint_id=row.id, resolution="again")
        with pytest.raises(exc.ComplaintNotFound):
            complaints.get_complaint(session=session, complaint_id=10**9)
        with pytest.raises(exc.InvalidRequest):
            complaints.list_complaints(session=session, status="pending")
        assert complaints.list_complaints(session=session, status="open", reported=mate) == []


# --- dew complaints ------------------------------------------------------------------------


def _dew(db_url: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEW_")}
    env["DEW_DB_URL"] = db_url
    return subprocess.run(
        [sys.executable, "-c", "from backend.cli import app; app()", "complaints", *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_dew_complaints_list_show_and_close(db_url, sessions) -> None:  # type: ignore[no-untyped-def]
    me, mate = _addresses(2)
    table_id = _table(sessions, [me, mate], [])
    row = _report(sessions, reporter=me, reported=mate, table_id=table_id, reason="stalling")
    listed = _dew(db_url, "list", "--reported", mate)
    assert listed.returncode == 0, listed.stderr
    assert f"#{row.id}" in listed.stdout and "stalling" in listed.stdout
    assert listed.stdout.strip().endswith("1 complaint(s)")
    shown = json.loads(_dew(db_url, "show", str(row.id)).stdout)
    assert (shown["reporter"], shown["reported"], shown["status"]) == (me, mate, "open")
    closed = _dew(db_url, "close", str(row.id), "--resolution", "warned")
    assert closed.returncode == 0 and f"closed #{row.id}: warned" in closed.stdout
    again = _dew(db_url, "close", str(row.id), "--resolution", "twice")
    assert again.returncode == 2 and "already closed" in again.stderr
    as_json = json.loads(
        _dew(db_url, "list", "--status", "all", "--reported", mate, "--json").stdout
    )
    assert [(c["id"], c["status"], c["resolution"]) for c in as_json] == [
        (row.id, "closed", "warned")
    ]
    assert _dew(db_url, "show", "999999999").returncode == 1
    assert _dew(db_url, "show", "nope").returncode == 2  # typer: not an integer
    assert _dew(db_url, "list", "--status", "pending").returncode == 2
    assert _dew(db_url, "close", "999999999", "--resolution", "x").returncode == 1
    assert _dew(db_url, "close", str(row.id), "--resolution", "\x07 ").returncode == 2


# --- two real clients over the socket ----------------------------------------------------------


@pytest.fixture(scope="module")
def server(pg_url: str) -> Iterator[ServerProcess]:
    with ServerProcess(pg_url, extra_env={"DEW_TALK_RATE_BURST": "20"}) as proc:
        yield proc


def two_seats(server: ServerProcess) -> tuple[str, list[Any], list[str]]:
    """An open four-seat table with two signed-in wallets seated (no match yet)."""
    (a, ta), (b, tb) = sign_in(server.url), sign_in(server.url)
    with api(server.url, ta) as host:
        created = host.post("/tables", json={"preset": "dew200", "seats": 4})
        assert created.status_code == 201, created.text
        table_id = created.json()["id"]
    with api(server.url, tb) as guest:
        joined = guest.post(f"/tables/{table_id}/join")
        assert joined.status_code == 200, joined.text
    return table_id, [a, b], [ta, tb]


async def next_of(player: Player, kind: str) -> dict[str, Any]:
    """The next message of ``kind`` (others, such as snapshots, are kept and skipped)."""
    while True:
        message = await player.recv()
        if message["type"] in (kind, "error"):
            return message


def test_a_phrase_is_seen_by_the_other_seat_and_a_spectator(server: ServerProcess) -> None:
    table_id, _, tokens = two_seats(server)

    async def scenario() -> None:
        a = await Player(server.ws_url, table_id, tokens[0]).connect()
        b = await Player(server.ws_url, table_id, tokens[1]).connect()
        watcher = await Player(server.ws_url, table_id, None).connect()
        assert (a.seat, b.seat, watcher.seat) == (0, 1, None)
        await a.send({"type": "talk", "phrase": "good_luck"})
        for player in (a, b, watcher):
            heard = await next_of(player, "talk")
            assert (heard["seat"], heard["phrase"], heard["emote"], heard["text"]) == (
                0,
                "good_luck",
                None,
                None,
            )
        await b.send({"type": "talk", "emote": "thumbs_up"})
        heard = await next_of(a, "talk")
        assert (heard["seat"], heard["emote"]) == (1, "thumbs_up")
        for player in (a, b, watcher):
            await player.close()

    asyncio.run(scenario())


def test_a_muted_seat_is_not_heard_until_unmuted(server: ServerProcess) -> None:
    table_id, _, tokens = two_seats(server)

    async def scenario() -> None:
        a = await Player(server.ws_url, table_id, tokens[0]).connect()
        b = await Player(server.ws_url, table_id, tokens[1]).connect()
        await b.send({"type": "mute", "seat": 0, "muted": True})
        assert (await next_of(b, "muted"))["seats"] == [0]
        await a.send({"type": "talk", "phrase": "hurry_up"})
        assert (await next_of(a, "talk"))["phrase"] == "hurry_up"  # relayed to every socket
        # b's own talk comes back through the same queue: had a's reached b, it came first.
        await b.send({"type": "talk", "phrase": "thanks"})
        heard = await next_of(b, "talk")
        assert (heard["seat"], heard["phrase"]) == (1, "thanks")
        await b.send({"type": "mute", "seat": 0, "muted": False})
        assert (await next_of(b, "muted"))["seats"] == []
        await a.send({"type": "talk", "phrase": "sorry"})
        heard = await next_of(b, "talk")
        assert (heard["seat"], heard["phrase"]) == (0, "sorry")
        await a.close()
        await b.close()

    asyncio.run(scenario())


def test_free_text_when_the_deployment_allows_it(pg_url: str) -> None:
    env = {"DEW_TALK_FREE_TEXT": "true", "DEW_TALK_FREE_TEXT_MAX_CHARS": "12"}
    with ServerProcess(pg_url, extra_env=env) as server:
        table_id, _, tokens = two_seats(server)

        async def scenario() -> None:
            a = await Player(server.ws_url, table_id, tokens[0]).connect()
            b = await Player(server.ws_url, table_id, tokens[1]).connect()
            await a.send({"type": "talk", "text": "bien\u202e\x1b  jugado\n"})
            heard = await next_of(b, "talk")
            assert (heard["seat"], heard["text"], heard["phrase"]) == (0, "bien jugado", None)
            assert (await next_of(a, "talk"))["text"] == "bien jugado"  # its own echo
            await a.send({"type": "talk", "text": "x" * 13, "ref": "long"})
            refused = await next_of(a, "talk")
            assert refused["type"] == "error" and refused["error"]["code"] == "invalid_talk"
            assert refused["ref"] == "long"
            await a.close()
            await b.close()

        asyncio.run(scenario())


# --- talk across server processes (the Redis bus) ----------------------------------------------


def _hosted(seated: int = 2) -> tuple[dict[str, LiveTable], Conn]:
    """One hosted table with ``seated`` wallets seated and one socket of seat 1 listening."""
    seats = [{"seat": s, "address": f"0x{s:040x}" if s < seated else None} for s in range(4)]
    lt = LiveTable(table_id="t1", table={"seat_count": 4, "spectator_delay_s": 0}, seats=seats)
    conn = Conn(seats[1]["address"])
    conn.seat = 1
    lt.watchers.add(conn)
    return {"t1": lt}, conn


def _relayed(**changes: Any) -> dict[str, Any]:
    base = {
        "table_id": "t1",
        "seat": 0,
        "phrase": "good_luck",
        "emote": None,
        "text": None,
        "at_ms": int(time.time() * 1000),
    }
    return {**base, **changes}


def test_a_relayed_talk_is_delivered_to_the_sockets_here() -> None:
    tables, conn = _hosted()
    assert talk.heard(tables, _relayed(), TalkSettings())
    (sent,) = asyncio.run(conn.drain())
    assert sent is not None
    heard = json.loads(sent)
    assert (heard["type"], heard["seat"], heard["phrase"]) == ("talk", 0, "good_luck")
    assert not talk.heard({}, _relayed(), TalkSettings())  # a table not hosted here


@pytest.mark.parametrize(
    "bad",
    [
        "good_luck",
        [1, 2],
        _relayed(extra="x"),
        _relayed(table_id=7),
        _relayed(table_id="t" * 65),
        _relayed(seat="0"),
        _relayed(seat=True),
        _relayed(seat=2),  # nobody sits there
        _relayed(seat=9),
        _relayed(phrase="<script>"),
        _relayed(phrase=None, emote="nope"),
        _relayed(emote="thumbs_up"),  # two at once
        _relayed(phrase=None, text="hola"),  # free text is off here
        _relayed(at_ms="now"),
        _relayed(at_ms=0),
    ],
)
def test_a_malformed_relayed_talk_is_dropped(bad: Any) -> None:
    tables, conn = _hosted()
    assert not talk.heard(tables, bad, TalkSettings())
    conn.push("after")  # delivery is synchronous: anything heard would be queued before it
    assert asyncio.run(conn.drain()) == ["after"]


@pytest.mark.parametrize("text", ["\x1bhola", "x" * 13, " hola ", ""])
def test_relayed_free_text_follows_the_receivers_rules(text: str) -> None:
    tables, conn = _hosted()
    settings = TalkSettings(free_text=True, free_text_max_chars=12)
    assert not talk.heard(tables, _relayed(phrase=None, text=text), settings)
    assert talk.heard(tables, _relayed(phrase=None, text="hola"), settings)
    (sent,) = asyncio.run(conn.drain())
    assert sent is not None and json.loads(sent)["text"] == "hola"


def test_talk_crosses_server_processes_over_redis(pg_url: str) -> None:
    prefix = f"dewtest-{uuid.uuid4().hex[:8]}"
    env = {"DEW_TALK_RATE_BURST": "20"}
    a = ServerProcess(pg_url, redis_url=REDIS_URL, channel_prefix=prefix, extra_env=env).start()
    b = ServerProcess(pg_url, redis_url=REDIS_URL, channel_prefix=prefix, extra_env=env).start()
    try:
        (_, ta), (_, tb) = sign_in(a.url), sign_in(b.url)
        with api(a.url, ta) as host:
            created = host.post("/tables", json={"preset": "dew200", "seats": 4})
            assert created.status_code == 201, created.text
            table_id = created.json()["id"]
        with api(b.url, tb) as guest:
            assert guest.post(f"/tables/{table_id}/join").status_code == 200

        async def scenario() -> None:
            import redis.asyncio as aioredis

            on_a = await Player(a.ws_url, table_id, ta).connect()
            on_b = await Player(b.ws_url, table_id, tb).connect()
            watcher = await Player(b.ws_url, table_id, None).connect()
            assert (on_a.seat, on_b.seat, watcher.seat) == (0, 1, None)
            # A stranger on the channel: nothing of this reaches a socket.
            bus = aioredis.from_url(REDIS_URL)
            channel = f"{prefix}:tables"
            bad = [
                {"talk": _relayed(table_id=table_id, phrase="<b>pwned</b>"), "o": "x"},
                {"talk": _relayed(table_id=table_id, seat=3), "o": "x"},
                {"talk": _relayed(table_id=table_id, phrase=None, text="hola"), "o": "x"},
                {"talk": "sorry", "o": "x"},
                {"talk": _relayed(table_id=table_id, phrase="sorry", pad="x" * 9000), "o": "x"},
            ]
            for message in bad:
                await bus.publish(channel, json.dumps(message))
            await bus.publish(channel, b"\xff not json")
            await bus.aclose()
            # A phrase said on A is heard on B, by the seat and the spectator.
            await on_a.send({"type": "talk", "phrase": "good_luck"})
            for player in (on_a, on_b, watcher):
                heard = await next_of(player, "talk")
                assert (heard["seat"], heard["phrase"], heard["text"]) == (0, "good_luck", None)
            # ... and B's answer on A, with no second copy of A's own phrase before it.
            await on_b.send({"type": "talk", "emote": "thumbs_up"})
            heard = await next_of(on_a, "talk")
            assert (heard["seat"], heard["emote"]) == (1, "thumbs_up")
            assert (await next_of(on_b, "talk"))["emote"] == "thumbs_up"  # its own echo
            assert (await next_of(watcher, "talk"))["emote"] == "thumbs_up"
            # A mute asked on B holds for talk said on A.
            await on_b.send({"type": "mute", "seat": 0, "muted": True})
            assert (await next_of(on_b, "muted"))["seats"] == [0]
            await on_a.send({"type": "talk", "phrase": "hurry_up"})
            assert (await next_of(on_a, "talk"))["phrase"] == "hurry_up"
            # Once B's spectator has it, B has delivered it to every socket it was for.
            assert (await next_of(watcher, "talk"))["phrase"] == "hurry_up"
            await on_b.send({"type": "talk", "phrase": "thanks"})
            heard = await next_of(on_b, "talk")
            assert (heard["seat"], heard["phrase"]) == (1, "thanks")
            # A hears B's thanks once, and nothing of its own twice.
            heard = await next_of(on_a, "talk")
            assert (heard["seat"], heard["phrase"]) == (1, "thanks")
            await on_a.send({"type": "ping", "ref": "end"})
            while (last := await on_a.recv())["type"] != "pong":
                assert last["type"] != "talk", last
            for player in (on_a, on_b, watcher):
                await player.close()

        asyncio.run(scenario())
    finally:
        a.stop()
        b.stop()
