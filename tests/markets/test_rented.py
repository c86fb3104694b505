"""A rented avatar on a real anvil (SQLite and PostgreSQL): its renter sees it among their
items, its owner cannot dress or undress it, and its listing is ``stale``: the server
refuses to build the buy and the market contract refuses it anyway (``MarketItemRented``);
nothing moves. "Not at all" is the chosen rule (docs/economy.md, "Markets")."""

from __future__ import annotations

import pytest
from web3.exceptions import ContractCustomError

from backend.chain.calls import _error_table, decode_revert
from backend.db import create_db_engine, make_session_factory
from backend.economy.policy import Party, Terms
from backend.economy.scholarships.transactions import OfferTerms, ScholarshipTxBuilder
from backend.markets import service
from backend.markets.exceptions import Refused
from tests.economy.chain_helpers import address, mint_avatars, send
from tests.markets.world import DEW, make_world


@pytest.fixture
def world(deployment, db_url):
    engine = create_db_engine(db_url)
    yield make_world(deployment, make_session_factory(engine))
    engine.dispose()


def test_a_rented_avatar_cannot_be_dressed_or_sold(world, deployment):
    w3, c = deployment.w3, deployment.contracts
    first = 0 if world.sessions.kw["bind"].dialect.name == "sqlite" else 3
    owner_key, scholar_key, buyer_key = deployment.player_keys[first : first + 3]
    owner, scholar = address(owner_key), address(scholar_key)
    buyer = world.fund(buyer_key, 100 * DEW)
    [avatar] = mint_avatars(deployment, [owner])
    # Listed before the rental (a rented avatar cannot even be listed: see below).
    world.sign(
        owner_key,
        world.builder.market_list(
            seller=owner,
            token_kind="avatar",
            token_id=avatar,
            amount=1,
            price=10 * DEW,
            expires_at=world.reader.chain_time() + 7200,
        ),
    )
    registry = ScholarshipTxBuilder(c)
    send(
        w3,
        deployment.operator_key,
        registry.screen_owner(screener=deployment.operator, owner=owner),
    )
    terms = OfferTerms(
        terms=Terms.REWARDS_DIVISION, duration_s=3600, owner_bps=3000, dust_to=Party.OWNER
    )
    send(w3, owner_key, registry.offer(owner=owner, avatar_id=avatar, terms=terms, scholar=scholar))
    agreement = c.registry.functions.agreementCount().call()
    for tx in registry.accept(scholar=scholar, agreement_id=agreement):
        send(w3, scholar_key, tx)
    world.index()
    now = world.reader.chain_time()
    with world.sessions() as session:
        view = service.avatar_view(session=session, avatar_id=avatar, now_s=now)
        items = service.wallet_items(session=session, address=scholar, now_s=now)
        [listing] = [
            x
            for x in service.listings(session=session, now_s=now, seller=owner)
            if x["id"] == str(avatar)
        ]
    assert view["owner"] == owner and view["user"] == scholar and view["rented_until"] > now
    assert [(x["avatar_id"], x["role"]) for x in items["avatars"]] == [(avatar, "renter")]
    assert listing["status"] == "stale"

    with pytest.raises(Refused, match="rented"):
        world.builder.market_list(
            seller=owner,
            token_kind="avatar",
            token_id=avatar,
            amount=1,
            price=10 * DEW,
            expires_at=now + 7200,
        )
    with pytest.raises(Refused, match="AccessoryAvatarRented"):
        world.builder.equip(owner=owner, avatar_id=avatar, type_id=1, equip=True)
    balance = world.balance(buyer)
    world.sign(buyer_key, [c.token.functions.approve(c.market.address, 10 * DEW)])
    with pytest.raises(ContractCustomError) as refused:
        c.market.functions.buy(listing["listing_id"], 10 * DEW).call({"from": buyer})
    assert decode_revert(refused.value.data, _error_table()).startswith("MarketItemRented")
    assert world.balance(buyer) == balance
    assert c.avatar.functions.ownerOf(avatar).call() == owner
