"""The markets through the page, on the demo's real stack (anvil with the contracts,
``dew serve``, a Celery worker and beat, the indexers): a player buys an avatar and an
accessory in the shop, equips the accessory on the avatar, lists the avatar (and lists then
cancels an accessory) on the resale market, and a second wallet buys the avatar, which
arrives still wearing its accessory and is his to undress. Every transaction is built by
the server and signed by the page's injected wallet (tests/web/conftest.py); what the page
says is checked against the chain.

The four tests run in order on one stack and share what they made (``made``): each one's
assertions stand on their own, but a later one needs the earlier ones' items.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import ExitStack
from typing import Any

import pytest

from backend.demo.players import ok
from backend.demo.season import DemoConfig, Season
from backend.devstack.services import wait_for
from backend.protocol.client import DewClient
from tests.web.conftest import (
    InjectedWallet,
    goto_view,
    open_wallet_page,
    sign_in_page,
    sign_tx_panel,
)
from tests.web.phone import phone_fits

pytestmark = pytest.mark.timeout(600)

DEW = 10**18
AVATAR_PRICE = 10 * DEW
ACCESSORY_PRICE = 2 * DEW
RESALE_PRICE = 25 * DEW
FAUCET = 100 * DEW


@pytest.fixture(scope="module")
def season(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Season]:
    """The demo's chain, services and signed-in wallets; DEW for the two buyers."""
    config = DemoConfig(workdir=tmp_path_factory.mktemp("web-markets"), out=lambda _text: None)
    with ExitStack() as stack:
        run = Season(config, stack)
        run.start()
        run.sign_in()
        token = run.contracts.token.functions
        for wallet in (run.olivia, run.oscar):
            run.chain.call(run.deployer_key, token.transfer(wallet.address, FAUCET))
        yield run


@pytest.fixture(scope="module")
def made() -> dict[str, Any]:
    """What the earlier tests made, for the later ones."""
    return {}


@pytest.fixture(scope="module")
def pages(browser: Any, season: Season) -> Iterator[dict[str, Any]]:
    """One signed-in page per wallet (olivia buys and sells, oscar buys her avatar)."""
    opened = {}
    for wallet in (season.olivia, season.oscar):
        page = open_wallet_page(browser, season.base, InjectedWallet(wallet.key, season.w3))
        assert sign_in_page(page) == wallet.address
        opened[wallet.name] = page
    yield opened
    for page in opened.values():
        assert not page.js_errors, page.js_errors
        page.context.close()


def shop_list(season: Season, item_kind: str, **fields: Any) -> int:
    """The operator lists an item type in the shop (what ``POST /operator/shop`` and
    ``dew shop list`` do: a request in the chain outbox that the worker sends); its shop
    listing id, once confirmed and seen by the markets indexer."""
    from backend.markets import operator

    item = {
        "avatar": season.contracts.avatar,
        "accessory": season.contracts.accessories,
        "vip": season.contracts.vip,
    }[item_kind].address
    with season.sessions.begin() as session:
        request = operator.queue_listing(
            session=session,
            item_kind=item_kind,
            item=item,
            vip_term_s=0,
            item_id=fields.pop("item_id", 0),
            idempotency_key=f"web-shop-{uuid.uuid4().hex}",
            chain_id=season.manifest.chain_id,
            **fields,
        )

    def listed() -> int | None:
        with season.sessions() as session:
            status = operator.request_status(session=session, request_id=request.id)
        if status.status == "failed":
            pytest.fail(f"shop listing failed: {status.failure_reason}")
        return status.listing_id if status.status == "confirmed" else None

    listing_id = wait_for("the shop listing (worker)", listed, timeout_s=90)
    wait_for(
        "the listing on GET /markets/shop (indexer)",
        lambda: any(r["listing_id"] == listing_id for r in ok(season.http.get("/markets/shop"))),
    )
    return listing_id


