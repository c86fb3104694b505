"""Every screen in the player's language, in Chromium at a phone's 390x844: a signed-in wallet
walks every screen of the header (its menu and groups opened too) and a first hand against a
bot, in Spanish and in English, and each one fails on developer text (a snake_case token,
"seed", a number of 15 digits or more, a rule option's raw value), on a sentence of the other
language's catalogue, on a page wider than the phone, and on a control covered by another
element where a tap would land."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest
from eth_account import Account

from tests.web.conftest import InjectedWallet, goto_view, open_wallet_page, sign_in_page
from tests.web.phone import NO_SIDEWAYS_SCROLL, PHONE

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
]
SNAKE = re.compile(r"\b[a-z]+(?:_[a-z0-9]+)+\b")
LONG_NUMBER = re.compile(r"\d{15,}")
SEED = re.compile(r"\bseed\b|\bsemilla\b", re.IGNORECASE)

# The page's visible text, form values included (a select shows its chosen option's label).
TEXT_JS = """() => {
  const shown = ['header', 'main', '#status'].map((s) => document.querySelector(s).innerText);
  for (const s of document.querySelectorAll('select')) shown.push(s.selectedOptions[0]?.text ?? '');
  for (const o of document.querySelectorAll('option')) shown.push(o.text);
  return shown.join('\\n');
}"""
# The texts of controls and cells that are exactly one raw value (a value such as "team" or
# "random" may be a word of a sentence; alone in a control or a cell it is the raw value).
RAW_JS = """(values) => [...document.querySelectorAll('option, td, th, label, span, li, code')]
  .map((e) => e.textContent.trim()).filter((text) => values.includes(text))"""
CATALOGUE_JS = """async (code) => (await import('/web/i18n.js')).catalogue(code)"""


def raw_values(base_url: str) -> set[str]:
    """The rule options' string values as the server spells them (never shown as such)."""
    presets = httpx.get(f"{base_url}/presets").json()
    return {
        str(choice)
        for preset in presets
        for spec in preset["option_specs"]
        for choice in spec["choices"]
        if isinstance(choice, str)
    }


def foreign_sentences(page: Any, lang: str) -> set[str]:
    """The other language's strings that this language says differently (long enough to be a
    sentence, not a shared word such as "DEW" or "VIP")."""
    mine = page.evaluate(CATALOGUE_JS, lang)
    other = page.evaluate(CATALOGUE_JS, "en" if lang == "es" else "es")
    own = set(mine.values())
    return {
        text
        for key, text in other.items()
        if len(text) >= 12 and "{" not in text and text != mine.get(key) and text not in own
    }


# Every control on screen, scrolled to the middle of its scroll boxes: is the element a tap at
# its middle lands on the control itself (or its own label or content)?
COVERED_JS = """() => {
  const controls = document.querySelectorAll(
    'header a[href], header button, header select, main a[href], main button, main input, '
    + 'main select, main textarea, main summary, main [tabindex]:not([tabindex="-1"])');
  const covered = [];
  for (const el of controls) {
    if (!el.getClientRects().length || getComputedStyle(el).visibility === 'hidden') continue;
    el.scrollIntoView({ block: 'center', inline: 'center' });
    const r = el.getClientRects()[0];  // a link that wraps: its first line (the box has gaps)
    if (r.width < 2 || r.height < 2) continue;
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    const own = hit && (hit === el || el.contains(hit) || hit.closest('label')?.control === el);
    if (!own) {
      const name = (e) => e ? `${e.tagName.toLowerCase()}#${e.id}.${e.className}` : 'nothing';
      covered.push(`${name(el)} under ${name(hit)}`);
    }
  }
  window.scrollTo(0, 0);
  return covered;
}"""


def problems_of(page: Any, lang: str, values: set[str]) -> list[str]:
    text = page.evaluate(TEXT_JS)
    found = [f"snake_case {m!r}" for m in SNAKE.findall(text)]
    found += [f"long number {m!r}" for m in LONG_NUMBER.findall(text)]
    found += [f"seed {m!r}" for m in SEED.findall(text)]
    found += [f"raw option value {v!r}" for v in page.evaluate(RAW_JS, sorted(values))]
    found += [f"other language {s!r}" for s in foreign_sentences(page, lang) if s in text]
    if not page.evaluate(NO_SIDEWAYS_SCROLL):
        found.append("wider than 390 px")
    found += [f"covered control: {c}" for c in page.evaluate(COVERED_JS)]
    return found


def speak(page: Any, lang: str) -> None:
    """Switch the page to ``lang`` with the header's button (Spanish is the default here)."""
    if lang == "en":
        page.click("#lang")
        page.wait_for_selector("html[lang=en] main[data-ready=true]")


def open_every_menu(page: Any) -> None:
    """The phone's menu and each of its groups, open (their words are checked too)."""
    page.click("#menu-button")
    for group in page.locator("#nav button.nav-group").all():
        if group.get_attribute("aria-expanded") != "true":
            group.click()


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
