"""Hidden text in what people write: every free text goes through one cleaner
(``backend.kit.text.clean_text``), so none of them keeps an invisible or direction-changing
character (docs/security.md, "Free text").

The characters are the ones a hostile review found in screening statements: a zero-width
space, a right-to-left mark, the Arabic letter mark, a byte order mark, a soft hyphen, a
line separator, and the tag characters U+E0000..U+E007F, which can spell a whole sentence
that no page shows. Each entry point is tried with all of them, on SQLite and PostgreSQL.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from eth_account import Account
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from backend.centers import operator as centers_operator
from backend.competitions import exceptions as competitions_exc
from backend.competitions import service as competitions
from backend.competitions.models import Tournament
from backend.db import create_db_engine, make_session_factory
from backend.db.base import utcnow
from backend.economy.models import ScreeningApplication
from backend.kit.text import clean_text
from backend.markets import operator as markets_operator
from backend.markets.models import CatalogEntry
from backend.tables.moderation.complaints import Complaint
from tests.tables.harness import Player, ServerProcess, api, sign_in

pytestmark = pytest.mark.timeout(300)

# "hidden" spelled in tag characters: invisible on every page, readable by a script.
TAGS = "".join(chr(0xE0000 + ord(c)) for c in "hidden") + "\U000e0000\U000e0001\U000e007f"
INVISIBLE = "\u200b\u200f\u061c\ufeff\u00ad\u2028" + TAGS


def _hides_nothing(text: str) -> bool:
    return not any(ch in text for ch in INVISIBLE)


@pytest.fixture
def sessions(db_url: str) -> Iterator[sessionmaker[Session]]:
    engine = create_db_engine(db_url)
    yield make_session_factory(engine)
    engine.dispose()


def test_the_cleaner_drops_every_invisible_character_and_keeps_words_and_emoji() -> None:
    for ch in INVISIBLE:
        assert clean_text(f"a{ch}b") in ("ab", "a b"), hex(ord(ch))
        assert clean_text(f"a{ch}b", lines=True) in ("ab", "a\nb"), hex(ord(ch))
    assert clean_text(f"good {INVISIBLE}game 👍🏽") == "good game 👍🏽"
    assert clean_text("one\r\ntwo\u2029three\tfour", lines=True) == "one\ntwo\nthree\tfour"


def test_screening_statements_with_hidden_characters_are_refused(  # type: ignore[no-untyped-def]
    start_server, sessions, deployment
) -> None:
    """Before, the statement's own check knew only C0 controls and the bidi overrides: all
    of these were stored and shown to the screener."""
    server: ServerProcess = start_server(
        extra_env={
            "DEW_CHAIN_RPC_URL": deployment.anvil.rpc_url,
            "DEW_CHAIN_MANIFEST_PATH": str(deployment.manifest_path),
            "DEW_CHAIN_CHAIN_ID": str(deployment.w3.eth.chain_id),
        }
    )
    owner, token = sign_in(server.url)
    with api(server.url, token) as client:
        for ch in INVISIBLE:
            statement = f"I own avatars 1{ch} and 2."
            refused = client.post("/economy/screening/applications", json={"statement": statement})
            assert refused.status_code == 422, (hex(ord(ch)), refused.text)
            assert "invisible" in refused.json()["error"]["message"]
        with sessions() as session:
            rows = session.scalars(
                select(ScreeningApplication).where(ScreeningApplication.applicant == owner.address)
            ).all()
        assert rows == []
        # Paragraphs (CRLF from a form, tabs) are what a statement may hold.
        ok = client.post(
            "/economy/screening/applications", json={"statement": "I own 1.\r\n\tAnd 2."}
        )
        assert ok.status_code == 201, ok.text
        assert ok.json()["statement"] == "I own 1.\n\tAnd 2."


def _table_of_two(server: ServerProcess, host: str, guest: str) -> str:
    with api(server.url, host) as client:
        created = client.post("/tables", json={"preset": "dew200", "seats": 4})
        assert created.status_code == 201, created.text
        table_id = str(created.json()["id"])
    with api(server.url, guest) as client:
        assert client.post(f"/tables/{table_id}/join").status_code == 200
    return table_id


def test_talk_and_report_notes_arrive_without_hidden_characters(start_server, sessions) -> None:  # type: ignore[no-untyped-def]
    server: ServerProcess = start_server(extra_env={"DEW_TALK_FREE_TEXT": "true"})
    (a, ta), (b, tb) = sign_in(server.url), sign_in(server.url)
    table_id = _table_of_two(server, ta, tb)

    async def talk() -> dict[str, Any]:
        speaker = await Player(server.ws_url, table_id, ta).connect()
        hearer = await Player(server.ws_url, table_id, tb).connect()
        await speaker.send({"type": "talk", "text": f"well{INVISIBLE} played"})
        while True:
            heard = await hearer.recv()
            if heard["type"] in ("talk", "error"):
                break
        await speaker.close()
        await hearer.close()
        return heard

    heard = asyncio.run(talk())
    assert heard["type"] == "talk" and heard["text"] == "well played", heard

    with api(server.url, tb) as client:
        note = f"sp{INVISIBLE}am"
        body = {"table_id": table_id, "address": a.address, "reason": "spam", "note": note}
        filed = client.post("/complaints", json=body)
    assert filed.status_code == 201, filed.text
    with sessions() as session:
        note = session.scalar(select(Complaint.note).where(Complaint.reporter == b.address))
    assert note is not None and _hides_nothing(note) and note.replace(" ", "") == "spam"
    assert _hides_nothing(json.dumps(filed.json(), ensure_ascii=False))


def test_tournament_center_and_shop_names_are_cleaned(sessions) -> None:  # type: ignore[no-untyped-def]
    """A center's host names its Campeonatos (free text a player writes); the operator names
    centers and shop items, which every player's page shows. Before, a tournament kept its
    tag characters, so "Cup" and "Cup" plus a hidden sentence were two tournaments."""
    name = f"Cup {uuid.uuid4().hex[:6]}"
    spec = competitions.TournamentSpec(
        name=name + INVISIBLE, preset="draw", starts_at=utcnow() + timedelta(hours=1)
    )
    with sessions() as session:
        created = competitions.create_tournament(session=session, spec=spec)
        assert created.name == name
    with sessions() as session:
        assert session.scalar(select(Tournament.name).where(Tournament.id == created.id)) == name
        # The same name with a hidden sentence is the same name.
        again = competitions.TournamentSpec(
            name=name + TAGS, preset="draw", starts_at=utcnow() + timedelta(hours=1)
        )
        with pytest.raises(competitions_exc.InvalidTournament, match="already named"):
            competitions.create_tournament(session=session, spec=again)
        with pytest.raises(competitions_exc.InvalidTournament, match=r"1\.\.64"):
            competitions.create_tournament(
                session=session,
                spec=competitions.TournamentSpec(
                    name=INVISIBLE, preset="draw", starts_at=utcnow() + timedelta(hours=1)
                ),
            )

    described = centers_operator.describe(
        to=Account.create().address,
        name=f"Club{INVISIBLE} Uno",
        country="AR",
        city=f"Rosario{TAGS}",
        lat_e2=-3295,
        lon_e2=-6064,
        capacity=3,
    )
    assert (described["name"], described["city"]) == ("Club Uno", "Rosario")

    with sessions() as session:
        item_id = int(uuid.uuid4().int % 10**9) + 1
        markets_operator.queue_listing(
            session=session,
            item_kind="accessory",
            item=Account.create().address,
            item_id=item_id,
            price=10**18,
            supply=5,
            vip_term_s=0,
            name=f"Hat{INVISIBLE}",
            max_supply=10,
            idempotency_key=f"free-text-{item_id}",
        )
        session.commit()
    with sessions() as session:
        entry = session.get(CatalogEntry, ("accessory", str(item_id)))
        assert entry is not None and entry.name == "Hat"