def goto(page: Any, base: str, view: str) -> None:
    """Open a view afresh (a reload, so the page asks the server again)."""
    page.goto(f"{base}/#/{view}")
    page.reload()
    page.wait_for_selector(f"main[data-ready=true][data-view={view.split('/')[0]}]")


def shows(page: Any, base: str, view: str, selector: str) -> bool:
    """Reloads a view: does it show ``selector`` now?"""
    goto(page, base, view)
    return bool(page.locator(selector).count() > 0)


def items_of(season: Season, address: str) -> dict[str, Any]:
    return dict(ok(season.http.get(f"/markets/wallets/{address}/items")))


def test_buy_in_the_shop(
    season: Season, pages: dict[str, Any], made: dict[str, Any], artifacts
) -> None:
    type_id = 1 + uuid.uuid4().int % 10_000
    avatar_listing = shop_list(
        season, "avatar", price=AVATAR_PRICE, supply=5, name="Avatar del salón"
    )
    accessory_listing = shop_list(
        season,
        "accessory",
        item_id=type_id,
        max_supply=10,
        price=ACCESSORY_PRICE,
        supply=10,
        name="Sombrero",
        slot="head",
    )
    page, olivia = pages["olivia"], season.olivia
    goto(page, season.base, "shop")
    row = page.locator(f"#shop tr[data-listing='{avatar_listing}']")
    assert row.locator(".price").get_attribute("data-wei") == str(AVATAR_PRICE)
    assert row.locator(".left").get_attribute("data-left") == "5"
    page.screenshot(path=str(artifacts / "markets-shop.png"), full_page=True)

    dew = season.contracts.token.functions
    before = dew.balanceOf(olivia.address).call()
    row.locator("button.buy").click()
    steps = sign_tx_panel(page)
    assert len(steps) == 2, steps  # the DEW approval, then Shop.buy
    assert dew.balanceOf(olivia.address).call() == before - AVATAR_PRICE

    def bought_avatar() -> int | None:
        owned = [a for a in items_of(season, olivia.address)["avatars"] if a["role"] == "owner"]
        return owned[0]["avatar_id"] if owned else None

    avatar_id = wait_for("the bought avatar in olivia's items (indexer)", bought_avatar)
    assert season.contracts.avatar.functions.ownerOf(avatar_id).call() == olivia.address

    # Two of the accessory: one to wear, one to list and cancel.
    for _ in range(2):
        goto(page, season.base, "shop")
        page.locator(f"#shop tr[data-listing='{accessory_listing}'] button.buy").click()
        sign_tx_panel(page)
    accessories = season.contracts.accessories.functions
    assert accessories.balanceOf(olivia.address, type_id).call() == 2
    left = f"#shop tr[data-listing='{accessory_listing}'] .left[data-left='8']"
    wait_for("the supply left after two sales", lambda: shows(page, season.base, "shop", left))
    made.update(avatar_id=avatar_id, type_id=type_id)


def test_equip_an_accessory(
    season: Season, pages: dict[str, Any], made: dict[str, Any], artifacts
) -> None:
    avatar_id, type_id = made["avatar_id"], made["type_id"]
    page = pages["olivia"]
    wait_for(
        "the accessories in olivia's items (indexer)",
        lambda: any(
            a["type_id"] == type_id for a in items_of(season, season.olivia.address)["accessories"]
        ),
    )
    goto(page, season.base, f"avatar/{avatar_id}")
    assert page.get_attribute("#avatar", "data-equipped") == ""
    page.click(f"#spare-accessories button.equip[data-type-id='{type_id}']")
    sign_tx_panel(page)
    equipped = season.contracts.accessories.functions.equippedOf(avatar_id).call()
    assert list(equipped) == [type_id]
    # The page follows the indexer until the avatar wears it, then draws it.
    page.wait_for_selector(f"#avatar[data-equipped='{type_id}']", timeout=60_000)
    drawn = page.locator(f"#avatar .avatar-big svg .accessory[data-type-id='{type_id}']")
    assert drawn.get_attribute("data-slot") == "head"
    page.screenshot(path=str(artifacts / "markets-avatar.png"), full_page=True)


