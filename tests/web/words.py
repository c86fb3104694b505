"""What a player must never read, checked on the page in Chromium: developer text (a snake_case
token, the word "seed", a number of 15 digits or more, a rule option's raw value), a sentence of
the other language's catalogue, a page wider than the viewport and a control covered where a
tap would land. tests/web/test_words_in_browser.py fails on them; scripts/bench_web.py counts
the screens that show them."""

from __future__ import annotations

import re
from typing import Any

import httpx

from tests.web.phone import NO_SIDEWAYS_SCROLL

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
# The whole catalogue: the error sentences (errors.js) load with a page's first error, so they
# are imported here first.
CATALOGUE_JS = """async (code) => {
  await import('/web/errors.js');
  return (await import('/web/i18n.js')).catalogue(code);
}"""

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

WIDER = "wider than the viewport"


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


def developer_text(page: Any, values: set[str]) -> list[str]:
    """The developer text on the page: snake_case tokens, long numbers, "seed", raw values."""
    text = page.evaluate(TEXT_JS)
    found = [f"snake_case {m!r}" for m in SNAKE.findall(text)]
    found += [f"long number {m!r}" for m in LONG_NUMBER.findall(text)]
    found += [f"seed {m!r}" for m in SEED.findall(text)]
    found += [f"raw option value {v!r}" for v in page.evaluate(RAW_JS, sorted(values))]
    return found


def problems_of(page: Any, lang: str, values: set[str]) -> list[str]:
    """Everything a player must not meet on the page in ``lang``: developer text, the other
    language's sentences, a page wider than the viewport, covered controls."""
    found = developer_text(page, values)
    text = page.evaluate(TEXT_JS)
    found += [f"other language {s!r}" for s in foreign_sentences(page, lang) if s in text]
    if not page.evaluate(NO_SIDEWAYS_SCROLL):
        found.append(WIDER)
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
