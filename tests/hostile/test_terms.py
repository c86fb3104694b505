"""Hostile wallets against the terms and legal-age gate (issue 25), on a real server process on
SQLite and PostgreSQL: forged and partial resources, an old terms version, a replayed message,
one wallet's acceptance used by another, and staked play where the operator turned it off.
Each refusal is checked together with what did not change."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from eth_account import Account
from sqlalchemy import func, select

from backend.accounts.models import TermsAcceptance
from backend.db import create_db_engine, make_session_factory
from backend.tables.models import Table
from tests.accounts.signing import sign
from tests.fixtures.harness import api, sign_in
from tests.hostile.conftest import StartServer

pytestmark = pytest.mark.timeout(180)

TERMS_URI = "https://dew.example/terms"
TERMS_ENV = {"DEW_TERMS_VERSION": "2026-11", "DEW_TERMS_URI": TERMS_URI}
RESOURCE = f"{TERMS_URI}#version=2026-11"
LEGAL_AGE = "urn:dew:legal-age:confirmed"
PLAIN = "Sign in to Domino Earning World."
ACCEPTING = (
    f"{PLAIN} I accept the terms of service version 2026-11 and confirm that I am of legal age."
)


@pytest.fixture
def server(start_server: StartServer) -> Any:
    return start_server(extra_env=TERMS_ENV)


@pytest.fixture
def acceptances(db_url: str) -> Iterator[Any]:
    engine = create_db_engine(db_url)
    sessions = make_session_factory(engine)

    def count(address: str) -> int:
        with sessions() as session:
            query = select(func.count()).select_from(TermsAcceptance)
            return int(session.scalar(query.where(TermsAcceptance.address == address)) or 0)

    yield count
    engine.dispose()


def _grant(client: httpx.Client, account: Any) -> str:
    grant = client.post("/auth/nonce", json={"address": account.address, "accept_terms": True})
    assert grant.status_code == 200, grant.text
    return str(grant.json()["message"])


def _signin(client: httpx.Client, account: Any, message: str) -> httpx.Response:
    return client.post(
        "/auth/signin", json={"message": message, "signature": sign(account, message)}
    )


def _code(response: httpx.Response) -> tuple[int, str]:
    return response.status_code, response.json()["error"]["code"]


def test_forged_and_partial_terms_messages_are_refused_and_record_nothing(
    server: Any, acceptances: Any
) -> None:
    account = Account.create()
    with api(server.url) as client:
        genuine = _grant(client, account)
        forged = {
            # Someone else's terms document, same version.
            genuine.replace(RESOURCE, "https://evil.example/terms#version=2026-11"): (
                400,
                "signin_bad_resource",
            ),
            # An extra resource this server never names.
            genuine + "\n- https://evil.example/grant-all": (400, "signin_bad_resource"),
            # The terms resource twice in place of the legal-age one.
            genuine.replace(LEGAL_AGE, RESOURCE): (400, "signin_bad_resource"),
            # Legal age left out.
            genuine.replace(f"\n- {LEGAL_AGE}", ""): (400, "signin_terms_incomplete"),
            # The resources under the plain statement: the wallet never showed "I accept".
            genuine.replace(ACCEPTING, PLAIN): (400, "signin_terms_incomplete"),
            # "I accept" shown, but no resources to record.
            genuine.split("\nResources:")[0]: (400, "signin_terms_incomplete"),
        }
        for message, expected in forged.items():
            assert _code(_signin(client, account, message)) == expected, message
        assert acceptances(account.address) == 0
        # Every refusal left the nonce usable: the genuine message still signs in, once.
        accepted = _signin(client, account, genuine)
        assert accepted.status_code == 200, accepted.text
        assert accepted.json()["terms_version"] == "2026-11"
        assert acceptances(account.address) == 1


def test_an_old_terms_version_is_refused(server: Any, acceptances: Any) -> None:
    account = Account.create()
    with api(server.url) as client:
        old = (
            _grant(client, account)
            .replace("#version=2026-11", "#version=2026-10")
            .replace("version 2026-11", "version 2026-10")
        )
        assert _code(_signin(client, account, old)) == (401, "signin_terms_outdated")
    assert acceptances(account.address) == 0


def test_a_replayed_acceptance_is_refused_and_recorded_once(server: Any, acceptances: Any) -> None:
    account = Account.create()
    with api(server.url) as client:
        message = _grant(client, account)
        body = {"message": message, "signature": sign(account, message)}
        assert client.post("/auth/signin", json=body).status_code == 200
        for _ in range(3):
            assert _code(client.post("/auth/signin", json=body)) == (401, "signin_nonce_replayed")
        # Another wallet cannot take over the signed acceptance either.
        thief = Account.create()
        stolen = {"message": message, "signature": sign(thief, message)}
        assert _code(client.post("/auth/signin", json=stolen)) == (401, "signin_bad_signature")
    assert acceptances(account.address) == 1
    assert acceptances(thief.address) == 0


def test_one_wallets_acceptance_does_not_admit_another(server: Any, db_url: str) -> None:
    accepting = Account.create()
    with api(server.url) as client:
        assert _signin(client, accepting, _grant(client, accepting)).status_code == 200
    _, token = sign_in(server.url)
    engine = create_db_engine(db_url)
    try:
        with make_session_factory(engine)() as session:
            before = session.scalar(select(func.count()).select_from(Table))
        with api(server.url, token) as client:
            for body in (
                {"preset": "dew200", "earning": True},
                {"preset": "draw", "seats": 2, "earning": True, "stake": str(10**18)},
            ):
                assert _code(client.post("/tables", json=body)) == (403, "terms_required")
            queued = client.post("/matchmaking", json={"preset": "draw", "earning": True})
            assert _code(queued) == (403, "terms_required")
            assert client.get("/auth/terms").json()["accepted"] is False
        with make_session_factory(engine)() as session:
            assert session.scalar(select(func.count()).select_from(Table)) == before
    finally:
        engine.dispose()


def test_staked_play_turned_off_by_the_operator(start_server: StartServer) -> None:
    server = start_server(extra_env={**TERMS_ENV, "DEW_TABLES_STAKED_PLAY": "false"})
    account = Account.create()
    with api(server.url) as client:
        tokens = _signin(client, account, _grant(client, account)).json()
    with api(server.url, tokens["access_token"]) as client:
        staked = {"preset": "draw", "seats": 2, "earning": True, "stake": str(10**18)}
        assert _code(client.post("/tables", json=staked)) == (403, "staked_play_disabled")
        assert client.get("/auth/terms").json()["staked_play"] is False
        free = client.post("/tables", json={"preset": "draw", "seats": 2, "kind": "practice"})
        assert free.status_code == 201, free.text
