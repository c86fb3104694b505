"""Markets end to end on a real anvil, on SQLite and PostgreSQL: the operator lists an avatar
type and an accessory type in the shop (through the outbox and the real engine); player A
buys both, equips the accessory, lists the avatar; player B buys it and the accessory goes
with it. The markets ledger is booked from the confirmed events only, books each event
once, and agrees with the DEW ``Transfer`` events and the balances, to the unit."""

from __future__ import annotations

import secrets

import pytest
from sqlalchemy import func, select
from web3.exceptions import ContractCustomError

from backend.chain.calls import _error_table, decode_revert
from backend.db import create_db_engine, make_session_factory
from backend.economy.reports import wallet_summary
from backend.markets import ledger, service
from backend.markets.models import EntryKind, MarketLedgerEntry
from tests.markets.world import DEW, make_world


@pytest.fixture
def world(deployment, db_url):
    engine = create_db_engine(db_url)
    yield make_world(deployment, make_session_factory(engine))
    engine.dispose()


def _chain_time(world) -> int:
    return world.reader.chain_time()


def test_buy_equip_list_resell_reconciles_to_the_unit(world, deployment):
    c = deployment.contracts
    run = secrets.token_hex(4)
    type_id = int(run, 16)
    # Each database's run has its own players: the second run's fresh mirror reads the
    # first run's events too, and its books must not mix with this run's.
    first = 6 if world.sessions.kw["bind"].dialect.name == "sqlite" else 4
    key_a, key_b = deployment.player_keys[first], deployment.player_keys[first + 1]
    a, b = world.fund(key_a, 1_000 * DEW), world.fund(key_b, 1_000 * DEW)
    shop_treasury = c.shop.functions.treasury().call()
    market_treasury = c.market.functions.treasury().call()
    avatar_listing = world.list_in_shop(
        f"avatar-{run}",
        item_kind="avatar",
        item=c.avatar.address,
        item_id=0,
        price=100 * DEW,
        supply=5,
        vip_term_s=0,
        name="Classic avatar",
    )
    hat_listing = world.list_in_shop(
        f"hat-{run}",
        item_kind="accessory",
        item=c.accessories.address,
        item_id=type_id,
        price=10 * DEW,
        supply=3,
        vip_term_s=0,
        name="Straw hat",
        slot="hat",
        max_supply=3,
        uri="https://dew.example/acc/{id}.json",
    )
    world.index()
    with world.sessions() as session:
        shop = {r["listing_id"]: r for r in service.shop_listings(session=session)}
    assert shop[avatar_listing]["item_kind"] == "avatar"
    assert shop[hat_listing]["name"] == "Straw hat" and shop[hat_listing]["price"] == str(10 * DEW)
    before = {w: world.balance(w) for w in (a, b, shop_treasury, market_treasury)}

    # A buys the avatar and the hat in the shop (approval first, then buy).
    world.sign(key_a, world.builder.shop_buy(buyer=a, listing_id=avatar_listing, price=100 * DEW))
    world.sign(key_a, world.builder.shop_buy(buyer=a, listing_id=hat_listing, price=10 * DEW))
    world.index()
    with world.sessions() as session:
        items = service.wallet_items(session=session, address=a, now_s=_chain_time(world))
    [mine] = [x for x in items["avatars"] if x["role"] == "owner"][-1:]
    avatar_id = int(mine["avatar_id"])
    assert c.avatar.functions.ownerOf(avatar_id).call() == a
    assert {x["type_id"]: x["balance"] for x in items["accessories"]}[type_id] == 1

    # A equips the hat: it leaves A's loose items and is worn by the avatar.
    world.sign(
        key_a, [world.builder.equip(owner=a, avatar_id=avatar_id, type_id=type_id, equip=True)]
    )
    world.index()
    with world.sessions() as session:
        view = service.avatar_view(session=session, avatar_id=avatar_id, now_s=_chain_time(world))
    assert [x["type_id"] for x in view["accessories"]] == [type_id]
    assert view["accessories"][0]["slot"] == "hat"

    # A lists the avatar; B buys it at the listed price.
    expires = _chain_time(world) + 3600
    world.sign(
        key_a,
        world.builder.market_list(
            seller=a,
            token_kind="avatar",
            token_id=avatar_id,
            amount=1,
            price=200 * DEW,
            expires_at=expires,
        ),
    )
    world.index()
    with world.sessions() as session:
        [listing] = service.listings(session=session, now_s=_chain_time(world), seller=a)
    assert listing["status"] == "open" and listing["id"] == str(avatar_id)
    listing_id = int(listing["listing_id"])
    world.sign(key_b, world.builder.market_buy(buyer=b, listing_id=listing_id, price=200 * DEW))
    world.index()

    # The avatar is B's and still wears the hat, on chain and in the mirror.
    assert c.avatar.functions.ownerOf(avatar_id).call() == b
    assert list(c.accessories.functions.equippedOf(avatar_id).call()) == [type_id]
    with world.sessions() as session:
        view = service.avatar_view(session=session, avatar_id=avatar_id, now_s=_chain_time(world))
        sold = service.get_listing(session=session, listing_id=listing_id)
        assert (sold.status, sold.buyer) == ("sold", b)
        entries = list(
            session.scalars(
                select(MarketLedgerEntry).where(
                    MarketLedgerEntry.listing_id == listing_id, MarketLedgerEntry.source == "market"
                )
            )
        )
    assert view["owner"] == b and [x["type_id"] for x in view["accessories"]] == [type_id]

    # The ledger's legs: royalty and fee to the treasury, the rest to A.
    legs = {e.kind: (e.payer, e.payee, int(e.amount)) for e in entries}
    royalty = 200 * DEW * 500 // 10_000
    fee = 200 * DEW * 250 // 10_000
    assert legs == {
        EntryKind.ROYALTY: (b, shop_treasury, royalty),
        EntryKind.FEE: (b, market_treasury, fee),
        EntryKind.SALE: (b, a, 200 * DEW - royalty - fee),
    }

    # Balances moved exactly as the ledger says.
    after = {w: world.balance(w) for w in before}
    with world.sessions() as session:
        book_a = service.wallet_report(session=session, address=a)
        book_b = service.wallet_report(session=session, address=b)
        summary_a = wallet_summary(session=session, address=a)
    assert after[a] - before[a] == book_a["net"] == 200 * DEW - royalty - fee - 110 * DEW
    assert after[b] - before[b] == book_b["net"] == -200 * DEW
    assert book_a["shop_purchases"] == 110 * DEW and book_a["sales"] == 200 * DEW - royalty - fee
    assert summary_a["markets"]["shop_purchases"] == 110 * DEW
    if shop_treasury == market_treasury:
        assert after[shop_treasury] - before[shop_treasury] == 110 * DEW + royalty + fee

    # Reconciliation: every purchase and sale against the DEW transfers of its transaction.
    with world.sessions() as session:
        report = ledger.reconcile_markets(session=session, reader=world.reader)
    assert report.ok, report.differences
    assert report.purchases_checked >= 2 and report.sales_checked >= 1

    # Indexing again books nothing twice; booking the same event again adds nothing.
    with world.sessions() as session:
        count = session.scalar(select(func.count()).select_from(MarketLedgerEntry))
    assert world.index() == 0
    sold_events = [
        e
        for e in world.reader.events(world.reader.start_block, world.reader.safe_head())
        if e.name == "Sold" and int(e.args["listingId"]) == listing_id
    ]
    with world.sessions.begin() as session:
        assert ledger.book(session, world.reader, sold_events[0], None) == 0
    with world.sessions() as session:
        assert session.scalar(select(func.count()).select_from(MarketLedgerEntry)) == count

    # A tampered leg is a difference the reconciliation names.
    with world.sessions.begin() as session:
        leg = session.scalar(
            select(MarketLedgerEntry).where(
                MarketLedgerEntry.listing_id == listing_id, MarketLedgerEntry.kind == EntryKind.SALE
            )
        )
        leg.amount = str(int(leg.amount) - 1)
    with world.sessions() as session:
        report = ledger.reconcile_markets(session=session, reader=world.reader)
    assert not report.ok
    assert any(sold_events[0].tx_hash in d for d in report.differences), report.differences
    with world.sessions.begin() as session:
        leg = session.get(MarketLedgerEntry, leg.id)
        leg.amount = str(int(leg.amount) + 1)

    # B lists the avatar, then takes the hat off: the market pinned what it wore, so the
    # listing is stale in the mirror and the contract refuses a buy of it.
    world.sign(
        key_b,
        world.builder.market_list(
            seller=b,
            token_kind="avatar",
            token_id=avatar_id,
            amount=1,
            price=300 * DEW,
            expires_at=_chain_time(world) + 3600,
        ),
    )
    world.index()
    with world.sessions() as session:
        [relisted] = service.listings(
            session=session, now_s=_chain_time(world), seller=b, status="open"
        )
    world.sign(
        key_b, [world.builder.equip(owner=b, avatar_id=avatar_id, type_id=type_id, equip=False)]
    )
    world.index()
    with world.sessions() as session:
        row = service.get_listing(session=session, listing_id=int(relisted["listing_id"]))
        assert service.listing_status(session, row, _chain_time(world)) == "stale"
    world.sign(key_a, [c.token.functions.approve(c.market.address, 300 * DEW)])
    with pytest.raises(ContractCustomError) as refused:
        c.market.functions.buy(int(relisted["listing_id"]), 300 * DEW).call({"from": a})
    assert decode_revert(refused.value.data, _error_table()).startswith("MarketListingStale")
    assert c.avatar.functions.ownerOf(avatar_id).call() == b
