"""Terms and legal age (issue 25): a sign-in that accepts the current terms records it; earning
and staked play are refused without it (``terms_required``) and where staked play is turned
off (``staked_play_disabled``), changing nothing; practice play needs none of it. On SQLite
and PostgreSQL, through the real app with real eth-account signatures."""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from eth_account import Account
from fastapi.testclient import TestClient
from siwe import SiweMessage
from sqlalchemy import func, select

from backend.accounts import exceptions as accounts_exc
from backend.accounts import terms
from backend.accounts.models import TermsAcceptance
from backend.api.app import create_app
from backend.competitions import service as competitions
from backend.competitions.models import Entrant
from backend.config import (
    AuthSettings,
    ChainSettings,
    DatabaseSettings,
    ServerSettings,
    Settings,
    TablesSettings,
    TermsSettings,
)
from backend.db.base import utcnow
from backend.tables import play
from backend.tables.models import MatchmakingTicket, Table, TableSeat
from tests.accounts.signing import sign, sign_in

TERMS_URI = "https://dew.example/terms"


def _settings(db_url: str, version: str | None = "2026-11", staked_play: bool = True) -> Settings:
    return Settings(
        db=DatabaseSettings(url=db_url),
        auth=AuthSettings(),
        chain=ChainSettings(),
        server=ServerSettings(),
        tables=TablesSettings(staked_play=staked_play),
        terms=TermsSettings(version=version, uri=TERMS_URI if version else None),
    )


@pytest.fixture(scope="module")
def app(db_url: str) -> Any:
    return create_app(_settings(db_url))


@pytest.fixture
def client(app: Any) -> Iterator[TestClient]:
    with TestClient(app) as test_client:
        yield test_client


def _accept(client: TestClient, account: Any) -> dict[str, Any]:
    """Sign in accepting the terms, as the web client's terms gate does."""
    grant = client.post("/auth/nonce", json={"address": account.address, "accept_terms": True})
    assert grant.status_code == 200, grant.text
    message = grant.json()["message"]
    response = client.post(
        "/auth/signin", json={"message": message, "signature": sign(account, message)}
    )
    assert response.status_code == 200, response.text
    return {**response.json(), "message": message}


def _auth(tokens: dict[str, Any]) -> dict[str, str]:
    return {"Authorization": f"Bearer {tokens['access_token']}"}


def _count(app: Any, model: Any, **where: Any) -> int:
    with app.state.session_factory() as session:
        query = select(func.count()).select_from(model)
        for name, value in where.items():
            query = query.where(getattr(model, name) == value)
        return int(session.scalar(query) or 0)


def _refused(response: Any, status: int, code: str) -> None:
    assert response.status_code == status, response.text
    assert response.json()["error"]["code"] == code
    assert response.json()["error"]["message"]


def test_the_nonce_for_accepting_is_an_eip4361_message_siwe_reads(client: TestClient) -> None:
    account = Account.create()
    grant = client.post("/auth/nonce", json={"address": account.address, "accept_terms": True})
    body = grant.json()
    assert body["resources"] == [f"{TERMS_URI}#version=2026-11", "urn:dew:legal-age:confirmed"]
    parsed = SiweMessage.from_message(body["message"], abnf=True)
    assert list(parsed.resources or []) == body["resources"]
    assert parsed.statement == (
        "Sign in to Domino Earning World. I accept the terms of service version 2026-11 "
        "and confirm that I am of legal age."
    )
    plain = client.post("/auth/nonce", json={"address": account.address}).json()
    assert plain["resources"] == [] and "Resources:" not in plain["message"]


def test_signing_in_with_the_terms_records_the_acceptance(app: Any, client: TestClient) -> None:
    account = Account.create()
    before = utcnow()
    tokens = _accept(client, account)
    assert tokens["terms_version"] == "2026-11"
    with app.state.session_factory() as session:
        rows = session.scalars(
            select(TermsAcceptance).where(TermsAcceptance.address == account.address)
        ).all()
    assert len(rows) == 1
    row = rows[0]
    assert row.terms_version == "2026-11" and row.legal_age_confirmed is True
    assert row.message_hash == hashlib.sha256(tokens["message"].encode()).hexdigest()
    accepted_at = (
        row.accepted_at if row.accepted_at.tzinfo else row.accepted_at.replace(tzinfo=before.tzinfo)
    )
    assert before - timedelta(seconds=1) <= accepted_at <= utcnow()
    status = client.get("/auth/terms", headers=_auth(tokens)).json()
    assert status["accepted"] is True and status["required"] is True
    assert status["version"] == "2026-11" and status["uri"] == TERMS_URI
    assert status["staked_play"] is True


