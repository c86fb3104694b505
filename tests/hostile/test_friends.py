"""Hostile wallets against friends and private messages, through a real server process and
the Python client (``DewClient``), on SQLite and PostgreSQL:

- a message to a wallet that is not a friend, or to one that blocked the sender (or that
  the sender blocked), is refused and writes nothing; so are a request and a table
  invitation across a block, and the report of a message by anyone but its recipient;
- a script cannot flood: twelve parallel messages pass a cap of four a minute exactly four
  times, and six parallel requests pass a cap of three a day exactly three times.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any

import pytest
from eth_account import Account
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from backend.accounts.models import Account as SignedIn
from backend.friends.models import FriendBlock, FriendMessage, Friendship
from backend.protocol.client import DewClient, DewClientError
from backend.tables.models import TableInvitation
from backend.tables.moderation.complaints import Complaint
from tests.accounts.signing import wallet_of
from tests.fixtures.harness import ServerProcess

pytestmark = pytest.mark.timeout(300)

ENV = {
    "DEW_TALK_FRIEND_MESSAGES_PER_MINUTE": "4",
    "DEW_TALK_FRIEND_REQUESTS_PER_DAY": "3",
}
MODELS = (FriendMessage, Friendship, FriendBlock, TableInvitation, Complaint)


@pytest.fixture(scope="module")
def server(db_url: str) -> Iterator[ServerProcess]:
    """One server for the module (each test uses wallets of its own)."""
    with ServerProcess(db_url, extra_env=ENV) as process:
        yield process


@contextmanager
def _client(server: ServerProcess, account: Any = None) -> Iterator[DewClient]:
    with DewClient(server.url, timeout_s=20) as client:
        client.sign_in(wallet_of(account or Account.create()))
        yield client


def _refused(call: Callable[[], Any]) -> tuple[int, str]:
    with pytest.raises(DewClientError) as refused:
        call()
    return refused.value.status, refused.value.code


def _counts(books: sessionmaker[Session]) -> list[int]:
    with books() as session:
        return [int(session.scalar(select(func.count()).select_from(m)) or 0) for m in MODELS]


def test_a_message_to_a_stranger_or_across_a_block_is_refused_and_changes_nothing(  # type: ignore[no-untyped-def]
    server, books
) -> None:
    with _client(server) as ana, _client(server) as bea, _client(server) as eve:
        assert ana.address and bea.address and eve.address
        before = _counts(books)
        assert _refused(lambda: eve.write(ana.address, "hello stranger")) == (403, "not_friends")
        assert _refused(lambda: eve.write(eve.address, "me")) == (403, "not_friends")
        # Junk in the path is refused before any lookup.
        junk = eve.http.post("/friends/0xZZ/messages", json={"text": "x"}, headers=eve.headers)
        assert junk.status_code == 422
        assert _counts(books) == before

        ana.befriend(bea.address)
        bea.accept_friend(ana.address)
        said = ana.write(bea.address, "hola")
        table = ana.create_table(preset="draw", seats=2, visibility="private")
        # Only its recipient reports a message.
        for stranger in (ana, eve):
            refusal = _refused(lambda c=stranger: c.report_message(said["id"], "spam"))
            assert refusal == (404, "friend_not_found")
        bea.block(ana.address)
        assert bea.friends()["friends"] == [] and ana.friends()["friends"] == []
        before = _counts(books)
        across = [
            lambda: ana.write(bea.address, "are you there?"),
            lambda: bea.write(ana.address, "nor me to you"),
            lambda: ana.befriend(bea.address),
            lambda: bea.befriend(ana.address),
            lambda: ana.invite_friend(bea.address, table["id"]),
            lambda: ana.request(
                "invite", json_body={"addresses": [bea.address]}, table_id=table["id"]
            ),
        ]
        for call in across:
            assert _refused(call) == (403, "not_reachable")
        assert _counts(books) == before
        assert (
            bea.invitations() == [] and ana.messages(bea.address)["messages"][0]["body"] == "hola"
        )


def test_a_script_cannot_flood_messages_or_requests(  # type: ignore[no-untyped-def]
    server, books
) -> None:
    with _client(server) as ana, _client(server) as bea:
        assert ana.address and bea.address
        ana.befriend(bea.address)
        bea.accept_friend(ana.address)

        def write(n: int) -> int:
            with DewClient(server.url, timeout_s=20) as script:
                script.token = ana.token
                try:
                    script.write(str(bea.address), f"spam {n}")
                    return 201
                except DewClientError as error:
                    return error.status

        with ThreadPoolExecutor(max_workers=12) as pool:
            codes = list(pool.map(write, range(12)))
        assert sorted(codes) == [201] * 4 + [429] * 8, codes
        with books() as session:
            sent = select(func.count()).where(FriendMessage.sender == ana.address)
            assert session.scalar(sent) == 4
        # Six wallets that signed in; a script asks them all at once. One request was sent
        # already today (to bea), so two more pass the cap of three.
        others = [Account.create().address for _ in range(6)]
        with books.begin() as session:
            session.add_all(SignedIn(address=a) for a in others)

        def ask(address: str) -> int:
            with DewClient(server.url, timeout_s=20) as script:
                script.token = ana.token
                try:
                    script.befriend(address)
                    return 201
                except DewClientError as error:
                    return error.status

        with ThreadPoolExecutor(max_workers=6) as pool:
            codes = list(pool.map(ask, others))
        assert sorted(codes) == [201] * 2 + [429] * 4, codes
        assert len(ana.friends()["outgoing"]) == 2
        assert json.dumps(bea.messages(ana.address, limit=10)).count("spam") == 4


def test_a_page_cursor_past_the_id_column_is_refused_not_a_server_error(  # type: ignore[no-untyped-def]
    server,
) -> None:
    """The API fuzzer's case: ``before`` beyond the messages' 32-bit ids answered 500 on
    PostgreSQL; it is now refused (422) on both databases, and the largest id still pages."""
    with _client(server) as ana, _client(server) as bea:
        path = f"/friends/{bea.address}/messages"
        for before in (2**31, 622_763_411_164, 2**63 - 1):
            answer = ana.http.get(
                path, params={"before": before, "limit": 500}, headers=ana.headers
            )
            assert answer.status_code == 422, (before, answer.text)
        answer = ana.http.get(path, params={"before": 2**31 - 1}, headers=ana.headers)
        assert answer.status_code == 200 and answer.json()["messages"] == []
