"""The web client runs under its Content-Security-Policy, and Chromium enforces it."""

from __future__ import annotations

from typing import Any

from tests.web.conftest import open_wallet_page


def test_the_page_runs_under_its_policy_and_an_injected_script_is_blocked(
    browser: Any, server: Any
) -> None:
    page = open_wallet_page(browser, server.url, None)
    # The lobby loaded (modules, styles, preloaded reads) with no violation reported.
    assert not page.js_errors
    policy = page.evaluate("async () => (await fetch('/')).headers.get('content-security-policy')")
    assert "script-src 'self'" in policy and "frame-ancestors 'none'" in policy
    # What an injection would do: an inline script, an image from elsewhere. Both refused.
    with page.expect_console_message(lambda m: m.text.startswith("CSP violation: script-src")):
        page.evaluate(
            """() => {
              const s = document.createElement("script");
              s.textContent = "window.__injected = true";
              document.head.append(s);
            }"""
        )
    assert page.evaluate("() => window.__injected === undefined")
    with page.expect_console_message(lambda m: m.text.startswith("CSP violation: img-src")):
        page.evaluate(
            """() => { const i = new Image(); i.src = "http://203.0.113.1/pixel.png";
                       document.body.append(i); }"""
        )
    assert any("script-src" in error for error in page.js_errors), page.js_errors
    assert any("img-src" in error for error in page.js_errors), page.js_errors
