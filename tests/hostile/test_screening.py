"""Hostile callers of the screening routes (``/economy/screening``), against a real server
process on SQLite and PostgreSQL with a real anvil deployment: anonymous callers, a
non-screener deciding, double and oversized applications, deciding an application already
closed, and replayed approvals. Every refusal is checked to change nothing: the applications
are read from the database and the screening from the chain."""

from __future__ import annotations

from typing import Any

import pytest
from eth_account import Account
from sqlalchemy import select

from backend.db import create_db_engine, make_session_factory
from backend.economy.models import ScreeningApplication
from backend.economy.scholarships import screening
from backend.economy.scholarships.transactions import ScholarshipTxBuilder
from tests.economy.chain_helpers import send
from tests.tables.harness import api, sign_in

APPS = "/economy/screening/applications"


@pytest.fixture(scope="module")
def books(db_url):
    engine = create_db_engine(db_url)
    yield make_session_factory(engine)
    engine.dispose()


@pytest.fixture
def server(start_server, deployment):
    env = {
        "DEW_CHAIN_RPC_URL": deployment.anvil.rpc_url,
        "DEW_CHAIN_MANIFEST_PATH": str(deployment.manifest_path),
        "DEW_CHAIN_CHAIN_ID": str(deployment.w3.eth.chain_id),
        "DEW_ECONOMY_CONFIRMATIONS": "1",
        "DEW_HTTP_TRANSACTIONS_PER_IP": "1000/minute",
    }
    return start_server(extra_env=env)


def _client(server, account: Any = None) -> tuple[str, Any]:
    account, token = sign_in(server.url, account)
    return account.address, api(server.url, token)


def _apps(books, applicant: str) -> list[tuple[str, str | None, str | None]]:
    with books() as session:
        return [
            (a.status, a.reason, a.tx_hash)
            for a in session.scalars(
                select(ScreeningApplication)
                .where(ScreeningApplication.applicant == applicant)
                .order_by(ScreeningApplication.id)
            )
        ]


def _code(response) -> str:
    return str(response.json()["error"]["code"])


def test_anonymous_and_forged_callers_are_refused(server, books):
    anonymous = api(server.url)
    forged = api(server.url, "not-a-token")
    for client in (anonymous, forged):
        assert client.post(APPS, json={"statement": "hi"}).status_code == 401
        assert client.get(f"{APPS}/mine").status_code == 401
        assert client.get("/economy/screening/queue").status_code == 401
        assert client.post(f"{APPS}/1/reject", json={"reason": "x"}).status_code == 401
        assert client.post(f"{APPS}/1/approve", json={}).status_code == 401
        assert (
            client.post(f"{APPS}/1/receipt", json={"tx_hash": "0x" + "1" * 64}).status_code == 401
        )


def test_bad_oversized_and_double_applications_change_nothing(server, books):
    owner, client = _client(server)
    for body in (
        {},
        {"statement": ""},
        {"statement": "   "},
        {"statement": "x" * 2_001},
        {"statement": "a\u202eb"},
        {"statement": 42},
        {"statement": "ok", "applicant": Account.create().address},  # no acting for others
    ):
        response = client.post(APPS, json=body)
        assert response.status_code == 422, (body, response.text)
    huge = client.post(APPS, content=b'{"statement": "' + b"x" * 100_000 + b'"}')
    assert huge.status_code in (413, 422)
    assert _apps(books, owner) == []
    assert client.get(f"{APPS}/mine").status_code == 404

    first = client.post(APPS, json={"statement": "I own avatars 1 and 2."})
    assert first.status_code == 201 and first.json()["applicant"] == owner
    second = client.post(APPS, json={"statement": "again"})
    assert (second.status_code, _code(second)) == (409, "application_open")
    assert _apps(books, owner) == [("pending", None, None)]


def test_a_non_screener_cannot_see_the_queue_or_decide(server, books):
    owner, owner_client = _client(server)
    app_id = owner_client.post(APPS, json={"statement": "screen me"}).json()["id"]
    _stranger, stranger = _client(server)
    for client in (stranger, owner_client):  # nor the applicant on their own application
        queue = client.get("/economy/screening/queue")
        assert (queue.status_code, _code(queue)) == (403, "not_screener")
        reject = client.post(f"{APPS}/{app_id}/reject", json={"reason": "no"})
        assert (reject.status_code, _code(reject)) == (403, "not_screener")
        approve = client.post(f"{APPS}/{app_id}/approve", json={})
        assert (approve.status_code, _code(approve)) == (403, "not_screener")
    assert _apps(books, owner) == [("pending", None, None)]


