"""Renting an avatar through the page, on the demo's real stack (anvil with the contracts,
``dew serve``, a Celery worker and beat, the economy jobs): the owner offers it and the
scholar accepts it, each signing the transactions the page shows with their own injected
wallet; after a settled match both dashboards show the Rewards Division split. Then the
owner's own actions on a phone: a manager's share and an offer's validity, every open offer
withdrawn at once, an idle avatar reclaimed and an ended rental closed."""

from __future__ import annotations

from typing import Any

import pytest

from backend.demo.players import api_txs, choose_move, ok
from backend.demo.season import Season
from backend.devstack.services import wait_for
from backend.protocol.client import DewClient
from tests.web.conftest import (
    InjectedWallet,
    goto_view,
    offer_in_dashboard,
    offer_to_me_shown,
    open_wallet_page,
    sign_in_page,
    sign_tx_panel,
)
from tests.web.phone import PHONE
from tests.web.words import CATALOGUE_JS, problems_of, raw_values

pytestmark = pytest.mark.timeout(420)
OWNER_BPS = 3_000


@pytest.fixture(scope="module")
def season(scholarship_season: Season) -> Season:
    """The demo's first steps, shared with the roles' module (tests/web/conftest.py)."""
    return scholarship_season


def test_owner_offers_scholar_accepts_in_the_page_and_both_see_the_split(
    browser, season, artifacts
):
    owner, scholar, avatar = season.oscar, season.rita, season.avatar_rd
    owner_page = open_wallet_page(browser, season.base, InjectedWallet(owner.key, season.w3))
    assert sign_in_page(owner_page) == owner.address
    steps = offer_in_dashboard(
        owner_page,
        season.base,
        avatar=avatar,
        scholar=scholar.address,
        terms="rewards_division",
        fields={"owner_bps": str(OWNER_BPS)},
    )
    assert "offer" in " ".join(steps).lower()

    scholar_page = open_wallet_page(browser, season.base, InjectedWallet(scholar.key, season.w3))
    assert sign_in_page(scholar_page) == scholar.address
    wait_for(
        "the offer on the scholar's dashboard (indexer)",
        lambda: offer_to_me_shown(scholar_page, season.base),
    )
    scholar_page.click("#offers-to-me button.accept")
    sign_tx_panel(scholar_page)

    [agreement] = wait_for(
        "the agreement active in the mirror",
        lambda: [
            a
            for a in ok(season.http.get("/economy/agreements", params={"avatar_id": avatar}))
            if a["status"] == "active"
        ],
    )
    assert (agreement["owner"], agreement["scholar"]) == (owner.address, scholar.address)
    assert (agreement["terms"], agreement["owner_bps"]) == ("rewards_division", OWNER_BPS)
    assert season.contracts.avatar.functions.userOf(avatar).call() == scholar.address

    # The scholar plays earning matches with the avatar until one pays it (a win).
    with DewClient(season.base) as client:
        client.sign_in(scholar.key)
        for _ in range(8):
            table = client.create_table(
                preset="draw", seats=2, kind="practice", earning=True, avatar_id=avatar
            )
            final = client.play(table["id"], choose_move)
            seat = next(s for s in table["seats"] if s["address"] == scholar.address)["seat"]
            if seat in final["result"]["winner_seats"]:
                break
        else:
            pytest.fail("the scholar lost eight matches in a row to the bot")

    def avatar_paid() -> dict[str, Any] | None:
        rows = ok(season.http.get(f"/economy/owners/{owner.address}/avatars"))
        row = next((r for r in rows if r["avatar_id"] == avatar), None)
        return row if row and int(row["paid"]) > 0 and int(row["pending"]) == 0 else None

    row = wait_for("the avatar's payout settled and booked", avatar_paid, timeout_s=120)
    gross = int(row["gross"])
    owner_share = gross * OWNER_BPS // 10_000
    scholar_share = gross * (10_000 - OWNER_BPS) // 10_000
    assert int(row["owner_share"]) == owner_share + (gross - owner_share - scholar_share)
    assert int(row["scholar_share"]) == scholar_share

    owner_page.goto(season.base + "/#/dashboard")
    owner_page.reload()
    owner_page.wait_for_selector("#my-avatars [data-owner-share]")
    shown = owner_page.get_attribute("#my-avatars [data-owner-share]", "data-owner-share")
    assert shown == row["owner_share"]
    assert (
        owner_page.get_attribute("#my-avatars [data-scholar-share]", "data-scholar-share")
        == row["scholar_share"]
    )
    owner_page.screenshot(path=str(artifacts / "dashboard-owner.png"), full_page=True)

    scholar_page.goto(season.base + "/#/dashboard")
    scholar_page.reload()
    scholar_page.wait_for_selector("#earnings #paid")
    assert scholar_page.get_attribute("#earnings #paid", "data-wei") == row["scholar_share"]
    assert scholar_page.locator("#agreements [data-agreement-status=active]").count() == 1
    scholar_page.screenshot(path=str(artifacts / "dashboard-scholar.png"), full_page=True)
    assert not owner_page.js_errors and not scholar_page.js_errors


