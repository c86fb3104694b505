"""The economy API over HTTP: unsigned transactions that each wallet signs itself, the
indexer's mirror read back, reports, and clear errors that change nothing."""

from __future__ import annotations

from datetime import timedelta

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from backend.api.errors import install_error_handlers
from backend.api.routers.economy import router
from backend.config import Settings
from backend.db import create_db_engine, make_session_factory
from backend.db.base import utcnow
from backend.economy.chain_reader import ChainReader
from backend.economy.scholarships.indexer import index_registry
from backend.economy.scholarships.transactions import ScholarshipTxBuilder, UnsignedTx
from backend.economy.seasons import create_season
from tests.economy.chain_helpers import address, advance_time, mint_avatars, send


@pytest.fixture(scope="module")
def api(deployment, pg_url):
    engine = create_db_engine(pg_url)
    app = FastAPI()
    app.state.settings = Settings()
    app.state.session_factory = make_session_factory(engine)
    app.state.economy_tx_builder = ScholarshipTxBuilder(deployment.contracts)
    app.state.chain_reader = reader = ChainReader(deployment.contracts)  # chain time, too
    app.include_router(router)
    install_error_handlers(app)
    with TestClient(app) as client:
        yield client, app.state.session_factory, reader
    engine.dispose()


def _sign_all(deployment, key, response):
    assert response.status_code == 200, response.text
    txs = response.json()["transactions"]
    for tx in txs:
        send(
            deployment.w3,
            key,
            UnsignedTx.from_json(tx),
        )
    return txs


def test_screen_offer_list_accept_through_the_api(deployment, api):
    client, sessions, reader = api
    owner_key, scholar_key = deployment.player_keys[0], deployment.player_keys[1]
    owner, scholar = address(owner_key), address(scholar_key)
    [avatar] = mint_avatars(deployment, [owner])

    txs = _sign_all(
        deployment,
        deployment.operator_key,
        client.post("/economy/screenings", json={"screener": deployment.operator, "owner": owner}),
    )
    assert txs[0]["to"] == deployment.contracts.registry.address
    assert int(txs[0]["chainId"], 16) == deployment.manifest.chain_id
    _sign_all(
        deployment,
        owner_key,
        client.post(
            "/economy/offers",
            json={
                "owner": owner,
                "avatar_id": avatar,
                "terms": "rewards_division",
                "duration_s": 600,
                "owner_bps": 4000,
                "dust_to": "owner",
            },
        ),
    )
    index_registry(session_factory=sessions, reader=reader)
    listings = client.get("/economy/agreements", params={"open_listings": True}).json()
    [listing] = [a for a in listings if a["avatar_id"] == avatar]
    assert (listing["status"], listing["scholar"], listing["owner_bps"]) == ("offered", None, 4000)

    _sign_all(
        deployment,
        scholar_key,
        client.post(f"/economy/agreements/{listing['id']}/accept", json={"scholar": scholar}),
    )
    index_registry(session_factory=sessions, reader=reader)
    agreement = client.get(f"/economy/agreements/{listing['id']}").json()
    assert (agreement["status"], agreement["scholar"]) == ("active", scholar)
    assert deployment.contracts.avatar.functions.userOf(avatar).call() == scholar

    # A direct offer the owner withdraws before anyone accepts it.
    [spare] = mint_avatars(deployment, [owner])
    _sign_all(
        deployment,
        owner_key,
        client.post(
            "/economy/offers",
            json={
                "owner": owner,
                "avatar_id": spare,
                "scholar": scholar,
                "terms": "fixed_rent",
                "duration_s": 60,
                "rent": str(10**18),
            },
        ),
    )
    index_registry(session_factory=sessions, reader=reader)
    [offer] = client.get("/economy/agreements", params={"avatar_id": spare}).json()
    assert (offer["scholar"], offer["terms"], offer["rent"]) == (scholar, "fixed_rent", str(10**18))
    _sign_all(
        deployment,
        owner_key,
        client.post(f"/economy/agreements/{offer['id']}/cancel", json={"owner": owner}),
    )
    index_registry(session_factory=sessions, reader=reader)
    assert client.get(f"/economy/agreements/{offer['id']}").json()["status"] == "cancelled"

    # Accepting again is refused before any wallet is asked to sign.
    again = client.post(f"/economy/agreements/{listing['id']}/accept", json={"scholar": scholar})
    assert again.status_code == 409
    assert again.json()["error"]["code"] == "refused"
    assert "AgreementWrongStatus" in again.json()["error"]["message"]