def test_deciding_a_closed_or_missing_application_is_refused(server, books, deployment):
    owner, owner_client = _client(server)
    app_id = owner_client.post(APPS, json={"statement": "please"}).json()["id"]
    _screener, screener = _client(server, Account.from_key(deployment.operator_key))
    assert any(a["id"] == app_id for a in screener.get("/economy/screening/queue").json())
    for bad in ({}, {"reason": ""}, {"reason": "r" * 501}, {"reason": "a\x00b"}):
        assert screener.post(f"{APPS}/{app_id}/reject", json=bad).status_code == 422
    done = screener.post(f"{APPS}/{app_id}/reject", json={"reason": "tell us more"})
    assert done.status_code == 200 and done.json()["status"] == "rejected"
    again = screener.post(f"{APPS}/{app_id}/reject", json={"reason": "twice"})
    assert (again.status_code, _code(again)) == (409, "application_closed")
    approve = screener.post(f"{APPS}/{app_id}/approve", json={})
    assert (approve.status_code, _code(approve)) == (409, "application_closed")
    for missing in (2**31 - 1, 0, -1, "x", 2**40):
        response = screener.post(f"{APPS}/{missing}/reject", json={"reason": "r"})
        assert response.status_code in (404, 422)
    assert _apps(books, owner) == [("rejected", "tell us more", None)]
    mine = owner_client.get(f"{APPS}/mine").json()
    assert (mine["status"], mine["reason"]) == ("rejected", "tell us more")


def test_approval_follows_the_chain_and_replays_are_refused(
    server, books, deployment, chain_snapshot
):
    owner_account, other_account = Account.create(), Account.create()
    owner, owner_client = _client(server, owner_account)
    other, other_client = _client(server, other_account)
    app_id = owner_client.post(APPS, json={"statement": "screen me"}).json()["id"]
    other_id = other_client.post(APPS, json={"statement": "me too"}).json()["id"]
    screener_address, screener = _client(server, Account.from_key(deployment.operator_key))

    built = screener.post(f"{APPS}/{app_id}/approve", json={})
    assert built.status_code == 200
    [tx] = built.json()["transactions"]
    assert (tx["from"], tx["to"]) == (screener_address, deployment.contracts.registry.address)
    # Building it changes nothing: only the chain approves.
    assert _apps(books, owner) == [("pending", None, None)]

    # A hash that was never mined, and a receipt that approves someone else.
    fake = owner_client.post(f"{APPS}/{app_id}/receipt", json={"tx_hash": "0x" + "ab" * 32})
    assert (fake.status_code, _code(fake)) == (409, "approval_not_on_chain")
    builder = ScholarshipTxBuilder(deployment.contracts)
    receipt = send(
        deployment.w3,
        deployment.operator_key,
        builder.screen_owner(screener=deployment.operator, owner=owner),
    )
    tx_hash = "0x" + bytes(receipt["transactionHash"]).hex()
    # A third wallet cannot report another's approval, nor learn the application exists.
    stranger = other_client.post(f"{APPS}/{app_id}/receipt", json={"tx_hash": tx_hash})
    assert (stranger.status_code, _code(stranger)) == (404, "application_not_found")
    assert _apps(books, owner) == [("pending", None, None)]
    borrowed = other_client.post(f"{APPS}/{other_id}/receipt", json={"tx_hash": tx_hash})
    assert (borrowed.status_code, _code(borrowed)) == (409, "approval_not_on_chain")
    assert [s for s, _, _ in _apps(books, other)] == ["pending"]

    done = owner_client.post(f"{APPS}/{app_id}/receipt", json={"tx_hash": tx_hash})
    assert done.status_code == 200, done.text
    assert (done.json()["status"], done.json()["decided_by"]) == ("approved", screener_address)
    repeat = owner_client.post(f"{APPS}/{app_id}/receipt", json={"tx_hash": tx_hash})
    assert repeat.status_code == 200 and repeat.json()["status"] == "approved"
    # Approved, it cannot be rejected, and no new application opens while screened on chain
    # (once the indexer mirrors it, apply answers already_screened; before, one open at most).
    late = screener.post(f"{APPS}/{app_id}/reject", json={"reason": "too late"})
    assert (late.status_code, _code(late)) == (409, "application_closed")

    # Withdrawn on chain, the owner reapplies; replaying the old approval proves nothing.
    send(
        deployment.w3,
        deployment.operator_key,
        builder.screen_owner(screener=deployment.operator, owner=owner, approved=False),
    )
    with books.begin() as session:  # what the indexer does with the withdrawal
        screening.on_owner_screened(
            session, owner=owner, approved=False, screener=screener_address, tx_hash="0x0", block=1
        )
    new_id = owner_client.post(APPS, json={"statement": "back again"}).json()["id"]
    replay = owner_client.post(f"{APPS}/{new_id}/receipt", json={"tx_hash": tx_hash})
    assert (replay.status_code, _code(replay)) == (409, "approval_not_on_chain")
    assert [s for s, _, _ in _apps(books, owner)] == ["withdrawn", "pending"]
    assert not deployment.contracts.registry.functions.isScreened(owner).call()


def test_a_wallet_flooding_applications_is_capped_per_day(server, books, deployment):
    owner, owner_client = _client(server)
    _screener, screener = _client(server, Account.from_key(deployment.operator_key))
    for n in range(3):  # DEW_ECONOMY_SCREENING_APPLICATIONS_PER_WALLET_PER_DAY
        app = owner_client.post(APPS, json={"statement": f"try {n}"})
        assert app.status_code == 201
        rejected = screener.post(f"{APPS}/{app.json()['id']}/reject", json={"reason": "no"})
        assert rejected.status_code == 200
    flood = owner_client.post(APPS, json={"statement": "once more"})
    assert (flood.status_code, _code(flood)) == (429, "too_many_applications")
    assert [s for s, _, _ in _apps(books, owner)] == ["rejected"] * 3
