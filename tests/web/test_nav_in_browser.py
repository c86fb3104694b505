"""The header's navigation, the settings page and the first-game guide in Chromium, at a phone's
390x844 and a desktop's 1280x800, on a real server process and PostgreSQL.

- The header is one line; on the phone the list sits behind a menu button that opens by
  keyboard and closes with Escape (focus back on the button). A player sees the player's
  screens and the owner's tools under one "Scholarships" entry; a center's host sees their
  center under "Tools", a plain wallet sees no tools.
- Settings keep the language, the sounds, the motion and the bots' pace in this browser, and
  say in the player's words that the VIP pass cannot be read here (no chain).
- A guest's first hand shows the guide's three hints, in Spanish or English; dismissed, it
  never shows again in that browser.
"""

from __future__ import annotations

import secrets
from typing import Any

import httpx
import pytest
from eth_account import Account

from tests.fixtures.harness import ServerProcess, sign_in
from tests.web.conftest import InjectedWallet, goto_view, open_wallet_page, sign_in_page
from tests.web.phone import NO_SIDEWAYS_SCROLL, PHONE
from tests.web.test_centers_in_browser import _seed_centers

pytestmark = pytest.mark.timeout(300)

DESKTOP = {"width": 1280, "height": 800}
VIEWPORTS = pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["390x844", "1280x800"])
PLAYER_LINKS = {
    "nav-play": "#/lobby",
    "nav-wallet": "#/wallet",
    "nav-shop": "#/shop",
    "nav-market": "#/market",
    "nav-seasons": "#/seasons",
    "nav-competitions": "#/competitions",
    "nav-help": "#/help",
}
# The header's own children all sit on one line: their vertical middles are inside the first
# child's height band, and the header is no taller than one control plus its padding.
ONE_LINE_JS = """() => {
  const header = document.querySelector('header');
  const shown = [...header.children].filter((e) => e.getClientRects().length
    && getComputedStyle(e).position !== 'absolute');
  const boxes = shown.map((e) => e.getBoundingClientRect());
  const top = Math.min(...boxes.map((b) => b.top));
  const bottom = Math.max(...boxes.map((b) => b.bottom));
  return { height: header.getBoundingClientRect().height, span: bottom - top, count: shown.length };
}"""


def visible(page: Any, selector: str) -> bool:
    return bool(page.locator(selector).is_visible())


@VIEWPORTS
def test_the_header_is_one_line_and_the_menu_works_by_keyboard(
    browser: Any, server: ServerProcess, artifacts: Any, viewport: dict[str, int]
) -> None:
    page = open_wallet_page(
        browser, server.url, InjectedWallet(Account.create().key.hex()), viewport
    )
    sign_in_page(page)
    line = page.evaluate(ONE_LINE_JS)
    assert line["height"] <= 64 and line["span"] <= 48, line
    assert page.evaluate(NO_SIDEWAYS_SCROLL)
    phone = viewport == PHONE
    assert visible(page, "#menu-button") == phone
    assert visible(page, "#nav-wallet") != phone  # on the phone the list waits behind the button
    if phone:
        page.focus("#menu-button")
        page.keyboard.press("Enter")
        assert page.get_attribute("#menu-button", "aria-expanded") == "true"
        page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement.id") == "nav-play"
        page.screenshot(path=str(artifacts / "nav-menu-390x844.png"))
        page.keyboard.press("Escape")
        assert page.get_attribute("#menu-button", "aria-expanded") == "false"
        assert not visible(page, "#nav-play")
        assert page.evaluate("document.activeElement.id") == "menu-button"
        page.keyboard.press("Enter")
    for link, href in PLAYER_LINKS.items():
        assert visible(page, f"#{link}"), link
        assert page.get_attribute(f"#{link}", "href") == href
    # The owner's tools under one entry: closed, then opened by keyboard, Escape closes it.
    assert not visible(page, "#nav-dashboard")
    page.focus("#nav-scholarships")
    page.keyboard.press("Enter")
    assert visible(page, "#nav-dashboard") and visible(page, "#nav-screening")
    page.keyboard.press("Escape")
    assert not visible(page, "#nav-dashboard")
    assert page.evaluate("document.activeElement.id") == "nav-scholarships"
    # A plain wallet holds no role: no tools (the roles are read once the header is drawn).
    page.wait_for_function("() => document.querySelector('.nav-roles') !== null")
    page.wait_for_load_state("networkidle")
    assert page.locator("#nav-tools, #nav-screening-queue, .nav-my-center").count() == 0
    # Following a link closes the menu and opens the screen.
    page.click("#nav-shop")
    page.wait_for_selector("main[data-ready=true][data-view=shop]")
    if phone:
        assert page.get_attribute("#menu-button", "aria-expanded") == "false"
    assert not page.js_errors, page.js_errors
    page.context.close()


def test_a_centers_host_sees_the_center_among_the_tools(
    browser: Any, server: ServerProcess
) -> None:
    host = InjectedWallet(Account.create().key.hex())
    ids = _seed_centers(server, host.account.address)
    page = open_wallet_page(browser, server.url, host, DESKTOP)
    sign_in_page(page)
    page.wait_for_selector("#nav-tools")
    page.click("#nav-tools")
    hrefs = page.eval_on_selector_all(
        ".nav-my-center", "els => els.map((e) => e.getAttribute('href'))"
    )
    assert sorted(hrefs) == sorted(f"#/centers/{i}" for i in ids.values())
    assert page.locator("#nav-screening-queue").count() == 0  # hosting is not screening
    page.locator(".nav-my-center").first.click()
    page.wait_for_selector("main[data-ready=true][data-view=centers]")
    assert not page.js_errors, page.js_errors
    page.context.close()


