"""Roles, the VIP pass and the wide screens on the demo's real stack (anvil with the contracts,
``dew serve``, a worker and the indexers), in Chromium:

- the operator's wallet holds SCREENER_ROLE on chain: its header has the applications to
  review under "Tools"; an owner's wallet has no tools;
- vera holds a VIP pass (the demo's ``dew vip issue``): her settings page gives its expiry in
  the player's words and language, an ordinary player's says there is none;
- at 390x844, with a shop listing, minted avatars and a season, the shop, market, wallet,
  avatars, seasons and settings screens fit the phone, every control is on screen without a
  sideways scroll (a table's rows are cards), in Spanish and in English.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from backend.demo.season import Season
from tests.web.conftest import InjectedWallet, goto_view, open_wallet_page, sign_in_page
from tests.web.phone import PHONE
from tests.web.test_dashboard_in_browser import season  # noqa: F401 (the demo's stack)
from tests.web.test_markets_in_browser import shop_list
from tests.web.test_words_in_browser import problems_of, raw_values, speak

pytestmark = pytest.mark.timeout(600)

DEW = 10**18
PHONE_SCREENS = ["shop", "market", "wallet", "dashboard", "seasons", "competitions", "settings"]
# Controls that reach past the screen's right edge (a row's button off screen, as the shop's
# "Buy" once was at x=497): every control must be reachable without a sideways scroll.
OFF_SCREEN_JS = """() => [...document.querySelectorAll(
    'main a[href], main button, main input, main select')]
  .filter((e) => e.getClientRects().length)
  .map((e) => [e, e.getBoundingClientRect()])
  .filter(([, r]) => r.right > document.documentElement.clientWidth + 1 || r.left < -1)
  .map(([e, r]) => `${e.tagName.toLowerCase()}.${e.className} at x=${Math.round(r.right)}`)"""


@pytest.fixture(scope="module")
def stack(season: Season) -> Season:  # noqa: F811 (the imported fixture)
    """The demo's stack (minted avatars, oscar screened: test_dashboard_in_browser's), with a
    VIP pass for vera and an avatar in the shop."""
    season.vip_pass()
    shop_list(season, "avatar", price=10 * DEW, supply=5, name="Avatar del salón")
    return season


def signed_in(browser: Any, stack: Season, key: str, viewport: dict[str, int] | None = None) -> Any:
    page = open_wallet_page(browser, stack.base, InjectedWallet(key, stack.w3), viewport)
    sign_in_page(page)
    return page


def test_a_screener_sees_the_review_queue_and_an_owner_does_not(
    browser: Any, stack: Season
) -> None:
    operator = signed_in(browser, stack, stack.operator_key)
    operator.wait_for_selector("#nav-tools")
    operator.click("#nav-tools")
    operator.click("#nav-screening-queue")
    operator.wait_for_selector("main[data-ready=true][data-view=screening]")
    owner = signed_in(browser, stack, stack.oscar.key)
    owner.wait_for_load_state("networkidle")
    assert owner.locator("#nav-tools, #nav-screening-queue").count() == 0
    for page in (operator, owner):
        assert not page.js_errors, page.js_errors
        page.context.close()


def test_the_settings_give_the_vip_pass_and_its_expiry(browser: Any, stack: Season) -> None:
    expires = stack.contracts.vip.functions.expiresAt(stack.vera.address).call()
    page = signed_in(browser, stack, stack.vera.key)
    goto_view(page, f"{stack.base}/#/settings")
    assert page.get_attribute("#vip-status", "data-vip") == "valid"
    shown = datetime.fromisoformat(str(page.get_attribute("#vip-status", "data-expires")))
    assert shown == datetime.fromtimestamp(expires, UTC)
    day = datetime.fromtimestamp(expires, UTC)
    months_es = ["enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto",
                 "septiembre", "octubre", "noviembre", "diciembre"]  # fmt: skip
    text = page.inner_text("#vip-status")
    assert (
        text.startswith("Tienes un pase VIP vigente hasta el ") and months_es[day.month - 1] in text
    )
    assert str(day.year) in text
    page.click("#lang")
    page.wait_for_selector("html[lang=en] main[data-ready=true][data-view=settings]")
    text = page.inner_text("#vip-status")
    assert text.startswith("You hold a VIP pass, valid until ") and day.strftime("%B") in text
    # Another player holds none, and is told where passes are sold.
    other = signed_in(browser, stack, stack.oscar.key)
    goto_view(other, f"{stack.base}/#/settings")
    assert other.get_attribute("#vip-status", "data-vip") == "none"
    assert other.locator("#vip-status a[href='#/shop']").count() == 1
    for p in (page, other):
        assert not p.js_errors, p.js_errors
        p.context.close()


@pytest.mark.parametrize("lang", ["es", "en"])
def test_the_wide_screens_fit_a_phone(
    browser: Any, stack: Season, artifacts: Any, lang: str
) -> None:
    page = signed_in(browser, stack, stack.oscar.key, PHONE)
    speak(page, lang)
    values = raw_values(stack.base)
    report: dict[str, list[str]] = {}
    for screen in PHONE_SCREENS:
        goto_view(page, f"{stack.base}/#/{screen}")
        page.wait_for_load_state("networkidle")
        found = problems_of(page, lang, values)
        found += [f"off screen: {c}" for c in page.evaluate(OFF_SCREEN_JS)]
        page.screenshot(path=str(artifacts / f"phone-{screen}-{lang}.png"), full_page=True)
        if found:
            report[screen] = found
    # The shop's row is a card: its buy button is inside the screen.
    goto_view(page, f"{stack.base}/#/shop")
    page.wait_for_selector("main table.cards button")
    assert report == {}, report
    assert not page.js_errors, page.js_errors
    page.context.close()
