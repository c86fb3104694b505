"""The lobby at a phone's 390x844 and a desktop's 1280x800 (issue 21): every open table shows
its stake, earning flag, turn timer and fees; a seat that escrows DEW is confirmed first (and
declining sends nothing); earning play picks an avatar from a list instead of a typed id; the
page never scrolls sideways and the status bar does not sit over the Create button."""

from __future__ import annotations

import httpx
import pytest
from eth_account import Account

from tests.fixtures.harness import sign_in, wait_for
from tests.web.conftest import InjectedWallet, goto_view, open_wallet_page, sign_in_page
from tests.web.contrast import low_contrast
from tests.web.test_lobby_stakes_in_browser import _staked_table

pytestmark = pytest.mark.timeout(180)

NO_SIDEWAYS = "document.documentElement.scrollWidth <= document.documentElement.clientWidth"


@pytest.mark.parametrize(
    "viewport",
    [{"width": 390, "height": 844}, {"width": 1280, "height": 800}],
    ids=["390x844", "1280x800"],
)
def test_lobby_confirms_the_stake_shows_fees_and_fits(browser, server, artifacts, viewport):
    staked_id = _staked_table(server.env["DEW_DB_URL"], Account.create().address)
    _, host_token = sign_in(server.url)
    free = httpx.post(
        f"{server.url}/tables",
        json={"preset": "draw", "seats": 2},
        headers={"Authorization": f"Bearer {host_token}"},
    ).json()
    page = open_wallet_page(
        browser, server.url, InjectedWallet(Account.create().key.hex()), viewport
    )
    sign_in_page(page)
    joins: list[str] = []
    page.on("request", lambda r: joins.append(r.url) if r.url.endswith("/join") else None)
    goto_view(page, f"{server.url}/#/lobby")
    page.wait_for_selector(f"#main[data-view=lobby] a[href='#/table/{staked_id}']")
    assert page.evaluate(NO_SIDEWAYS), "the lobby scrolls sideways"

    row = page.locator(f"tr:has(a[href='#/table/{staked_id}'])")
    assert "5.00 DEW" in row.locator(".stake").inner_text()
    assert row.locator(".earning-flag").get_attribute("data-earning") == "true"
    assert row.locator(".turn-timer").inner_text() == "20 s"
    # The fees cell shows the table's fees from the one schedule (the lobby's own summary).
    lobby = httpx.get(f"{server.url}/tables").json()
    (summary,) = [t for t in lobby if t["id"] == free["id"]]
    fees_cell = page.locator(f"tr:has(a[href='#/table/{free['id']}']) .fees")
    assert fees_cell.get_attribute("data-rake-bps") == str(summary["fees"]["rake_bps"])
    assert f"{summary['fees']['creator_bps'] / 100:g} %" in fees_cell.inner_text()

    dialogs: list[str] = []

    def decline(dialog) -> None:  # type: ignore[no-untyped-def]
        dialogs.append(dialog.message)
        dialog.dismiss()

    page.once("dialog", decline)
    row.locator("button.join").click()
    wait_for(lambda: dialogs, timeout=10, what="the stake confirmation")
    assert "5.00 DEW" in dialogs[0] and "20 s" in dialogs[0]
    assert joins == []

    # Earning play: an avatar is picked from the wallet's list, never typed.
    page.check("#create-earning")
    page.wait_for_selector("#avatar-pick[data-loaded=true]")
    assert page.locator("#create-table input[name=avatar_id][type=number]").count() == 0
    assert page.locator("#create-table input[type=text][name=avatar_id]").count() == 0
    # This fresh wallet owns and rents nothing: the picker says so.
    assert page.get_attribute("#avatar-pick", "data-count") == "0"
    assert page.evaluate(NO_SIDEWAYS), "the earning form scrolls sideways"

    # The Create button, scrolled to the bottom of the screen, is not under the status bar
    # (shown here with a long note, as after signing in).
    page.evaluate("document.querySelector('#status').textContent = 'DEW '.repeat(60)")
    hit = page.evaluate(
        """() => {
          const button = document.querySelector('#create-table button[type=submit]');
          button.scrollIntoView({ block: 'end' });
          const r = button.getBoundingClientRect();
          const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
          return top === button || button.contains(top);
        }"""
    )
    assert hit, "the status bar covers the Create button"
    assert low_contrast(page, "header, main") == []
    size = f"{viewport['width']}x{viewport['height']}"
    page.screenshot(path=str(artifacts / f"lobby-{size}.png"), full_page=True)
    assert not page.js_errors
