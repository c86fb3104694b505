"""Every screen in the player's language, in Chromium at a phone's 390x844: a signed-in wallet
walks every screen of the header (its menu and groups opened too) and a first hand against a
bot, in Spanish and in English, and each one fails on developer text (a snake_case token,
"seed", a number of 15 digits or more, a rule option's raw value), on a sentence of the other
language's catalogue, on a page wider than the phone, and on a control covered by another
element where a tap would land."""

from __future__ import annotations

import pytest
from eth_account import Account

from tests.web.conftest import InjectedWallet, goto_view, open_wallet_page, sign_in_page
from tests.web.phone import PHONE
from tests.web.words import open_every_menu, problems_of, raw_values, speak

pytestmark = pytest.mark.timeout(300)

SCREENS = [
    "lobby",
    "history",
    "dashboard",
    "wallet",
    "seasons",
    "competitions",
    "help",
    "help/dew200",
    "help/partnership",
    "help/doscientos",
    "help/draw",
    "screening",
    "shop",
    "market",
    "centers",
    "creator",
    "settings",
    "friends",
    "limits",
    "standing",
    "support",
    "moderation",
]


@pytest.mark.parametrize("lang", ["es", "en"])
def test_every_screen_speaks_the_players_language_and_fits_a_phone(browser, server, lang):
    page = open_wallet_page(browser, server.url, InjectedWallet(Account.create().key.hex()), PHONE)
    sign_in_page(page)
    speak(page, lang)
    values = raw_values(server.url)
    report: dict[str, list[str]] = {}
    for screen in SCREENS:
        goto_view(page, f"{server.url}/#/{screen}")
        found = problems_of(page, lang, values)
        if found:
            report[screen] = found
    # The header's menu with its groups open (the roles' tools read by now).
    page.wait_for_load_state("networkidle")
    open_every_menu(page)
    text = page.inner_text("#nav")
    if found := [p for p in problems_of(page, lang, values) if not p.startswith("covered")]:
        report["the menu"] = found
    assert ("Becas" if lang == "es" else "Scholarships") in text
    page.keyboard.press("Escape")
    # A first hand against a bot, with the first-game guide over the board.
    goto_view(page, f"{server.url}/#/lobby")
    page.click("#play-now")
    page.wait_for_selector("#table[data-status=live] #hand .tile-btn")
    page.wait_for_selector("#first-guide")
    if found := problems_of(page, lang, values):
        report["a first hand"] = found
    # A server error is a sentence of the catalogue too (the code stays out of sight).
    goto_view(page, f"{server.url}/#/competitions/{2**31 - 1}")
    page.wait_for_selector("#status.error")
    if found := problems_of(page, lang, values):
        report["an error"] = found
    # Dismissed with its button, and gone when the player moves on.
    page.click("#status .dismiss")
    assert page.inner_text("#status") == ""
    assert report == {}, report
    assert not page.js_errors
    page.context.close()
