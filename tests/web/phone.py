"""The phone-size check of the web tests: a page at 390x844 must not scroll sideways."""

from __future__ import annotations

from typing import Any

PHONE = {"width": 390, "height": 844}
NO_SIDEWAYS_SCROLL = "document.documentElement.scrollWidth <= document.documentElement.clientWidth"


def phone_fits(browser: Any, url: str, ready: str, locale: str = "es-ES") -> bool:
    """Open ``url`` in a fresh phone-size context, wait for ``ready``: does it fit the width?"""
    context = browser.new_context(viewport=PHONE, locale=locale)
    try:
        page = context.new_page()
        page.goto(url)
        page.wait_for_selector(ready)
        return bool(page.evaluate(NO_SIDEWAYS_SCROLL))
    finally:
        context.close()