@VIEWPORTS
def test_settings_keep_the_players_choices(
    browser: Any, server: ServerProcess, artifacts: Any, viewport: dict[str, int]
) -> None:
    page = open_wallet_page(
        browser, server.url, InjectedWallet(Account.create().key.hex()), viewport
    )
    sign_in_page(page)
    goto_view(page, f"{server.url}/#/settings")
    # The VIP pass: this server has no chain; its route says so and the page says it in words.
    token = page.evaluate("JSON.parse(sessionStorage.getItem('dew.session')).token")
    answer = httpx.get(f"{server.url}/wallet/vip", headers={"Authorization": f"Bearer {token}"})
    assert answer.status_code == 503, answer.text
    assert page.get_attribute("#vip-status", "data-vip") == "unknown"
    assert page.inner_text("#vip-status") == "No se puede consultar el pase VIP ahora mismo."
    assert page.locator("#settings-name[data-slot=display-name]").count() == 1
    # The display name is chosen here and kept by the server.
    name = f"Ana{secrets.token_hex(3)}"
    page.fill("#display-name", name)
    page.click("#name-form button[type=submit]")
    page.wait_for_selector("#display-name-next:not(:empty)")
    me = httpx.get(f"{server.url}/names/me", headers={"Authorization": f"Bearer {token}"})
    assert me.json()["name"] == name, me.text
    page.check("#setting-sound")
    page.select_option("#setting-motion", "reduce")
    page.select_option("#setting-speed", "slow")
    kept = page.evaluate(
        "() => ['dew.sound', 'dew.motion', 'dew.botSpeed'].map((k) => localStorage.getItem(k))"
    )
    assert kept == ["on", "reduce", "slow"]
    assert page.get_attribute("html", "data-motion") == "reduce"
    assert page.evaluate(NO_SIDEWAYS_SCROLL)
    page.screenshot(path=str(artifacts / f"settings-{viewport['width']}x{viewport['height']}.png"))
    # Language: the page and the header redraw in English, and the choices are still there.
    page.select_option("#setting-lang", "en")
    page.wait_for_selector("html[lang=en] #settings-h:text('Settings')")
    assert page.is_checked("#setting-sound")
    assert page.eval_on_selector("#setting-speed", "e => e.value") == "slow"
    assert page.inner_text("#vip-status") == "The VIP pass cannot be checked right now."
    page.reload()
    page.wait_for_selector("main[data-ready=true][data-view=settings]")
    assert page.eval_on_selector("#setting-motion", "e => e.value") == "reduce"
    assert page.get_attribute("html", "data-motion") == "reduce"
    assert not page.js_errors, page.js_errors
    page.context.close()


def test_the_vip_route_answers_only_a_session(server: ServerProcess) -> None:
    assert httpx.get(f"{server.url}/wallet/vip").status_code == 401
    bad = httpx.get(f"{server.url}/wallet/vip", headers={"Authorization": "Bearer nonsense"})
    assert bad.status_code == 401
    _, token = sign_in(server.url)
    good = httpx.get(f"{server.url}/wallet/vip", headers={"Authorization": f"Bearer {token}"})
    assert good.status_code == 503 and good.json()["error"]["code"] == "chain_unavailable", (
        good.text
    )


GUIDE_WORDS = {
    "es": ("Tu primera mano", "fichas levantadas", "dos extremos", "roba del pozo"),
    "en": ("Your first hand", "raised", "either end", "draw from the boneyard"),
}


@pytest.mark.parametrize(
    ("lang", "viewport"), [("es", PHONE), ("en", DESKTOP)], ids=["es-390x844", "en-1280x800"]
)
def test_the_first_hand_shows_the_guide_once(
    browser: Any, server: ServerProcess, artifacts: Any, lang: str, viewport: dict[str, int]
) -> None:
    page = open_wallet_page(browser, server.url, None, viewport)
    if lang == "en":
        page.click("#lang")
        page.wait_for_selector("html[lang=en] main[data-ready=true]")
    page.click("#play-now")
    page.wait_for_selector("#table[data-status=live] #hand .tile-btn")
    guide = page.wait_for_selector("#first-guide")
    text = guide.inner_text()
    for words in GUIDE_WORDS[lang]:
        assert words in text, (words, text)
    assert page.evaluate(NO_SIDEWAYS_SCROLL)
    # On screen with the felt (over the board's top), whatever the table scrolled to.
    page.wait_for_function(
        """() => { const r = document.querySelector('#first-guide').getBoundingClientRect();
          return r.top >= 0 && r.bottom <= innerHeight; }"""
    )
    assert page.locator(".board-row #first-guide").count() == 1
    page.screenshot(
        path=str(artifacts / f"guide-{lang}-{viewport['width']}x{viewport['height']}.png")
    )
    # The hand's tiles are not under it.
    covered = page.evaluate(
        """() => [...document.querySelectorAll('#hand .tile-btn')].filter((b) => {
          b.scrollIntoView({ block: 'center' });
          const r = b.getBoundingClientRect();
          const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
          return !(top === b || b.contains(top));
        }).length"""
    )
    assert covered == 0
    page.focus("#guide-dismiss")
    page.keyboard.press("Enter")
    assert page.locator("#first-guide").count() == 0
    assert page.evaluate("localStorage.getItem('dew.guide')") == "seen"
    # Seen once: the next table (a reload of this one) shows no guide.
    page.reload()
    page.wait_for_selector("#table #hand .tile-btn")
    assert page.locator("#first-guide").count() == 0
    # The settings page can bring it back for the next hand.
    goto_view(page, f"{server.url}/#/settings")
    page.click("#guide-again")
    assert page.evaluate("localStorage.getItem('dew.guide')") is None
    assert not page.js_errors, page.js_errors
    page.context.close()
