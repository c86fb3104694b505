"""Hostile callers of the markets routes (``/markets``) and the operator's shop route, against
a real server process on SQLite and PostgreSQL with a real anvil deployment: listing someone
else's avatar, buying a stale listing, prices past the cap, huge pages, dressing another
wallet's avatar, replayed idempotency keys, and the operator route by anyone else. Every
refusal is checked to change nothing: the chain (owners, listings) and the outbox."""

from __future__ import annotations

import json
import secrets
from dataclasses import replace

import pytest
from eth_account import Account
from sqlalchemy import func, select
from web3.exceptions import ContractCustomError

from backend.chain.calls import _error_table, decode_revert
from backend.chain.models import ChainRequest
from backend.db import create_db_engine, make_session_factory
from backend.markets.models import CatalogEntry
from tests.economy.chain_helpers import send
from tests.fixtures.harness import api, sign_in
from tests.markets.world import DEW, make_world

OPERATOR = Account.create()


@pytest.fixture(scope="module")
def world(deployment, db_url):
    engine = create_db_engine(db_url)
    yield make_world(deployment, make_session_factory(engine))
    engine.dispose()


@pytest.fixture(scope="module")
def server(deployment, db_url):
    from tests.fixtures.harness import ServerProcess

    env = {
        "DEW_CHAIN_RPC_URL": deployment.anvil.rpc_url,
        "DEW_CHAIN_MANIFEST_PATH": str(deployment.manifest_path),
        "DEW_CHAIN_CHAIN_ID": str(deployment.w3.eth.chain_id),
        "DEW_ECONOMY_CONFIRMATIONS": "1",
        "DEW_HTTP_TRANSACTIONS_PER_IP": "1000/minute",
        "DEW_OPERATOR_ADDRESSES": json.dumps([OPERATOR.address]),
    }
    process = ServerProcess(db_url, extra_env=env).start()
    yield process
    process.stop()


@pytest.fixture(scope="module")
def market(world, server, deployment):
    """A's avatar (bought in the shop) and B, both signed in and funded, per database."""
    c = deployment.contracts
    first = 0 if world.sessions.kw["bind"].dialect.name == "sqlite" else 3
    keys = deployment.player_keys[first : first + 3]
    for key in keys:
        world.fund(key, 1_000 * DEW)
    listing = world.list_in_shop(
        "hostile-avatar-" + secrets.token_hex(3),
        item_kind="avatar",
        item=c.avatar.address,
        item_id=0,
        price=50 * DEW,
        supply=10,
        vip_term_s=0,
        name="Hostile avatar",
    )
    world.index()
    clients = {}
    for name, key in zip(("a", "b", "c"), keys, strict=True):
        account, token = sign_in(server.url, Account.from_key(key))
        clients[name] = (key, account.address, api(server.url, token))
    key_a, a, http_a = clients["a"]
    txs = http_a.post(f"/markets/shop/{listing}/buy").json()["transactions"]
    _sign(world, key_a, txs)
    world.index()
    avatar = max(
        x["avatar_id"]
        for x in http_a.get(f"/markets/wallets/{a}/items").json()["avatars"]
        if x["role"] == "owner"
    )
    return {"clients": clients, "avatar": avatar, "shop_listing": listing}


def _sign(world, key: str, txs: list[dict]) -> None:
    """Sign the server's unsigned transactions with the player's key, in order."""
    from backend.chain.unsigned import UnsignedTx

    for tx in txs:
        send(
            world.deployment.w3,
            key,
            replace(UnsignedTx.from_json(tx), gas=int(tx["gas"], 16) if tx.get("gas") else 500_000),
        )


def _expires(world) -> int:
    return world.reader.chain_time() + 3600


def _code(response) -> str:
    return response.json()["error"]["code"]


