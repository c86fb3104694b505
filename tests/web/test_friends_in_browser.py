"""Friends in Chromium (issue 32), on the package's server and PostgreSQL: ana (1280x800)
asks bea (a phone, 390x844) by her display name, bea accepts, they exchange a message typed
and sent by keyboard, and ana invites bea to her private table from the friends list; bea
sees the invitation, opens the table and takes a seat. ana reports bea's message through
the report dialog of the conversation. Neither screen is wider than its
viewport, and neither page logs an error."""

from __future__ import annotations

import secrets
from typing import Any

import pytest
from eth_account import Account

from tests.fixtures.harness import ServerProcess, api, sign_in
from tests.web.conftest import InjectedWallet, goto_view, open_wallet_page, sign_in_page
from tests.web.phone import NO_SIDEWAYS_SCROLL, PHONE

pytestmark = pytest.mark.timeout(300)

DESKTOP = {"width": 1280, "height": 800}


def _page(browser: Any, server: ServerProcess, account: Any, viewport: dict[str, int]) -> Any:
    page = open_wallet_page(browser, server.url, InjectedWallet(account.key.hex()), viewport)
    sign_in_page(page)
    return page


def test_two_friends_exchange_a_message_and_one_invites_the_other(
    browser: Any, server: ServerProcess, artifacts: Any
) -> None:
    ana_key, bea_key = Account.create(), Account.create()
    ana, bea = ana_key.address, bea_key.address
    name = f"Bea{secrets.token_hex(3)}"
    _, bea_token = sign_in(server.url, bea_key)
    with api(server.url, bea_token) as client:
        assert client.put("/names/me", json={"name": name}).status_code == 200
    desk, phone = _page(browser, server, ana_key, DESKTOP), _page(browser, server, bea_key, PHONE)

    # ana asks bea by her name, from the keyboard.
    goto_view(desk, f"{server.url}/#/friends")
    desk.fill("#friend-who", name)
    desk.press("#friend-who", "Enter")
    desk.wait_for_selector(f"#friend-outgoing li[data-address='{bea}']")
    goto_view(phone, f"{server.url}/#/friends")
    phone.click(f"#friend-incoming li[data-address='{ana}'] button.accept")
    phone.wait_for_selector(f"#friend-list li[data-address='{ana}'] a.talk-to")
    assert phone.evaluate(NO_SIDEWAYS_SCROLL)

    # A message each way; the conversation opens with the focus in the message box.
    goto_view(desk, f"{server.url}/#/friends/{bea}")
    desk.keyboard.type("¿Jugamos una partida?")
    desk.keyboard.press("Enter")
    desk.wait_for_selector("#chat-log li[data-mine=true]")
    phone.click(f"#friend-list li[data-address='{ana}'] a.talk-to")
    phone.wait_for_selector("#chat-log li[data-mine=false]")
    assert "¿Jugamos una partida?" in phone.inner_text("#chat-log")
    phone.keyboard.type("¡Sí, invítame!")
    phone.keyboard.press("Enter")
    phone.wait_for_selector("#chat-log li[data-mine=true]")
    assert phone.evaluate(NO_SIDEWAYS_SCROLL)
    phone.screenshot(path=str(artifacts / "friends-chat-390x844.png"))
    desk.wait_for_selector("#chat-log li[data-mine=false]")  # it comes in while open
    assert "¡Sí, invítame!" in desk.inner_text("#chat-log")
    # ana reports bea's message from the conversation: it reaches the reports, with its id.
    desk.click("#chat-log li[data-mine=false] button.report-message")
    desk.select_option("#report-reason", "spam")
    desk.click("#report-send")
    desk.wait_for_selector("#report-dialog", state="detached")
    _, ana_token = sign_in(server.url, ana_key)
    with api(server.url, ana_token) as client:
        (reported,) = client.get("/care/reports").json()
    said = desk.get_attribute("#chat-log li[data-mine=false]", "data-id")
    assert (reported["message_id"], reported["table_id"]) == (int(str(said)), None)

    # ana's private table: from its page to the friends list, and bea invited from there.
    with api(server.url, ana_token) as client:
        made = client.post(
            "/tables", json={"preset": "dew200", "seats": 3, "visibility": "private"}
        )
        assert made.status_code == 201, made.text
        table_id = made.json()["id"]
    goto_view(desk, f"{server.url}/#/table/{table_id}")
    desk.click("#invite-friends")
    desk.wait_for_selector(f"#friend-invite-hint[data-table='{table_id}']")
    desk.click(f"#friend-list li[data-address='{bea}'] button.invite")
    desk.wait_for_selector("#status .status-text")
    assert desk.get_attribute("#status", "class") != "error", desk.inner_text("#status")

    goto_view(phone, f"{server.url}/#/friends")
    phone.click(f"#friend-invitations li[data-table='{table_id}'] a.open-table")
    phone.wait_for_selector("main[data-ready=true][data-view=table] #take-seat")
    phone.click("#take-seat")
    phone.wait_for_selector("#table #leave")
    with api(server.url, ana_token) as client:
        seated = [s["address"] for s in client.get(f"/tables/{table_id}").json()["seats"]]
    assert seated == [ana, bea]
    assert not desk.js_errors and not phone.js_errors  # type: ignore[attr-defined]
    desk.context.close()
    phone.context.close()
