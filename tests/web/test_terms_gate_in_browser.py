"""The terms gate in a real Chromium (issue 25): before a seat at a staked table, a wallet that
signed in without the terms is shown the terms link and the legal-age confirmation; cancelling
sends nothing, and accepting re-signs with the terms resources (recorded by the server) before
the join goes out. The gate fits a phone's width."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from eth_account import Account
from sqlalchemy import select

from backend.accounts.models import TermsAcceptance
from backend.db import create_db_engine, make_session_factory
from tests.fixtures.harness import ServerProcess
from tests.web.conftest import (
    InjectedWallet,
    goto_view,
    open_wallet_page,
    pg_server,
    sign_in_page,
)
from tests.web.test_lobby_stakes_in_browser import _staked_table

pytestmark = pytest.mark.timeout(240)

TERMS_URI = "https://dew.example/terms"


@pytest.fixture(scope="module")
def terms_server() -> Iterator[ServerProcess]:
    env = {"DEW_TERMS_VERSION": "2026-11", "DEW_TERMS_URI": TERMS_URI}
    with pg_server(extra_env=env) as proc:
        yield proc


def _acceptances(db_url: str, address: str) -> list[tuple[str, bool]]:
    engine = create_db_engine(db_url)
    try:
        with make_session_factory(engine)() as session:
            rows = session.execute(
                select(TermsAcceptance.terms_version, TermsAcceptance.legal_age_confirmed).where(
                    TermsAcceptance.address == address
                )
            ).all()
            return [(str(version), bool(confirmed)) for version, confirmed in rows]
    finally:
        engine.dispose()


def test_the_terms_gate_comes_before_a_staked_seat(
    browser: Any, terms_server: ServerProcess
) -> None:
    db_url = terms_server.env["DEW_DB_URL"]
    staked_id = _staked_table(db_url, Account.create().address)
    account = Account.create()
    page = open_wallet_page(browser, terms_server.url, InjectedWallet(account.key.hex()))
    assert sign_in_page(page) == account.address
    joins: list[str] = []
    page.on("request", lambda r: joins.append(r.url) if r.url.endswith("/join") else None)
    page.on("dialog", lambda dialog: dialog.accept())  # yes to the stake's amount and timer
    goto_view(page, f"{terms_server.url}/#/lobby")
    page.wait_for_selector(f"#main[data-view=lobby] a[href='#/table/{staked_id}']")
    row = page.locator(f"tr:has(a[href='#/table/{staked_id}'])")
    row.locator("button.join").click()

    # The gate: the terms link and version, the legal-age box; nothing accepted or sent yet.
    page.wait_for_selector("#terms-gate")
    assert page.get_attribute("#terms-gate", "data-version") == "2026-11"
    assert page.get_attribute("#terms-link", "href") == TERMS_URI
    assert "2026-11" in page.inner_text("#terms-link")
    assert page.is_disabled("#terms-accept")
    page.set_viewport_size({"width": 390, "height": 844})
    # The gate itself fits the phone (the lobby's table below it is not this test's).
    fits = page.evaluate(
        "(() => { const g = document.getElementById('terms-gate');"
        " return g.getBoundingClientRect().right <= 390 && g.scrollWidth <= g.clientWidth; })()"
    )
    assert fits
    page.set_viewport_size({"width": 1100, "height": 900})

    # Cancelled: no join, no acceptance.
    page.click("#terms-cancel")
    page.wait_for_selector("#terms-gate", state="detached")
    assert joins == []
    assert _acceptances(db_url, account.address) == []

    # Accepted: the wallet signs the terms message, the server records it, then the join goes.
    row.locator("button.join").click()
    page.wait_for_selector("#terms-gate")
    page.check("#terms-legal-age")
    assert not page.is_disabled("#terms-accept")
    # (Waited for through Playwright: the wallet's signature is a call back into this process.)
    with page.expect_request(lambda r: r.url.endswith("/join"), timeout=30_000):
        page.click("#terms-accept")
    assert joins == [f"{terms_server.url}/tables/{staked_id}/join"]
    assert _acceptances(db_url, account.address) == [("2026-11", True)]
    assert page.locator("#terms-gate").count() == 0

    # Accepted once: the next staked seat asks no more (straight to the join).
    with page.expect_request(lambda r: r.url.endswith("/join"), timeout=30_000):
        row.locator("button.join").click()
    assert len(joins) == 2
    assert page.locator("#terms-gate").count() == 0
    assert not page.js_errors