def test_listing_someone_elses_avatar_is_refused(world, market, deployment):
    _, a, _ = market["clients"]["a"]
    _, _, http_b = market["clients"]["b"]
    body = {
        "token_kind": "avatar",
        "id": str(market["avatar"]),
        "amount": 1,
        "price": str(10 * DEW),
        "expires_at": _expires(world),
    }
    response = http_b.post("/markets/listings", json=body)
    assert response.status_code == 403 and _code(response) == "not_owner"
    assert deployment.contracts.avatar.functions.ownerOf(market["avatar"]).call() == a


def test_dressing_another_wallets_avatar_is_refused(market):
    _, _, http_b = market["clients"]["b"]
    response = http_b.post(
        f"/markets/avatars/{market['avatar']}/equip", json={"type_id": 1, "equip": True}
    )
    assert response.status_code == 403 and _code(response) == "not_owner"


@pytest.mark.parametrize(
    "price", [str(10**27 + 1), str(10**30 + 1), "9" * 31, "9" * 32, "0", "-1", "1e30", "0x10"]
)
def test_prices_past_the_cap_or_malformed_are_refused(world, market, price):
    _, _, http_a = market["clients"]["a"]
    body = {
        "token_kind": "avatar",
        "id": str(market["avatar"]),
        "amount": 1,
        "price": price,
        "expires_at": _expires(world),
    }
    response = http_a.post("/markets/listings", json=body)
    assert response.status_code == 422, response.text


def test_bad_listing_bodies_are_refused(world, market):
    _, _, http_a = market["clients"]["a"]
    base = {
        "token_kind": "avatar",
        "id": str(market["avatar"]),
        "amount": 1,
        "price": str(DEW),
        "expires_at": _expires(world),
    }
    for change in (
        {"amount": 2},  # an avatar is one
        {"amount": 10**7},
        {"id": "1" * 79},  # past uint256
        {"expires_at": 1},  # in the past
        {"expires_at": _expires(world) + 181 * 86400},  # past the market's longest listing
        {"expires_at": 2**64},
        {"token_kind": "dew"},
        {"extra": 1},
    ):
        response = http_a.post("/markets/listings", json={**base, **change})
        assert response.status_code == 422, (change, response.text)


def test_huge_pages_and_bad_filters_are_refused(market):
    _, _, http_a = market["clients"]["a"]
    for query in (
        "limit=101",
        "limit=0",
        "offset=10001",
        "limit=100000000000000000000",
        "seller=0x123",
        "token=" + "a" * 200,
        "status=everything",
    ):
        response = http_a.get(f"/markets/listings?{query}")
        assert response.status_code == 422, (query, response.text)
    assert http_a.get("/markets/listings?limit=100&offset=10000").status_code == 200


def test_unknown_ids_and_anonymous_writes(server, market):
    anonymous = api(server.url)
    assert anonymous.post(f"/markets/shop/{market['shop_listing']}/buy").status_code == 401
    assert anonymous.post("/markets/listings/1/buy").status_code == 401
    _, _, http_b = market["clients"]["b"]
    assert _code(http_b.post("/markets/listings/999999/buy")) == "listing_not_found"
    assert http_b.post(f"/markets/listings/{2**63}/buy").status_code == 422
    assert http_b.get(f"/markets/avatars/{2**63 - 1}").status_code == 404