def test_a_plain_sign_in_still_plays_practice(app: Any, client: TestClient) -> None:
    account = Account.create()
    tokens = sign_in(client, account)
    assert tokens["terms_version"] is None
    assert _count(app, TermsAcceptance, address=account.address) == 0
    assert client.get("/auth/terms", headers=_auth(tokens)).json()["accepted"] is False
    practice = client.post(
        "/tables", json={"preset": "draw", "seats": 2, "kind": "practice"}, headers=_auth(tokens)
    )
    assert practice.status_code == 201, practice.text


def test_earning_and_staked_play_without_the_terms_are_refused_and_change_nothing(
    app: Any, client: TestClient
) -> None:
    tokens = sign_in(client, Account.create())
    tables_before = _count(app, Table)
    tickets_before = _count(app, MatchmakingTicket)
    for body in (
        {"preset": "dew200", "earning": True},
        {"preset": "draw", "seats": 2, "earning": True, "stake": str(5 * 10**18)},
    ):
        _refused(client.post("/tables", json=body, headers=_auth(tokens)), 403, "terms_required")
    queued = client.post(
        "/matchmaking", json={"preset": "draw", "earning": True}, headers=_auth(tokens)
    )
    _refused(queued, 403, "terms_required")
    assert _count(app, Table) == tables_before
    assert _count(app, MatchmakingTicket) == tickets_before


def test_accepting_the_terms_lets_earning_play_through_to_its_next_check(
    client: TestClient,
) -> None:
    tokens = _accept(client, Account.create())
    # No chain is configured here: the next check refuses, not the terms.
    created = client.post(
        "/tables", json={"preset": "dew200", "earning": True}, headers=_auth(tokens)
    )
    _refused(created, 503, "chain_unavailable")


def _staked_table(app: Any, creator: str, *, stake: int, earning: bool) -> str:
    with app.state.session_factory.begin() as session:
        table = Table(
            id=uuid.uuid4().hex,
            preset="draw",
            options=play.table_rules("draw", {}, 2).options,
            seat_count=2,
            stake=str(stake),
            earning=earning,
            kind="human",
            visibility="public",
            invite_code=uuid.uuid4().hex[:16],
            creator=creator,
            bot_level="easy",
            turn_timeout_s=20.0,
            spectators_allowed=True,
            spectator_delay_s=0.0,
            status="open",
            created_at=utcnow(),
        )
        session.add(table)
        session.flush()
        session.add(TableSeat(table_id=table.id, seat=0, address=creator, admitted_as="vip"))
        return str(table.id)


def test_joining_a_staked_table_without_the_terms_is_refused(app: Any, client: TestClient) -> None:
    table_id = _staked_table(app, Account.create().address, stake=5 * 10**18, earning=True)
    tokens = sign_in(client, Account.create())
    _refused(client.post(f"/tables/{table_id}/join", headers=_auth(tokens)), 403, "terms_required")
    assert _count(app, TableSeat, table_id=table_id) == 1
    _refused(
        client.post("/tables/no-such-table/join", headers=_auth(tokens)), 404, "table_not_found"
    )


def test_a_new_terms_version_needs_a_new_acceptance(db_url: str) -> None:
    account = Account.create()
    with TestClient(create_app(_settings(db_url, version="2026-11"))) as old:
        _accept(old, account)
    with TestClient(create_app(_settings(db_url, version="2027-01"))) as new:
        tokens = sign_in(new, account)
        assert new.get("/auth/terms", headers=_auth(tokens)).json()["accepted"] is False
        refused = new.post(
            "/tables", json={"preset": "dew200", "earning": True}, headers=_auth(tokens)
        )
        _refused(refused, 403, "terms_required")
        _accept(new, account)
        assert new.get("/auth/terms", headers=_auth(tokens)).json()["accepted"] is True


