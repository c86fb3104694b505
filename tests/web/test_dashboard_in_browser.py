"""Renting an avatar through the page, on the demo's real stack (anvil with the contracts,
``dew serve``, a Celery worker and beat, the economy jobs): the owner offers it and the
scholar accepts it, each signing the transactions the page shows with their own injected
wallet; after a settled match both dashboards show the Rewards Division split."""

from __future__ import annotations

from typing import Any

import pytest

from backend.demo.players import choose_move, ok
from backend.demo.season import Season
from backend.devstack.services import wait_for
from backend.protocol.client import DewClient
from tests.web.conftest import (
    InjectedWallet,
    offer_in_dashboard,
    offer_to_me_shown,
    open_wallet_page,
    sign_in_page,
    sign_tx_panel,
)

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
