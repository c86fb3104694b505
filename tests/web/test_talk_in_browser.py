"""Table talk in a real Chromium (issue 25): two wallets, each in its own browser context,
sit at one table; a quick-chat phrase clicked by one is seen by the other in the other's
language, a muted seat is not heard, and a player is reported through the report dialog
into the operator's complaints queue. The bar fits a phone's width."""

from __future__ import annotations

import pytest
from eth_account import Account
from sqlalchemy import create_engine, select

from backend.tables.moderation.complaints import Complaint
from tests.tables.harness import api, sign_in
from tests.web.conftest import InjectedWallet, goto_view, open_wallet_page, sign_in_page

pytestmark = pytest.mark.timeout(240)


def test_a_phrase_is_seen_by_the_other_seat_and_a_player_is_reported(browser, server, artifacts):
    host_account, guest_account = Account.create(), Account.create()
    _, host_token = sign_in(server.url, host_account)
    _, guest_token = sign_in(server.url, guest_account)
    with api(server.url, host_token) as host:
        created = host.post("/tables", json={"preset": "dew200", "seats": 4})
        assert created.status_code == 201, created.text
        table_id = created.json()["id"]
    with api(server.url, guest_token) as guest:
        assert guest.post(f"/tables/{table_id}/join").status_code == 200

    pages = []
    for account in (host_account, guest_account):
        page = open_wallet_page(browser, server.url, InjectedWallet(account.key.hex()))
        assert sign_in_page(page) == account.address
        # The lobby the sign-in shows first must be drawn, or it could replace the table.
        page.wait_for_selector("main[data-ready=true]")
        goto_view(page, f"{server.url}/#/table/{table_id}")
        page.wait_for_selector("#talk #phrases button[data-phrase=good_luck]")
        pages.append(page)
    host_page, guest_page = pages

    # The host speaks (Spanish page); the guest reads it in English.
    guest_page.click("#lang")
    guest_page.wait_for_selector("#talk #phrases button[data-phrase=good_luck]")
    host_page.click("#phrases button[data-phrase=good_luck]")
    line = guest_page.wait_for_selector("#talk-log li[data-seat='0'][data-phrase=good_luck]")
    assert "Good luck!" in line.inner_text()
    mine = host_page.wait_for_selector("#talk-log li[data-seat='0'][data-phrase=good_luck]")
    assert "¡Buena suerte!" in mine.inner_text()
    host_page.click("#emotes button[data-emote=clap]")
    guest_page.wait_for_selector("#talk-log li[data-seat='0'][data-emote=clap]")

    # The guest mutes the host: the host's next phrase never shows; the guest's own does.
    guest_page.click("#talk-seats button.mute[data-seat='0']")
    guest_page.wait_for_selector("#talk-seats button.mute[data-seat='0'][aria-pressed=true]")
    host_page.click("#phrases button[data-phrase=hurry_up]")
    host_page.wait_for_selector("#talk-log li[data-phrase=hurry_up]")
    guest_page.click("#phrases button[data-phrase=thinking]")
    guest_page.wait_for_selector("#talk-log li[data-seat='1'][data-phrase=thinking]")
    assert guest_page.locator("#talk-log li[data-phrase=hurry_up]").count() == 0

    # On a phone, nothing scrolls sideways.
    guest_page.set_viewport_size({"width": 390, "height": 844})
    assert guest_page.evaluate("document.documentElement.scrollWidth") <= 390

    # The guest reports the host through the dialog.
    guest_page.click(f"#talk-seats button.report[data-address='{host_account.address}']")
    guest_page.wait_for_selector("#report-dialog[open]")
    guest_page.select_option("#report-reason", "stalling")
    guest_page.fill("#report-note", "waits every turn")
    guest_page.screenshot(path=str(artifacts / "talk-report.png"))
    guest_page.click("#report-send")
    guest_page.wait_for_function(
        "() => document.querySelector('#status').textContent.includes('operator')"
    )
    assert guest_page.locator("#report-dialog").count() == 0
    engine = create_engine(server.env["DEW_DB_URL"])
    try:
        with engine.connect() as conn:
            rows = conn.execute(
                select(
                    Complaint.reporter, Complaint.reported, Complaint.reason, Complaint.note
                ).where(Complaint.table_id == table_id)
            ).all()
    finally:
        engine.dispose()
    assert [tuple(r) for r in rows] == [
        (guest_account.address, host_account.address, "stalling", "waits every turn")
    ]
    for page in pages:
        assert page.js_errors == []
        page.context.close()
