"""The lobby in a real Chromium shows what a seat costs before anyone sits down: the stake,
the earning flag and the turn timer of every open table; a join that escrows money asks for a
confirmation first, and declining it sends nothing to the server (issue 17, finding 3)."""

from __future__ import annotations

import secrets
import uuid

import httpx
import pytest
from eth_account import Account

from backend.db import create_db_engine, make_session_factory
from backend.db.base import utcnow
from backend.tables import play
from backend.tables.models import Table, TableSeat
from tests.fixtures.harness import sign_in, wait_for
from tests.web.conftest import InjectedWallet, goto_view, open_wallet_page, sign_in_page

pytestmark = pytest.mark.timeout(180)

STAKE = 5 * 10**18


def _staked_table(db_url: str, creator: str) -> str:
    """An open staked earning table with its creator seated, as the server would hold it once
    a VIP created it (this server has no chain to admit anyone to an earning table)."""
    engine = create_db_engine(db_url)
    table_id = uuid.uuid4().hex
    try:
        with make_session_factory(engine).begin() as session:
            session.add(
                Table(
                    id=table_id,
                    preset="draw",
                    options=play.table_rules("draw", {}, 2).options,
                    seat_count=2,
                    stake=str(STAKE),
                    earning=True,
                    kind="human",
                    visibility="public",
                    invite_code=secrets.token_urlsafe(12),
                    creator=creator,
                    bot_level="easy",
                    turn_timeout_s=20.0,
                    spectators_allowed=True,
                    spectator_delay_s=0.0,
                    status="open",
                    created_at=utcnow(),
                )
            )
            session.flush()
            session.add(TableSeat(table_id=table_id, seat=0, address=creator, admitted_as="vip"))
    finally:
        engine.dispose()
    return table_id


def test_lobby_shows_stake_earning_and_timer_and_confirms_a_staked_join(browser, server):
    creator = Account.create().address
    staked_id = _staked_table(server.env["DEW_DB_URL"], creator)
    _, host_token = sign_in(server.url)
    free = httpx.post(
        f"{server.url}/tables",
        json={"preset": "draw", "seats": 2, "turn_timeout_s": 45},
        headers={"Authorization": f"Bearer {host_token}"},
    ).json()

    page = open_wallet_page(browser, server.url, InjectedWallet(Account.create().key.hex()))
    sign_in_page(page)
    joins: list[str] = []
    page.on("request", lambda r: joins.append(r.url) if r.url.endswith("/join") else None)
    goto_view(page, f"{server.url}/#/lobby")
    page.wait_for_selector(f"#main[data-view=lobby] a[href='#/table/{staked_id}']")
    row = page.locator(f"tr:has(a[href='#/table/{staked_id}'])")
    assert row.locator(".stake").get_attribute("data-wei") == str(STAKE)
    assert "5.00 DEW" in row.locator(".stake").inner_text()
    assert row.locator(".earning-flag").get_attribute("data-earning") == "true"
    assert row.locator(".turn-timer").inner_text() == "20 s"
    free_row = page.locator(f"tr:has(a[href='#/table/{free['id']}'])")
    assert free_row.locator(".stake").get_attribute("data-wei") == "0"
    assert free_row.locator(".earning-flag").get_attribute("data-earning") == "false"
    assert free_row.locator(".turn-timer").inner_text() == "45 s"

    # Declined: the page asked, with the amount and the timer, and sent nothing.
    dialogs: list[str] = []

    def decline(dialog) -> None:  # type: ignore[no-untyped-def]
        dialogs.append(dialog.message)
        dialog.dismiss()

    page.once("dialog", decline)
    row.locator("button.join").click()
    wait_for(lambda: dialogs, timeout=10, what="the stake confirmation")
    assert "5.00 DEW" in dialogs[0] and "20 s" in dialogs[0]
    assert joins == []
    with httpx.Client(base_url=server.url) as http:
        lobby = {t["id"]: t for t in http.get("/tables", params={"status": "open"}).json()}
    assert len(lobby[staked_id]["seats"]) == 1

    # Accepted: the join goes to the server (which has no chain here to admit the seat).
    def accept(dialog) -> None:  # type: ignore[no-untyped-def]
        dialogs.append(dialog.message)
        dialog.accept()

    page.once("dialog", accept)
    row.locator("button.join").click()
    wait_for(lambda: joins, timeout=10, what="the join request")
    assert joins == [f"{server.url}/tables/{staked_id}/join"] and len(dialogs) == 2

    # A free table seats at once, without a question.
    goto_view(page, f"{server.url}/#/lobby")
    page.wait_for_selector(f"#main[data-view=lobby] a[href='#/table/{free['id']}']")
    page.locator(f"tr:has(a[href='#/table/{free['id']}']) button.join").click()
    page.wait_for_selector(f"#table[data-table='{free['id']}']")
    assert len(dialogs) == 2
    assert not page.js_errors