# -- the owner's own actions: bulk cancel, the manager's split and expiry, reclaim, close --------

ZERO = "0x" + "00" * 20


def mint_to(season: Season, owner: str, count: int) -> list[int]:
    """``count`` new avatars for ``owner``, minted by the admin (who grants itself the minter
    role: the operator's key belongs to the worker's transaction engine)."""
    from backend.chain.contracts import MINTER_ROLE

    avatar, admin_key = season.contracts.avatar, season.deployer_key
    admin = season.w3.eth.account.from_key(admin_key).address
    season.chain.call(admin_key, avatar.functions.grantRole(MINTER_ROLE, admin))
    [tx_hash] = season.chain.call(admin_key, avatar.functions.mintBatch([owner] * count))
    receipt = season.w3.eth.get_transaction_receipt(tx_hash)
    return [int(e["args"]["tokenId"]) for e in avatar.events.Transfer().process_receipt(receipt)]


def mirrored(season: Season, avatar: int, status: str, count: int = 1) -> list[dict[str, Any]]:
    """The avatar's agreements in ``status`` once the indexer has ``count`` of them."""

    def found() -> list[dict[str, Any]]:
        rows = ok(season.http.get("/economy/agreements", params={"avatar_id": avatar}))
        mine = [a for a in rows if a["status"] == status]
        return mine if len(mine) == count else []

    return wait_for(f"{count} agreement(s) {status} for avatar #{avatar}", found)


def offer_by_api(season: Season, avatar: int, **terms: Any) -> None:
    body = {"owner": season.oscar.address, "avatar_id": avatar, "terms": "rewards_division"}
    body |= {"duration_s": 86_400, "owner_bps": OWNER_BPS, **terms}
    season.chain.send(season.oscar.key, api_txs(season.http.post("/economy/offers", json=body)))


def accept_by_api(season: Season, agreement: dict[str, Any], scholar: Any) -> None:
    accept = f"/economy/agreements/{agreement['id']}/accept"
    season.chain.send(
        scholar.key, api_txs(season.http.post(accept, json={"scholar": scholar.address}))
    )


def dashboard_shows(page: Any, base: str, selector: str) -> bool:
    """The dashboard, drawn again (the indexer may not have the change yet): is it there?"""
    goto_view(page, base + "/#/dashboard")
    return bool(page.locator(selector).count() >= 1)


