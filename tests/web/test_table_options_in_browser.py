"""The create-table form in a real Chromium (issue 25): a VIP creates a premium table with
its options and a bot level per seat, a wallet without a pass is told why it is refused;
seed 004's same-device mode hides the other player's hand behind a hand-over screen; and a
viewer of a bots-only table slows it down for themselves only."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from eth_account import Account

from tests.fixtures.harness import ServerProcess, sign_in, wait_for
from tests.hostile.test_tables import Chain
from tests.web.conftest import InjectedWallet, goto_view, open_wallet_page, pg_server, sign_in_page

pytestmark = pytest.mark.timeout(240)


@pytest.fixture(scope="module")
def chain_server(deployment: Any) -> Iterator[tuple[ServerProcess, Chain]]:
    """A server that reads VIP passes from the module's anvil deployment."""
    chain = Chain(deployment)
    with pg_server(turn_timeout_s=60, bot_move_delay_s=30.0, extra_env=chain.env) as proc:
        yield proc, chain


def _choose(page: Any, selector: str, value: str) -> None:
    page.select_option(selector, value)


def _offered(page: Any, option: str) -> list[str]:
    return [
        str(v)
        for v in page.locator(f"select[data-option={option}] option").evaluate_all(
            "(els) => els.map((e) => e.value)"
        )
    ]


def test_a_vip_creates_a_premium_table_with_its_options(browser, chain_server) -> None:  # type: ignore[no-untyped-def]
    server, chain = chain_server
    # Without a pass: the premium choice is marked, and the refusal says why.
    page = open_wallet_page(browser, server.url, InjectedWallet(Account.create().key.hex()))
    sign_in_page(page)
    page.wait_for_selector("#create-table #create-preset")
    _choose(page, "#create-preset", "partnership")
    _choose(page, "select[data-option=target]", "150")
    star = "select[data-option=target] option[value='150']"
    assert page.get_attribute(star, "data-premium") == "true"
    assert page.get_attribute("fieldset.rule-options", "data-premium") == "true"
    assert "VIP" in page.inner_text(".premium-note")
    page.click("#create-table button[type=submit]")
    page.wait_for_selector("#create-table .form-error:not(:empty)")
    assert "VIP" in page.inner_text("#create-table .form-error")
    assert "#/table/" not in page.url

    vip = chain.vip()
    page = open_wallet_page(browser, server.url, InjectedWallet(vip.key.hex()))
    sign_in_page(page)
    page.wait_for_selector("#create-table #create-preset")
    _choose(page, "#create-preset", "partnership")
    # 500 and 1,000 points are offered only once collective points are on (seed 003).
    assert "500" not in _offered(page, "target")
    _choose(page, "select[data-option=collective_bonus]", "true")
    assert {"500", "1000"} <= set(_offered(page, "target"))
    _choose(page, "select[data-option=collective_bonus]", "false")
    _choose(page, "select[data-option=target]", "150")
    _choose(page, "select[data-option=scoring]", "all")
    _choose(page, "#bot-level-1", "easy")
    _choose(page, "#bot-level-3", "expert")
    page.fill("#turn-timer", "90")
    page.click("#create-table button[type=submit]")
    page.wait_for_selector("#table[data-table]")
    table_id = page.get_attribute("#table", "data-table")
    _, token = sign_in(server.url)
    with httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {token}"}) as http:
        table = http.get(f"/tables/{table_id}").json()
    assert table["creator"] == vip.address and table["kind"] == "practice"
    assert (table["options"]["target"], table["options"]["scoring"]) == (150, "all")
    assert table["turn_timeout_s"] == 90
    assert {s["seat"]: s["bot_level"] for s in table["seats"]} == {
        0: None,
        1: "easy",
        2: "medium",
        3: "expert",
    }
    assert not page.js_errors


def test_same_device_mode_hides_the_other_hand(browser, server) -> None:  # type: ignore[no-untyped-def]
    page = open_wallet_page(browser, server.url, InjectedWallet(Account.create().key.hex()))
    page.set_viewport_size({"width": 390, "height": 844})
    sign_in_page(page)
    page.wait_for_selector("#create-table #create-kind")
    _choose(page, "#create-kind", "same_device")
    page.wait_for_selector("#same-device-hint")
    assert "null" not in page.inner_text("main")
    # A phone does not scroll sideways with the whole form open.
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    _choose(page, "#create-preset", "draw")
    page.click("#create-table button[type=submit]")
    page.wait_for_selector("#table[data-status=live]")

    def take_device() -> list[str]:
        page.wait_for_selector("#hand-over")
        assert page.locator("#hand").count() == 0  # nobody's tiles while the device changes hands
        page.click("#show-hand")
        page.wait_for_selector("#hand .tile-btn")
        assert page.locator("#hand-over").count() == 0
        return [
            str(x)
            for x in page.locator("#hand .tile-btn").evaluate_all(
                "(els) => els.map((e) => e.dataset.tile)"
            )
        ]

    first = take_device()
    ply = int(page.get_attribute("#table", "data-ply") or "0")
    page.locator("#hand .tile-btn.legal").first.click()
    if page.locator("#sides .side").count():
        page.locator("#sides .side").first.click()
    page.wait_for_selector(f"#table:not([data-ply='{ply}'])")
    second = take_device()
    assert set(first).isdisjoint(second)  # the other seat's hand, never the first one
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert not page.js_errors


def test_a_viewer_slows_a_bots_only_table_for_themselves_only(browser, server) -> None:  # type: ignore[no-untyped-def]
    _, token = sign_in(server.url)
    slow = open_wallet_page(browser, server.url, None)
    slow.evaluate("localStorage.setItem('dew.botSpeed', 'slow')")
    live = open_wallet_page(browser, server.url, None)
    with httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {token}"}) as http:
        table = http.post("/tables", json={"preset": "dew200", "seats": 4, "kind": "ai"}).json()
    for page in (slow, live):
        goto_view(page, f"{server.url}/#/table/{table['id']}")
    slow.wait_for_selector("#table[data-status=live]")
    live.wait_for_selector("#table[data-status=live]")
    assert slow.input_value("#bot-speed") == "slow" and live.input_value("#bot-speed") == "live"
    start = int(slow.get_attribute("#table", "data-ply") or "0")

    def live_ply() -> int:
        return int(live.get_attribute("#table", "data-ply") or "0")

    wait_for(lambda: live_ply() >= start + 30, timeout=60, what="the live viewer to see 30 moves")
    # At 3 s a move, the slow viewer has seen a few at most; the match did not wait for it.
    assert int(slow.get_attribute("#table", "data-ply") or "0") <= start + 4
    assert not slow.js_errors and not live.js_errors