def test_staked_play_turned_off_refuses_staked_tables_only(db_url: str) -> None:
    with TestClient(create_app(_settings(db_url, staked_play=False))) as client:
        app: Any = client.app
        account = Account.create()
        tokens = _accept(client, account)
        assert client.get("/auth/terms", headers=_auth(tokens)).json()["staked_play"] is False
        before = _count(app, Table)
        staked = {"preset": "draw", "seats": 2, "earning": True, "stake": str(10**18)}
        _refused(
            client.post("/tables", json=staked, headers=_auth(tokens)), 403, "staked_play_disabled"
        )
        assert _count(app, Table) == before
        table_id = _staked_table(app, Account.create().address, stake=10**18, earning=True)
        joined = client.post(f"/tables/{table_id}/join", headers=_auth(tokens))
        _refused(joined, 403, "staked_play_disabled")
        assert _count(app, TableSeat, table_id=table_id) == 1
        # Earning play without a stake goes on to its own checks (no chain here).
        earning = client.post(
            "/tables", json={"preset": "dew200", "earning": True}, headers=_auth(tokens)
        )
        _refused(earning, 503, "chain_unavailable")


def _tournament(app: Any, name: str, fee: int) -> int:
    with app.state.session_factory() as session:
        spec = competitions.TournamentSpec(
            name=name,
            preset="draw",
            format="swiss",
            min_entrants=2,
            max_entrants=4,
            starts_at=utcnow() + timedelta(hours=1),
            turn_timeout_s=20,
            entry_fee=fee,
        )
        found = competitions.create_tournament(session=session, spec=spec).id
        session.commit()
        return int(found)


def test_a_tournament_with_a_fee_needs_the_terms(app: Any, client: TestClient) -> None:
    paid, free = _tournament(app, "terms-fee", 10**18), _tournament(app, "terms-free", 0)
    tokens = sign_in(client, Account.create())
    refused = client.post(f"/competitions/{paid}/register", headers=_auth(tokens))
    _refused(refused, 403, "terms_required")
    assert _count(app, Entrant, tournament_id=paid) == 0
    assert client.post(f"/competitions/{free}/register", headers=_auth(tokens)).status_code == 200


def test_a_fee_is_a_stake_where_staked_play_is_off(db_url: str) -> None:
    with TestClient(create_app(_settings(db_url, staked_play=False))) as client:
        app: Any = client.app
        paid = _tournament(app, "terms-fee-off", 10**18)
        tokens = _accept(client, Account.create())
        refused = client.post(f"/competitions/{paid}/register", headers=_auth(tokens))
        _refused(refused, 403, "staked_play_disabled")
        assert _count(app, Entrant, tournament_id=paid) == 0


def test_without_configured_terms_nothing_is_gated_and_no_resource_is_accepted(
    db_url: str,
) -> None:
    with TestClient(create_app(_settings(db_url, version=None))) as client:
        account = Account.create()
        refused = client.post(
            "/auth/nonce", json={"address": account.address, "accept_terms": True}
        )
        _refused(refused, 400, "signin_bad_resource")
        tokens = sign_in(client, account)
        status = client.get("/auth/terms", headers=_auth(tokens)).json()
        assert status["required"] is False and status["resources"] == []
        # The terms check passes; the chain check is what refuses.
        created = client.post(
            "/tables", json={"preset": "dew200", "earning": True}, headers=_auth(tokens)
        )
        _refused(created, 503, "chain_unavailable")


def test_require_for_play_directly(app: Any) -> None:
    settings = app.state.settings
    with app.state.session_factory() as session:
        address = Account.create().address
        terms.require_for_play(
            session=session, settings=settings, address=address, stake=0, earning=False
        )
        for stake, earning in ((0, True), (1, False), ("5", True)):
            with pytest.raises(accounts_exc.TermsRequired):
                terms.require_for_play(
                    session=session,
                    settings=settings,
                    address=address,
                    stake=stake,
                    earning=earning,
                )
