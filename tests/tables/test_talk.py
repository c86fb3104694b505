"""Table talk and reports: the catalogue checks, the complaints service, `dew complaints`, and
two real clients talking over the play socket of a real server (a phrase seen by the other
seat and by a spectator, mute, free text when a deployment allows it)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from eth_account import Account
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from backend.config import TalkSettings
from backend.tables import complaints, talk
from backend.tables import exceptions as exc
from backend.tables.complaints import Complaint
from backend.tables.models import Match, Table, TableSeat
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
