"""Screening of an owner through the page, on the demo's real stack (anvil with the contracts,
``dew serve``, a Celery worker and beat with the registry indexer): two anvil keys, an owner
and the screener (the operator, who holds SCREENER_ROLE). The owner applies; the screener
rejects with a reason, which the owner sees; the owner applies again and the screener
approves with a transaction their own injected wallet signs; the owner's page shows the
approval once the chain does. A wallet without the role sees no queue."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack

import pytest

from backend.demo.season import DemoConfig, Season
from backend.devstack.services import wait_for
from tests.web.conftest import InjectedWallet, goto_view, open_wallet_page, sign_in_page

pytestmark = pytest.mark.timeout(420)


@pytest.fixture(scope="module")
def season(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Season]:
    config = DemoConfig(workdir=tmp_path_factory.mktemp("web-screening"), out=lambda _text: None)
    with ExitStack() as stack:
        run = Season(config, stack)
        run.start()
        yield run


def _status(page, base: str) -> str | None:
    page.goto(base + "/#/screening")
    page.reload()
    page.wait_for_selector("main[data-ready=true][data-view=screening]")
    return page.get_attribute("#my-application", "data-status")


def test_an_owner_applies_and_the_screener_rejects_then_approves_on_chain(
    browser, season, artifacts
):
    owner_key = season.player_keys[3]
    owner_page = open_wallet_page(browser, season.base, InjectedWallet(owner_key, season.w3))
    owner = sign_in_page(owner_page)
    registry = season.contracts.registry.functions
    assert not registry.isScreened(owner).call()

    # The owner applies; a wallet without the role gets no queue.
    assert _status(owner_page, season.base) == "none"
    assert owner_page.locator("#screening-queue").count() == 0
    owner_page.fill("#screening-statement", "I own two avatars and will rent them fairly.")
    owner_page.click("#screening-form button[type=submit]")
    owner_page.wait_for_selector("#my-application[data-status=pending]")
    assert owner_page.locator("#screening-form").count() == 0  # one open application

    # The screener sees it in the queue and rejects it with a reason.
    screener_page = open_wallet_page(
        browser, season.base, InjectedWallet(season.operator_key, season.w3)
    )
    assert sign_in_page(screener_page) == season.operator
    goto_view(screener_page, season.base + "/#/screening")
    screener_page.wait_for_selector("#screening-queue")
    row = screener_page.locator(
        "#screening-queue tr", has=screener_page.locator(f"[data-applicant='{owner}']")
    )
    assert "rent them fairly" in row.inner_text()
    row.locator("input[name=reason]").fill("Tell us which avatars, please.")
    row.locator("button.reject").click()
    screener_page.locator(f"#screening-queue [data-applicant='{owner}']").wait_for(state="detached")

    assert _status(owner_page, season.base) == "rejected"
    assert "which avatars" in owner_page.inner_text("#my-application .screening-reason")
    owner_page.set_viewport_size({"width": 390, "height": 844})
    wide = owner_page.evaluate(  # what sticks out, should anything
        "[...document.querySelectorAll('body *')]"
        ".filter(e => e.getBoundingClientRect().right > 391)"
        ".map(e => `${e.tagName}#${e.id}: ${e.getBoundingClientRect().right}`)"
    )
    assert owner_page.evaluate("document.documentElement.scrollWidth") <= 390, wide
    owner_page.screenshot(path=str(artifacts / "screening-rejected-phone.png"), full_page=True)
    owner_page.set_viewport_size({"width": 1100, "height": 900})

    # The owner applies again; the screener approves, signing setScreened with their wallet.
    owner_page.fill("#screening-statement", "Avatars 1 and 2, Rewards Division at 30%.")
    owner_page.click("#screening-form button[type=submit]")
    owner_page.wait_for_selector("#my-application[data-status=pending]")
    goto_view(screener_page, season.base + "/#/lobby")
    goto_view(screener_page, season.base + "/#/screening")
    screener_page.wait_for_selector(f"#screening-queue [data-applicant='{owner}']")
    screener_page.screenshot(path=str(artifacts / "screening-queue.png"), full_page=True)
    row = screener_page.locator(
        "#screening-queue tr", has=screener_page.locator(f"[data-applicant='{owner}']")
    )
    row.locator("button.approve").click()
    screener_page.locator(f"#screening-queue [data-applicant='{owner}']").wait_for(
        state="detached", timeout=90_000
    )
    assert registry.isScreened(owner).call()

    wait_for(
        "the owner's page shows the approval",
        lambda: _status(owner_page, season.base) == "approved",
    )
    owner_page.screenshot(path=str(artifacts / "screening-approved.png"), full_page=True)
    assert owner_page.get_attribute("#my-application", "data-decided-by") == season.operator
    tx_hash = owner_page.get_attribute("#my-application .screening-tx", "data-tx")
    receipt = season.w3.eth.get_transaction_receipt(tx_hash)
    assert receipt["from"] == season.operator and receipt["status"] == 1
    assert not owner_page.js_errors and not screener_page.js_errors