def test_the_owner_reclaims_an_idle_avatar_closes_an_ended_rental_and_cancels_offers_at_390px(
    browser, season, artifacts
):
    """On a phone, by keyboard where it counts: the owner lists an avatar with a manager's
    share and a 2-hour validity, withdraws its two open offers in one transaction, is told in
    words why an avatar taken an instant ago cannot be reclaimed yet, and an hour of chain
    time later reclaims it and closes another whose term ran out; the mirror, the chain and
    the page agree at each step."""
    owner, w3 = season.oscar, season.w3
    idle, ended = mint_to(season, owner.address, 2)
    page = open_wallet_page(browser, season.base, InjectedWallet(owner.key, w3), PHONE)
    assert sign_in_page(page) == owner.address

    # An open listing with a manager's 10% and 2 hours to be taken, from the page's form.
    head = w3.eth.get_block("latest")["timestamp"]
    steps = offer_in_dashboard(
        page,
        season.base,
        avatar=idle,
        terms="rewards_division",
        fields={"manager": season.vera.address, "manager_bps": "1000", "valid_hours": "2"},
    )
    assert "offer" in " ".join(steps).lower()
    [listing] = mirrored(season, idle, "offered")
    assert (listing["manager"], listing["manager_bps"]) == (season.vera.address, 1000)
    assert head + 7200 <= listing["valid_until"] <= head + 7200 + 60
    # A second offer for it; the owner withdraws both with one button.
    offer_by_api(season, idle, scholar=season.sam.address)
    mirrored(season, idle, "offered", count=2)
    cancel_all = f"#my-avatars button.cancel-offers[data-avatar='{idle}']"
    wait_for("both offers on the dashboard", lambda: dashboard_shows(page, season.base, cancel_all))
    shown = page.inner_text("#agreements")
    assert "gestor 10 %" in shown and "válida hasta" in shown, shown
    page.click(cancel_all)
    assert "cancel every open offer" in " ".join(sign_tx_panel(page))
    mirrored(season, idle, "cancelled", count=2)

    # Listed again and taken by sam (an open listing), and another avatar rented to rita for
    # ten minutes; the owner tries to reclaim at once and is told why not, in words.
    offer_by_api(season, idle)
    accept_by_api(season, mirrored(season, idle, "offered")[0], season.sam)
    offer_by_api(season, ended, scholar=season.rita.address, duration_s=600)
    accept_by_api(season, mirrored(season, ended, "offered")[0], season.rita)
    [taken] = mirrored(season, idle, "active")
    [rented] = mirrored(season, ended, "active")
    reclaim = f"#my-avatars button.reclaim[data-agreement='{taken['id']}']"
    wait_for("the reclaim button", lambda: dashboard_shows(page, season.base, reclaim))
    words = page.evaluate(CATALOGUE_JS, "es")
    page.click(reclaim)
    page.wait_for_selector("#status.error")
    assert page.inner_text("#status .status-text") == words["revert_AgreementNotIdle"]
    assert page.locator(".tx-panel").count() == 0

    # An hour of chain time later (OPEN_LISTING_IDLE): rita's ten minutes are over too.
    w3.provider.make_request("evm_increaseTime", [3601])
    w3.provider.make_request("evm_mine", [])
    close = f"#agreements button.close-agreement[data-agreement='{rented['id']}']"
    wait_for("the close button", lambda: dashboard_shows(page, season.base, close))
    assert page.locator(close).get_attribute("aria-label")
    found = problems_of(page, "es", raw_values(season.base))
    page.screenshot(path=str(artifacts / "dashboard-owner-actions-phone.png"), full_page=True)
    assert found == [], found
    page.focus(reclaim)  # by keyboard: Enter on the row's button, then on the panel's
    page.keyboard.press("Enter")
    page.wait_for_selector(".tx-panel .sign-send:focus")
    page.keyboard.press("Enter")
    page.wait_for_selector(".tx-panel[data-done=true]", timeout=60_000)
    [reclaimed] = mirrored(season, idle, "reclaimed")
    assert reclaimed["id"] == taken["id"] and reclaimed["ended_at"] is not None
    assert season.contracts.avatar.functions.userOf(idle).call() == ZERO

    wait_for("the close button, drawn again", lambda: dashboard_shows(page, season.base, close))
    page.click(close)
    assert "close expired agreement" in " ".join(sign_tx_panel(page))

    def closed() -> dict[str, Any] | None:
        row = ok(season.http.get(f"/economy/agreements/{rented['id']}"))
        return row if row["ended_at"] is not None else None

    assert wait_for("the ended rental closed in the mirror", closed)["status"] == "expired"
    assert season.contracts.avatar.functions.userOf(ended).call() == ZERO
    done = "#my-avatars [data-avatar-status=reclaimed]"
    wait_for(
        "the reclaimed avatar on the dashboard", lambda: dashboard_shows(page, season.base, done)
    )
    assert page.locator(close).count() == 0 and page.locator(reclaim).count() == 0
    assert not page.js_errors, page.js_errors
    page.context.close()