def test_buying_a_stale_listing_is_refused_and_the_chain_refuses_it_too(world, market, deployment):
    """A lists the avatar, then gives it to C: the listing is stale; B's buy is refused by
    the server (409) and, signed anyway, by the market contract; nothing moves."""
    key_a, a, http_a = market["clients"]["a"]
    _, b, http_b = market["clients"]["b"]
    _, c_address, _ = market["clients"]["c"]
    avatar = market["avatar"]
    body = {
        "token_kind": "avatar",
        "id": str(avatar),
        "amount": 1,
        "price": str(20 * DEW),
        "expires_at": _expires(world),
    }
    _sign(world, key_a, http_a.post("/markets/listings", json=body).json()["transactions"])
    world.index()
    [listing] = http_a.get(f"/markets/listings?seller={a}&status=open").json()
    buy_txs = http_b.post(f"/markets/listings/{listing['listing_id']}/buy").json()
    assert len(buy_txs["transactions"]) >= 1  # open: the server builds it
    avatar_nft = deployment.contracts.avatar
    send(
        deployment.w3,
        key_a,
        avatar_nft.functions.transferFrom(a, c_address, avatar),
    )
    world.index()
    [row] = [
        x
        for x in http_a.get(f"/markets/listings?seller={a}").json()
        if x["listing_id"] == listing["listing_id"]
    ]
    assert row["status"] == "stale"
    response = http_b.post(f"/markets/listings/{listing['listing_id']}/buy")
    assert response.status_code == 409 and _code(response) == "listing_stale"
    balance = world.balance(b)
    market_contract = deployment.contracts.market
    with pytest.raises(ContractCustomError) as refused:
        market_contract.functions.buy(listing["listing_id"], 20 * DEW).call({"from": b})
    assert decode_revert(refused.value.data, _error_table()).startswith("MarketSellerNotOwner")
    assert world.balance(b) == balance
    assert avatar_nft.functions.ownerOf(avatar).call() == c_address
    # Cancelling it is the seller's alone.
    response = http_b.post(f"/markets/listings/{listing['listing_id']}/cancel")
    assert response.status_code == 403 and _code(response) == "not_owner"


def _outbox(world) -> int:
    with world.sessions() as session:
        return session.scalar(select(func.count()).select_from(ChainRequest)) or 0


def test_the_operator_shop_route_is_the_operators_alone(world, server, market):
    body = {
        "item_kind": "avatar",
        "price": str(DEW),
        "supply": 5,
        "name": "Sneaky",
        "idempotency_key": "sneak-" + secrets.token_hex(3),
    }
    before = _outbox(world)
    assert api(server.url).post("/operator/shop", json=body).status_code == 401
    _, _, http_b = market["clients"]["b"]
    response = http_b.post("/operator/shop", json=body)
    assert response.status_code == 403 and _code(response) == "not_operator"
    assert http_b.post("/operator/shop/1", json={"idempotency_key": "x"}).status_code == 403
    assert _outbox(world) == before
    with world.sessions() as session:
        assert session.get(CatalogEntry, ("avatar", "0")).name != "Sneaky"


def test_replayed_idempotency_keys_list_once(world, server):
    _, token = sign_in(server.url, OPERATOR)
    http = api(server.url, token)
    body = {
        "item_kind": "vip",
        "price": str(5 * DEW),
        "supply": 100,
        "vip_term_s": 30 * 86400,
        "name": "VIP month",
        "idempotency_key": "vip-month-" + secrets.token_hex(3),
    }
    before = _outbox(world)
    first = http.post("/operator/shop", json=body)
    assert first.status_code == 202, first.text
    again = http.post("/operator/shop", json=body)
    assert again.status_code == 200 and again.json()["id"] == first.json()["id"]
    other = http.post("/operator/shop", json={**body, "price": str(6 * DEW)})
    assert other.status_code == 409
    assert _outbox(world) == before + 1
    for bad in (
        {"price": "0"},
        {"price": str(10**30 + 1)},
        {"supply": 0},
        {"supply": 2**32},
        {"vip_term_s": 0},
        {"vip_term_s": 367 * 86400},
        {"price": str(10**24 + 1)},  # past the shop's cap
        {"item_kind": "dew"},
        {"image": "javascript:alert(1)"},
        {"name": "x" * 65},
    ):
        response = http.post(
            "/operator/shop", json={**body, **bad, "idempotency_key": secrets.token_hex(4)}
        )
        assert response.status_code == 422, (bad, response.text)
    assert _outbox(world) == before + 1