def test_list_and_cancel_on_the_market(
    season: Season, pages: dict[str, Any], made: dict[str, Any], artifacts
) -> None:
    page, type_id = pages["olivia"], made["type_id"]
    goto(page, season.base, "market")
    page.select_option("#sell-item", f"accessory:{type_id}")
    page.fill("#sell-price", "1.5")
    page.fill("#sell-hours", "24")
    page.click("#sell-form button[type=submit]")
    sign_tx_panel(page)

    def open_listing(kind: str, item: int) -> dict[str, Any] | None:
        rows = ok(season.http.get("/markets/listings", params={"seller": season.olivia.address}))
        return next(
            (
                r
                for r in rows
                if r["status"] == "open" and (r["item_kind"], r["id"]) == (kind, str(item))
            ),
            None,
        )

    listing = wait_for(
        "the accessory listing (indexer)", lambda: open_listing("accessory", type_id)
    )
    assert (listing["price"], listing["amount"]) == (str(DEW * 3 // 2), "1")
    goto(page, season.base, "market")
    page.click(f"#open-listings tr[data-listing='{listing['listing_id']}'] button.cancel-listing")
    sign_tx_panel(page)
    cancelled = f"#my-listings tr[data-listing='{listing['listing_id']}'] [data-status=cancelled]"
    wait_for("the cancelled listing", lambda: shows(page, season.base, "market", cancelled))

    # Now the avatar, wearing its accessory.
    avatar_id = made["avatar_id"]
    page.select_option("#sell-item", f"avatar:{avatar_id}")
    page.fill("#sell-price", str(RESALE_PRICE // DEW))
    page.fill("#sell-hours", "48")
    page.click("#sell-form button[type=submit]")
    sign_tx_panel(page)
    made["listing"] = wait_for(
        "the avatar listing (indexer)", lambda: open_listing("avatar", avatar_id)
    )
    page.screenshot(path=str(artifacts / "markets-market-seller.png"), full_page=True)


def test_a_second_wallet_buys_the_listed_avatar(
    browser: Any, season: Season, pages: dict[str, Any], made: dict[str, Any], artifacts
) -> None:
    avatar_id, type_id, listing = made["avatar_id"], made["type_id"], made["listing"]
    page, olivia, oscar = pages["oscar"], season.olivia, season.oscar
    dew = season.contracts.token.functions
    seller_before, buyer_before = (dew.balanceOf(w.address).call() for w in (olivia, oscar))
    goto(page, season.base, "market")
    row = page.locator(f"#open-listings tr[data-listing='{listing['listing_id']}']")
    assert row.locator(".price").get_attribute("data-wei") == str(RESALE_PRICE)
    page.screenshot(path=str(artifacts / "markets-market-buyer.png"), full_page=True)
    row.locator("button.buy-listing").click()
    sign_tx_panel(page)

    avatar, accessories = season.contracts.avatar.functions, season.contracts.accessories.functions
    assert avatar.ownerOf(avatar_id).call() == oscar.address
    assert list(accessories.equippedOf(avatar_id).call()) == [type_id]  # it travelled with it
    assert dew.balanceOf(oscar.address).call() == buyer_before - RESALE_PRICE
    received = dew.balanceOf(olivia.address).call() - seller_before
    royalty_receiver, royalty = avatar.royaltyInfo(avatar_id, RESALE_PRICE).call()
    assert royalty_receiver == season.manifest.extra["treasury"] and royalty > 0
    fee = RESALE_PRICE * season.manifest.extra["market_fee_bps"] // 10_000
    assert received == RESALE_PRICE - royalty - fee

    sold = f"#my-listings tr[data-listing='{listing['listing_id']}'] [data-status=sold]"
    wait_for(
        "the sold listing, seller's page",
        lambda: shows(pages["olivia"], season.base, "market", sold),
    )
    # The buyer's avatar page: his now, wearing the accessory, his to equip.
    wait_for(
        "the avatar's new owner in the mirror (indexer)",
        lambda: ok(season.http.get(f"/markets/avatars/{avatar_id}"))["owner"] == oscar.address,
    )
    goto(page, season.base, f"avatar/{avatar_id}")
    assert page.get_attribute("#avatar", "data-owner") == oscar.address
    assert page.get_attribute("#avatar", "data-equipped") == str(type_id)
    assert page.locator(f"#equipped button.unequip[data-type-id='{type_id}']").count() == 1
    page.screenshot(path=str(artifacts / "markets-avatar-resold.png"), full_page=True)

    # At the table, the seat's avatar is drawn wearing it (avatar.js's seatAvatar).
    with DewClient(season.base) as client:
        client.sign_in(oscar.key)
        table = client.create_table(
            preset="draw", seats=2, kind="practice", earning=True, avatar_id=avatar_id
        )
    goto_view(page, f"{season.base}/#/table/{table['id']}")
    seat = f"#seats .seat-avatar[data-avatar='{avatar_id}'][data-drawn=true]"
    page.wait_for_selector(f"{seat} svg .accessory[data-type-id='{type_id}']")
    page.screenshot(path=str(artifacts / "markets-table-avatar.png"), full_page=True)

    # The new owner takes the accessory off: it comes to his wallet, not the seller's.
    goto(page, season.base, f"avatar/{avatar_id}")
    page.click(f"#equipped button.unequip[data-type-id='{type_id}']")
    sign_tx_panel(page)
    assert list(accessories.equippedOf(avatar_id).call()) == []
    assert accessories.balanceOf(oscar.address, type_id).call() == 1
    page.wait_for_selector("#avatar[data-equipped='']", timeout=60_000)

    # The three pages fit a phone (390 px) for a visitor who is not signed in.
    for view in ("shop", "market", f"avatar/{avatar_id}"):
        ready = f"main[data-ready=true][data-view={view.split('/')[0]}]"
        assert phone_fits(browser, f"{season.base}/#/{view}", ready), view


def test_a_contribution_to_a_tournament_shows_in_its_pool(
    season: Season, pages: dict[str, Any], artifacts: Any
) -> None:
    """DEW Contribution in the page: olivia adds 2.5 DEW to a tournament's prizes; she signs
    the approval and the contribution, and the pool lists her once the worker has seen it."""
    from datetime import timedelta

    from backend.competitions import service
    from backend.db.base import utcnow

    with season.sessions() as session:
        tournament = service.create_tournament(
            session=session,
            spec=service.TournamentSpec(
                name=f"Copa {uuid.uuid4().hex[:6]}",
                preset="draw",
                starts_at=utcnow() + timedelta(hours=1),
            ),
        ).id
    page = pages["olivia"]
    goto_view(page, f"{season.base}/#/competitions/{tournament}")
    assert page.get_attribute("#pool", "data-total") == "0"
    page.fill("#contribute-form input[name=amount]", "2.5")
    page.click("#contribute-form button[type=submit]")
    steps = sign_tx_panel(page)
    assert len(steps) == 2 and "approve" in steps[0] and "contribute" in steps[1], steps
    page.wait_for_selector(f"#pool[data-total='{25 * DEW // 10}']", timeout=60_000)
    assert page.inner_text("#pool-total") == "2.50 DEW"
    listed = page.locator("#pool .contribution").evaluate_all(
        "els => els.map((e) => e.dataset.address)"
    )
    assert listed == [season.olivia.address]
    chain = season.contracts.contributions.functions.contributedTo(tournament).call()
    assert chain == 25 * DEW // 10
    page.screenshot(path=str(artifacts / "contribution.png"), full_page=True)
