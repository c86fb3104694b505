"""Display names against a real server process, on SQLite and PostgreSQL: every refusal is
a clear 4xx with its own code and changes nothing; two names that read the same (case,
accents, separators, look-alike letters of other alphabets) are one name, whatever the race;
a name changes at most once per interval."""

from __future__ import annotations

import threading
from typing import Any

import httpx
from sqlalchemy import func, select

from backend.accounts.models import DisplayName
from backend.db import create_db_engine, make_session_factory
from tests.fixtures.harness import api, sign_in
from tests.hostile.conftest import StartServer
from tests.hostile.test_guests import _guest

CYRILLIC_A, CYRILLIC_O, GREEK_O = "\u0430", "\u043e", "\u03bf"
CYRILLIC_SOFT_SIGN, CYRILLIC_PALOCHKA = "\u044c", "\u04cf"


def _names(db_url: str) -> dict[str, str]:
    engine = create_db_engine(db_url)
    try:
        with make_session_factory(engine)() as session:
            return {r.address: r.name for r in session.scalars(select(DisplayName))}
    finally:
        engine.dispose()


def _holders(db_url: str, key: str) -> int:
    engine = create_db_engine(db_url)
    try:
        with make_session_factory(engine)() as session:
            query = select(func.count()).where(DisplayName.name_key == key)
            return int(session.scalar(query) or 0)
    finally:
        engine.dispose()


def _code(response: httpx.Response) -> tuple[int, str]:
    return response.status_code, response.json()["error"]["code"]


def _put(client: httpx.Client, name: Any) -> httpx.Response:
    return client.put("/names/me", json={"name": name})


def test_a_name_is_set_shown_and_looked_up_for_wallets_and_guests(
    start_server: StartServer, db_url: str
) -> None:
    server = start_server()
    wallet, token = sign_in(server.url)
    guest = _guest(server.url)
    with api(server.url, token) as me, api(server.url, guest["access_token"]) as visitor:
        assert me.get("/names/me").json()["name"] is None
        set_ = _put(me, "  Ana   María ")
        assert set_.status_code == 200, set_.text
        assert set_.json()["name"] == "Ana María"  # spaces collapsed, nothing else changed
        assert set_.json()["next_change_at"] is not None
        assert _put(visitor, "Tomás").json()["name"] == "Tomás"
    with api(server.url) as anonymous:
        found = anonymous.get(
            "/names", params={"address": [wallet.address, guest["address"], "0x" + "1" * 40]}
        )
        assert found.status_code == 200, found.text
        assert found.json()["names"] == {wallet.address: "Ana María", guest["address"]: "Tomás"}
        assert _code(anonymous.get("/names", params={"address": "not-an-address"})) == (
            422,
            "invalid_request",
        )
        too_many = anonymous.get("/names", params={"address": [wallet.address] * 9})
        assert too_many.status_code == 422, too_many.text
        assert anonymous.put("/names/me", json={"name": "Nobody"}).status_code == 401


def test_hostile_names_are_refused_with_their_reason_and_change_nothing(
    start_server: StartServer, db_url: str
) -> None:
    server = start_server()
    _, first = sign_in(server.url)
    _, second = sign_in(server.url)
    with api(server.url, first) as one, api(server.url, second) as other:
        assert _put(one, "Pablo").status_code == 200
        before = _names(db_url)
        refusals = {
            # the same name, however it is cased, accented or separated
            "PABLO": (409, "name_taken"),
            "pablo": (409, "name_taken"),
            "Pábló": (409, "name_taken"),
            "P.a_b-l o": (409, "name_taken"),
            # look-alikes: the digit, capital I for l, another alphabet's letters
            "Pab1o": (409, "name_taken"),
            "PabIo": (409, "name_taken"),
            f"P{CYRILLIC_A}bl{CYRILLIC_O}": (422, "name_scripts"),
            f"P{GREEK_O}blo": (422, "name_scripts"),
            # wholly Cyrillic, drawn like the Latin name
            f"\u0420{CYRILLIC_A}{CYRILLIC_SOFT_SIGN}{CYRILLIC_PALOCHKA}{CYRILLIC_O}": (
                409,
                "name_taken",
            ),
            "\uff30\uff41\uff42\uff4c\uff4f": (422, "name_characters"),  # full-width
            # markup, hidden and control characters
            "<b>Pablo</b>": (422, "name_characters"),
            "<script>": (422, "name_characters"),
            "Ana&amp;": (422, "name_characters"),
            "Pa\u200bblo": (422, "name_characters"),
            "Ana\u202eevil": (422, "name_characters"),
            "Ana\x1b[31m": (422, "name_characters"),
            "Ana 👍": (422, "name_characters"),
            "12345": (422, "name_characters"),
            # too short, too long, far too long
            "Al": (422, "name_length"),
            "A" * 21: (422, "name_length"),
            # what a seat shows of its own, or an address
            "Player 2": (422, "name_reserved"),
            "Jugador 1": (422, "name_reserved"),
            "B0t": (422, "name_reserved"),
            "0xAbC123": (422, "name_reserved"),
        }
        for name, expected in refusals.items():
            assert _code(_put(other, name)) == expected, name
        assert other.put("/names/me", json={"name": "x" * 201}).status_code == 422
        assert other.put("/names/me", json={"name": 12}).status_code == 422
        assert other.put("/names/me", json={}).status_code == 422
        assert _names(db_url) == before
        assert other.get("/names/me").json()["name"] is None


def test_a_name_changes_once_per_interval_and_the_same_name_again_is_no_change(
    start_server: StartServer, db_url: str
) -> None:
    server = start_server(extra_env={"DEW_AUTH_NAME_CHANGE_INTERVAL_S": "3600"})
    _, token = sign_in(server.url)
    with api(server.url, token) as me:
        first = _put(me, "Lucía")
        assert first.status_code == 200
        # The same name again is no change, and does not start the interval again.
        again = _put(me, "Lucía")
        assert again.status_code == 200
        assert again.json()["changed_at"] == first.json()["changed_at"]
        assert _code(_put(me, "Lucía B")) == (429, "name_change_too_soon")
        assert _code(_put(me, "LUCÍA")) == (429, "name_change_too_soon")
        assert me.get("/names/me").json()["name"] == "Lucía"


def test_two_wallets_racing_for_one_name_get_one_name(
    start_server: StartServer, db_url: str
) -> None:
    """The unique key decides, not a check before the insert: of eight wallets asking at
    once for names that read the same, one gets it and the others a 409."""
    server = start_server()
    tokens = [sign_in(server.url)[1] for _ in range(8)]
    spellings = ["Rosa", "ROSA", "rosa", "R0sa", "Rósa", "R.osa", "ro sa", "RoSa"]
    results: list[tuple[int, str]] = []
    barrier = threading.Barrier(len(tokens))

    def claim(token: str, name: str) -> None:
        with api(server.url, token) as client:
            barrier.wait()
            response = _put(client, name)
            results.append((200, "ok") if response.status_code == 200 else _code(response))

    threads = [
        threading.Thread(target=claim, args=pair) for pair in zip(tokens, spellings, strict=True)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results).count((200, "ok")) == 1, results
    assert results.count((409, "name_taken")) == len(tokens) - 1, results
    assert _holders(db_url, "rosa") == 1