@pytest.mark.parametrize(
    ("path", "body", "status", "code"),
    [
        (
            "/economy/offers",
            {"owner": "0x1", "avatar_id": 1, "terms": "fixed_rent", "duration_s": 60},
            422,
            "invalid_request",
        ),
        (
            "/economy/offers",
            {
                "owner": "0x" + "ab" * 20,
                "avatar_id": 1,
                "terms": "fixed_rent",
                "duration_s": 60,
                "owner_bps": 10,
            },
            422,
            "invalid_request",
        ),
        (
            "/economy/offers",
            {
                "owner": "0x" + "ab" * 20,
                "avatar_id": 1,
                "terms": "rewards_division",
                "duration_s": 60,
            },
            409,
            "refused",
        ),
        (
            "/economy/screenings",
            {"screener": "0x" + "ab" * 20, "owner": "0x" + "cd" * 20},
            409,
            "refused",
        ),
        ("/economy/agreements/999999/terminate", {"scholar": "0x" + "ab" * 20}, 409, "refused"),
    ],
)
def test_bad_requests_get_a_clear_error(api, path, body, status, code):
    client, _sessions, _reader = api
    response = client.post(path, json=body)
    assert response.status_code == status, response.text
    assert response.json()["error"]["code"] == code


def test_reports_and_seasons(api):
    client, sessions, _reader = api
    with sessions.begin() as session:
        season = create_season(
            session=session,
            name="API season",
            starts_at=utcnow() - timedelta(days=1),
            ends_at=utcnow() + timedelta(days=1),
            emission_budget=5 * 10**18,
        )
        season_id = season.id
    [row] = [s for s in client.get("/economy/seasons").json() if s["id"] == season_id]
    assert (row["status"], row["remaining"]) == ("running", str(5 * 10**18))
    assert client.get(f"/economy/seasons/{season_id}/leaderboard").json() == []
    assert client.get("/economy/seasons/424242/leaderboard").status_code == 404
    wallet = client.get("/economy/wallets/" + "0x" + "ab" * 20).json()
    assert (wallet["earned"], wallet["paid"]) == ("0", "0")
    assert client.get("/economy/wallets/nope").status_code == 422
    assert client.get("/economy/wallets/" + "0x" + "ab" * 20 + "/statement").json() == []
    stake = client.get("/economy/stakes/" + "0x" + "ab" * 20).json()
    assert stake["balance"] == "0"
    assert client.get("/economy/matches/unknown").status_code == 404
    assert client.get("/economy/agreements/424242").status_code == 404
    huge = str(2**80)
    for path in (
        f"/economy/agreements/{huge}",
        f"/economy/avatars/{huge}",
        f"/economy/seasons/{huge}/leaderboard",
        f"/economy/agreements?avatar_id={huge}",
    ):
        assert client.get(path).status_code == 422, path
    assert (
        client.post(
            f"/economy/agreements/{huge}/accept", json={"scholar": "0x" + "ab" * 20}
        ).status_code
        == 422
    )


def test_without_a_deployment_the_write_routes_answer_503(pg_url, tmp_path):
    from backend.config import ChainSettings

    engine = create_db_engine(pg_url)
    app = FastAPI()
    app.state.settings = Settings(chain=ChainSettings(manifest_path=tmp_path / "missing.json"))
    app.state.session_factory = make_session_factory(engine)
    app.include_router(router)
    install_error_handlers(app)
    with TestClient(app) as client:
        response = client.post("/economy/agreements/1/accept", json={"scholar": "0x" + "ab" * 20})
        assert response.status_code == 503
        assert response.json()["error"]["code"] == "chain_unavailable"
        assert client.get("/economy/seasons").status_code == 200  # reads need no chain
    engine.dispose()


def test_an_unreachable_node_is_unavailable_not_a_crash(deployment):
    from web3 import Web3

    from backend.chain.contracts import Contracts
    from backend.economy.exceptions import Unavailable

    dead = Web3(Web3.HTTPProvider("http://127.0.0.1:9", request_kwargs={"timeout": 2}))
    builder = ScholarshipTxBuilder(Contracts(dead, deployment.manifest, check_chain=False))
    with pytest.raises(Unavailable):
        builder.accept(scholar=deployment.operator, agreement_id=1)
    with pytest.raises(Unavailable):
        builder.screen_owner(screener=deployment.operator, owner=deployment.operator)


def test_offers_expire_cancel_in_bulk_and_idle_agreements_are_reclaimed(deployment, api):
    client, sessions, reader = api
    owner_key, scholar_key = deployment.player_keys[2], deployment.player_keys[3]
    owner, scholar = address(owner_key), address(scholar_key)
    [avatar] = mint_avatars(deployment, [owner])
    _sign_all(
        deployment,
        deployment.operator_key,
        client.post("/economy/screenings", json={"screener": deployment.operator, "owner": owner}),
    )
    division = {"owner": owner, "avatar_id": avatar, "terms": "rewards_division"}
    division |= {"duration_s": 30 * 86_400, "owner_bps": 2000, "dust_to": "owner"}
    head = deployment.w3.eth.get_block("latest")["timestamp"]

    # An offer already past its validity is refused before any wallet signs it.
    stale = client.post("/economy/offers", json=division | {"valid_until": head - 1})
    assert stale.status_code == 409, stale.text
    assert "InvalidValidUntil" in stale.json()["error"]["message"]

    # Open for an hour of chain time from the latest block, whatever the caller's clock says;
    # an offer gives its validity one way only.
    hour = client.post("/economy/offers", json=division | {"valid_for_s": 3600})
    assert hour.status_code == 200, hour.text
    [built] = hour.json()["transactions"]
    terms = deployment.contracts.registry.decode_function_input(built["data"])[1]["terms"]
    valid_until = terms["validUntil"] if isinstance(terms, dict) else terms[-1]
    assert head + 3600 <= valid_until <= head + 3600 + 60
    both = client.post(
        "/economy/offers", json=division | {"valid_for_s": 60, "valid_until": head + 60}
    )
    assert both.status_code == 422 and both.json()["error"]["code"] == "invalid_request"
    assert client.post("/economy/offers", json=division | {"valid_for_s": 0}).status_code == 422

    # Two open offers, withdrawn together; the mirror follows and accepting is refused.
    _sign_all(deployment, owner_key, client.post("/economy/offers", json=division))
    _sign_all(
        deployment,
        owner_key,
        client.post("/economy/offers", json=division | {"scholar": scholar, "owner_bps": 100}),
    )
    index_registry(session_factory=sessions, reader=reader)
    offers = client.get("/economy/agreements", params={"avatar_id": avatar}).json()
    assert [o["status"] for o in offers] == ["offered", "offered"]
    assert all(head + 7 * 86_400 <= o["valid_until"] <= head + 7 * 86_400 + 60 for o in offers)
    _sign_all(
        deployment,
        owner_key,
        client.post(f"/economy/avatars/{avatar}/offers/cancel", json={"owner": owner}),
    )
    index_registry(session_factory=sessions, reader=reader)
    offers = client.get("/economy/agreements", params={"avatar_id": avatar}).json()
    assert [o["status"] for o in offers] == ["cancelled", "cancelled"]
    refused = client.post(
        f"/economy/agreements/{offers[1]['id']}/accept", json={"scholar": scholar}
    )
    assert refused.status_code == 409
    assert "OfferRevoked" in refused.json()["error"]["message"]

    # A new offer is accepted; the owner may reclaim it only after 7 idle days.
    _sign_all(deployment, owner_key, client.post("/economy/offers", json=division))
    agreement_id = deployment.contracts.registry.functions.agreementCount().call()
    _sign_all(
        deployment,
        scholar_key,
        client.post(f"/economy/agreements/{agreement_id}/accept", json={"scholar": scholar}),
    )
    early = client.post(f"/economy/agreements/{agreement_id}/reclaim", json={"owner": owner})
    assert early.status_code == 409
    assert "AgreementNotIdle" in early.json()["error"]["message"]
    # The contract's error by name, for a client's words (the code stays the kind's).
    assert early.json()["error"]["code"] == "refused"
    assert early.json()["error"]["detail"] == {"revert": "AgreementNotIdle"}
    closing = client.post(f"/economy/agreements/{agreement_id}/close", json={"sender": scholar})
    assert closing.status_code == 409
    assert closing.json()["error"]["detail"] == {"revert": "AgreementNotExpired"}
    advance_time(deployment.w3, 7 * 86_400)
    _sign_all(
        deployment,
        owner_key,
        client.post(f"/economy/agreements/{agreement_id}/reclaim", json={"owner": owner}),
    )
    index_registry(session_factory=sessions, reader=reader)
    agreement = client.get(f"/economy/agreements/{agreement_id}").json()
    reclaimed_at = deployment.w3.eth.get_block("latest")["timestamp"]
    assert (agreement["status"], agreement["ended_at"]) == ("reclaimed", reclaimed_at)
    assert deployment.contracts.avatar.functions.userOf(avatar).call() == "0x" + "00" * 20
