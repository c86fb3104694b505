"""More of the web client in a real Chromium: cancelling a matchmaking ticket, leaving an open
table and starting it with bots from the table page, inviting a wallet by its address, and a
Fixed Rent offer accepted, terminated and a new one cancelled through the dashboard (on the
demo's real stack).
Each test checks what the page shows and, over HTTP, what the server now holds."""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import httpx
import pytest
from eth_account import Account

from backend.demo.players import api_txs, ok
from backend.demo.season import FIXED_RENT, RENT_FAUCET, Season
from backend.devstack.services import wait_for
from tests.fixtures.harness import ServerProcess
from tests.web.conftest import (
    InjectedWallet,
    goto_view,
    offer_in_dashboard,
    offer_to_me_shown,
    open_wallet_page,
    pg_server,
    sign_in_page,
    sign_tx_panel,
)
from tests.web.test_dashboard_in_browser import season  # noqa: F401 (the demo's stack)

pytestmark = pytest.mark.timeout(240)


@pytest.fixture(scope="module")
def patient_server() -> Iterator[ServerProcess]:
    """A server whose matchmaking waits a minute before seating bots, so that a ticket is still
    waiting when the page cancels it (the shared server seats bots after 1 s)."""
    with pg_server(turn_timeout_s=60, matchmaking_wait_s=60.0) as proc:
        yield proc


def _dew(wei: int) -> str:
    """A wei amount as the DEW the page's fields take ("12.5")."""
    return format(Decimal(wei) / 10**18, "f")


def signed_in(browser: Any, base_url: str) -> tuple[Any, str]:
    page = open_wallet_page(browser, base_url, InjectedWallet(Account.create().key.hex()))
    return page, sign_in_page(page)


def http_as(page: Any, base_url: str) -> httpx.Client:
    """An HTTP client with the page's own access token (the session it signed in with)."""
    token = page.evaluate("JSON.parse(sessionStorage.getItem('dew.session')).token")
    return httpx.Client(base_url=base_url, headers={"Authorization": f"Bearer {token}"})


def create_table_in_page(page: Any, *, preset: str, seats: int, visibility: str = "public") -> str:
    page.wait_for_selector("#create-table button[type=submit]:not([disabled])")
    page.select_option("#create-table select[name=preset]", preset)
    page.fill("#create-table input[name=seats]", str(seats))
    page.select_option("#create-table select[name=kind]", "human")
    page.select_option("#create-table select[name=visibility]", visibility)
    page.click("#create-table button[type=submit]")
    page.wait_for_selector("#table[data-link=open] #start-bots")
    return str(page.get_attribute("#table", "data-table"))


def queue_in_page(page: Any) -> str:
    """Queue for the draw preset from the lobby; the ticket id from the page's own request."""
    page.wait_for_selector("#matchmaking button[type=submit]:not([disabled])")
    page.select_option("#matchmaking select[name=preset]", "draw")
    with page.expect_response(
        lambda r: r.url.endswith("/matchmaking") and r.request.method == "POST"
    ) as answer:
        page.click("#matchmaking button[type=submit]")
    assert answer.value.status == 201, answer.value.text()
    page.wait_for_selector("#matchmaking output #cancel-ticket")
    return str(answer.value.json()["id"])


def test_cancelling_a_matchmaking_ticket_takes_it_out_of_the_queue(browser, patient_server):
    base = patient_server.url
    page, _address = signed_in(browser, base)
    ticket_id = queue_in_page(page)
    with http_as(page, base) as http:
        assert http.get(f"/matchmaking/{ticket_id}").json()["status"] == "waiting"

        with page.expect_response(
            lambda r: r.url.endswith(f"/matchmaking/{ticket_id}") and r.request.method == "DELETE"
        ) as cancelled:
            page.click("#cancel-ticket")
        assert cancelled.value.status == 200, cancelled.value.text()
        # The page stops waiting: no "looking for opponents", no cancel button, no error.
        page.wait_for_selector("#cancel-ticket", state="detached")
        assert page.inner_text("#matchmaking output") == ""
        assert page.get_attribute("#status", "class") != "error"
        assert page.evaluate("location.hash") in ("", "#/lobby")

        ticket = http.get(f"/matchmaking/{ticket_id}").json()
        assert (ticket["status"], ticket["table_id"]) == ("cancelled", None)

        # Out of the queue: the same wallet may queue again (a waiting ticket would refuse it).
        again = queue_in_page(page)
        assert again != ticket_id
        assert http.get(f"/matchmaking/{again}").json()["status"] == "waiting"
        page.click("#cancel-ticket")
        page.wait_for_selector("#cancel-ticket", state="detached")
        assert http.get(f"/matchmaking/{again}").json()["status"] == "cancelled"
    assert not page.js_errors


def test_a_guest_leaves_from_the_table_page_then_the_host_starts_with_bots(browser, server):
    host, host_address = signed_in(browser, server.url)
    guest, guest_address = signed_in(browser, server.url)
    table_id = create_table_in_page(host, preset="dew200", seats=3)
    assert host.locator("#leave").count() == 1  # the creator is seated too

    # The guest finds the table in the lobby and takes a seat from the table page.
    goto_view(guest, f"{server.url}/#/lobby")
    guest.click(f"#main[data-view=lobby] a[href='#/table/{table_id}']")
    guest.click("#take-seat")
    guest.wait_for_selector("#table #leave")
    with http_as(host, server.url) as http:
        seated = [s["address"] for s in http.get(f"/tables/{table_id}").json()["seats"]]
        assert seated == [host_address, guest_address]

        # The guest stands up: back in the lobby, and the server has freed the seat.
        guest.click("#leave")
        guest.wait_for_selector("main[data-ready=true][data-view=lobby]")
        table = http.get(f"/tables/{table_id}").json()
        assert table["status"] == "open"
        assert [s["address"] for s in table["seats"]] == [host_address]
        guest.wait_for_selector(f"#main[data-view=lobby] a[href='#/table/{table_id}']")
        assert "1/3" in guest.inner_text(f"tr:has(a[href='#/table/{table_id}'])")

        # The host starts with bots: the same page goes live with the host's hand, two bots.
        host.click("#start-bots")
        host.wait_for_selector("#table[data-status=live][data-link=open] #hand button")
        assert host.locator("#seats li").count() == 3
        host.wait_for_selector("#start-bots, #leave, #take-seat", state="detached")
        # Seats show names, an address only on demand: who sits where is in data-address.
        assert host.locator(f"#seats li[data-address='{host_address}']").count() == 1
        assert host.locator(f"#seats li[data-address='{guest_address}']").count() == 0
        table = http.get(f"/tables/{table_id}").json()
        assert table["status"] == "playing" and table["match_id"]
        assert [s["address"] for s in table["seats"]] == [host_address, None, None]
        assert all(s["bot_level"] for s in table["seats"][1:])
    assert not host.js_errors and not guest.js_errors


def test_a_wallet_invited_by_address_joins_the_private_table(browser, server):
    host, host_address = signed_in(browser, server.url)
    guest, guest_address = signed_in(browser, server.url)
    table_id = create_table_in_page(host, preset="draw", seats=2, visibility="private")

    # The guest has the table's address but no invitation (nor the link's code): to a
    # stranger a private table does not exist, and there is no seat to take.
    goto_view(guest, f"{server.url}/#/table/{table_id}")
    # (The table's 404 and the socket's refusal both reach the status line, in either order.)
    guest.wait_for_selector("#status.error")
    refusal = guest.get_attribute("#status", "data-code")
    assert refusal in ("table_not_found", "not_invited"), guest.inner_text("#status")
    assert "_" not in guest.inner_text("#status")  # a sentence, not the code
    assert guest.query_selector("#table #take-seat") is None

    # The host invites the guest's address as a wallet shows it (lowercase, not checksummed).
    host.fill("#invite-form input[name=addresses]", guest_address.lower())
    with host.expect_response(lambda r: r.url.endswith(f"/tables/{table_id}/invite")) as answer:
        host.click("#invite-form button[type=submit]")
    assert answer.value.status == 200, answer.value.text()
    host.wait_for_function("() => document.querySelector('#status').textContent === 'OK'")

    # Invited, the guest's page shows the table, and its button seats the guest, which fills
    # the table and starts the match.
    goto_view(guest, f"{server.url}/#/table/{table_id}")
    guest.click("#table #take-seat")
    guest.wait_for_selector("#table[data-status=live][data-link=open] #hand button")
    host.wait_for_selector("#table[data-status=live][data-link=open] #hand button")
    host.wait_for_selector(f"#seats li[data-address='{guest_address}']")
    guest.wait_for_selector(f"#seats li[data-address='{host_address}']")
    with http_as(guest, server.url) as http:
        table = http.get(f"/tables/{table_id}").json()
        assert (table["visibility"], table["status"]) == ("private", "playing")
        assert [s["address"] for s in table["seats"]] == [host_address, guest_address]
        assert table["invite_code"] is None  # the guest is not the creator
        lobby = http.get("/tables", params={"status": "open"}).json()
        assert table_id not in {t["id"] for t in lobby}
    assert not host.js_errors and not guest.js_errors


def test_leaving_the_lobby_while_waiting_does_not_strand_the_ticket(browser, patient_server):
    """The queue form is the only place that shows a waiting ticket and cancels it: once the
    page leaves the lobby the ticket is cancelled, so the player is neither seated later at a
    table the page no longer watches nor refused when queueing again."""
    base = patient_server.url
    page, _address = signed_in(browser, base)
    ticket_id = queue_in_page(page)
    with http_as(page, base) as http:
        with page.expect_response(
            lambda r: r.url.endswith(f"/matchmaking/{ticket_id}") and r.request.method == "DELETE"
        ):
            goto_view(page, f"{base}/#/history")
        page.wait_for_selector("main[data-ready=true][data-view=history]")
        assert http.get(f"/matchmaking/{ticket_id}").json()["status"] == "cancelled"

        goto_view(page, f"{base}/#/lobby")
        page.wait_for_selector("main[data-ready=true][data-view=lobby]")
        again = queue_in_page(page)
        assert http.get(f"/matchmaking/{again}").json()["status"] == "waiting"
        page.click("#cancel-ticket")
        page.wait_for_selector("#cancel-ticket", state="detached")
    assert page.get_attribute("#status", "class") != "error"
    assert not page.js_errors


def test_a_fixed_rent_offer_accepted_then_terminated_and_a_new_offer_cancelled_in_the_dashboard(
    browser,
    season: Season,  # noqa: F811 (the fixture imported above)
):
    """Olivia offers her avatar to Sam for a Fixed Rent; Sam's page asks his wallet for the DEW
    approval and then the acceptance; the rent leaves his balance and both dashboards show
    the active Fixed Rent agreement."""
    owner, scholar, avatar = season.olivia, season.sam, season.avatar_fr
    screening = {"screener": season.operator, "owner": owner.address}
    season.chain.send(
        season.operator_key, api_txs(season.http.post("/economy/screenings", json=screening))
    )
    token = season.contracts.token
    season.chain.call(season.deployer_key, token.functions.transfer(scholar.address, RENT_FAUCET))

    owner_page = open_wallet_page(browser, season.base, InjectedWallet(owner.key, season.w3))
    assert sign_in_page(owner_page) == owner.address
    offer_in_dashboard(
        owner_page,
        season.base,
        avatar=avatar,
        scholar=scholar.address,
        terms="fixed_rent",
        fields={"rent": _dew(FIXED_RENT)},
    )

    scholar_page = open_wallet_page(browser, season.base, InjectedWallet(scholar.key, season.w3))
    assert sign_in_page(scholar_page) == scholar.address
    wait_for(
        "the Fixed Rent offer on the scholar's dashboard (indexer)",
        lambda: offer_to_me_shown(scholar_page, season.base),
    )
    assert "Renta fija 25.00 DEW" in scholar_page.inner_text("#offers-to-me")
    before = token.functions.balanceOf(scholar.address).call()
    scholar_page.click("#offers-to-me button.accept")
    steps = sign_tx_panel(scholar_page)
    assert len(steps) == 2 and "approve" in steps[0] and "accept" in steps[1], steps

    [agreement] = wait_for(
        "the Fixed Rent agreement active in the mirror",
        lambda: [
            a
            for a in ok(season.http.get("/economy/agreements", params={"avatar_id": avatar}))
            if a["status"] == "active"
        ],
    )
    assert (agreement["owner"], agreement["scholar"]) == (owner.address, scholar.address)
    assert (agreement["terms"], int(agreement["rent"])) == ("fixed_rent", FIXED_RENT)
    assert before - token.functions.balanceOf(scholar.address).call() == FIXED_RENT
    assert season.contracts.avatar.functions.userOf(avatar).call() == scholar.address

    for page in (scholar_page, owner_page):
        page.goto(season.base + "/#/dashboard")
        page.reload()
        row = page.locator(f"#agreements tr:has-text('#{avatar}')")
        row.locator("[data-agreement-status=active]").wait_for()
        assert "Renta fija 25.00 DEW" in row.inner_text()
    assert scholar_page.locator("#offers-to-me button.accept").count() == 0
    # Only the scholar may end it (the shared stack's wallets have other agreements of their
    # own, from the dashboard's module: this agreement's button is the one looked at).
    this_terminate = f"#agreements button.terminate[data-agreement='{agreement['id']}']"
    assert owner_page.locator(this_terminate).count() == 0  # the scholar's
    assert scholar_page.locator(this_terminate).count() == 1

    # The scholar ends it early from the dashboard: the unused rent comes back pro rata.
    scholar_page.click(this_terminate)
    assert "terminate" in " ".join(sign_tx_panel(scholar_page))

    def terminated() -> dict[str, Any] | None:
        row = ok(season.http.get(f"/economy/agreements/{agreement['id']}"))
        return row if row["status"] == "terminated" else None

    ended = wait_for("the agreement terminated in the mirror", terminated)
    refund = int(ended["rent_refunded"])
    assert 0 < refund <= FIXED_RENT
    assert before - token.functions.balanceOf(scholar.address).call() == FIXED_RENT - refund
    assert season.contracts.avatar.functions.userOf(avatar).call() != scholar.address
    shown_ended(scholar_page, avatar, "terminated")
    assert scholar_page.locator(this_terminate).count() == 0

    # The owner lists the avatar again (to anyone) and withdraws the offer from the dashboard.
    offer_in_dashboard(
        owner_page,
        season.base,
        avatar=avatar,
        terms="fixed_rent",
        fields={"rent": _dew(FIXED_RENT)},
    )
    [listing] = wait_for(
        "the new offer in the mirror",
        lambda: [
            a
            for a in ok(season.http.get("/economy/agreements", params={"avatar_id": avatar}))
            if a["status"] == "offered"
        ],
    )
    cancel = f"#agreements button.cancel-offer[data-agreement='{listing['id']}']"

    def cancel_shown() -> bool:
        owner_page.goto(season.base + "/#/dashboard")
        owner_page.reload()
        owner_page.wait_for_selector("main[data-ready=true][data-view=dashboard]")
        return owner_page.locator(cancel).count() == 1

    wait_for("the cancel button on the owner's dashboard", cancel_shown)
    owner_page.click(cancel)
    assert "cancel offer" in " ".join(sign_tx_panel(owner_page))
    wait_for(
        "the offer cancelled in the mirror",
        lambda: (
            ok(season.http.get(f"/economy/agreements/{listing['id']}"))["status"] == "cancelled"
        ),
    )
    shown_ended(owner_page, avatar, "cancelled")
    assert owner_page.locator("#agreements button.cancel-offer").count() == 0
    assert not owner_page.js_errors and not scholar_page.js_errors


def shown_ended(page: Any, avatar: int, status: str) -> None:
    """The dashboard (reloaded until the indexer has it) shows an agreement in ``status``."""

    def shown() -> bool:
        page.goto(page.url.split("#")[0] + "#/dashboard")
        page.reload()
        page.wait_for_selector("main[data-ready=true][data-view=dashboard]")
        row = page.locator(
            f"#agreements tr:has-text('#{avatar}'):has([data-agreement-status={status}])"
        )
        return row.count() >= 1

    wait_for(f"an agreement {status} on the dashboard", shown)


def test_the_table_socket_rotates_a_refused_token_and_reconnects_without_signing_again(
    browser, server
):
    """The access token expires during a match: the socket is closed with 4401, the page
    rotates the token with the refresh token and reconnects to the same seat at once."""
    wallet = InjectedWallet(Account.create().key.hex())
    page = open_wallet_page(browser, server.url, wallet)
    sign_in_page(page)
    page.wait_for_selector("#create-table button[type=submit]:not([disabled])")
    page.select_option("#create-table select[name=preset]", "draw")
    page.fill("#create-table input[name=seats]", "2")
    page.select_option("#create-table select[name=kind]", "practice")
    page.click("#create-table button[type=submit]")
    page.wait_for_selector("#table[data-status=live][data-link=open] #hand button")
    table_id = page.get_attribute("#table", "data-table")
    hand = page.eval_on_selector_all("#hand button", "els => els.map(e => e.dataset.tile)")
    saved = page.evaluate("JSON.parse(sessionStorage.getItem('dew.session'))")

    # Only the socket meets the expired token: the page's other requests (the nav's role
    # probes, ...) go with the valid one, else one of them may rotate the token first, and the
    # table's HTTP answer is served as it was.
    def valid_token(route: Any) -> None:
        headers = route.request.headers
        if headers.get("authorization") == "Bearer expired":
            headers = {**headers, "authorization": f"Bearer {saved['token']}"}
        route.continue_(headers=headers)

    with http_as(page, server.url) as http:
        table = http.get(f"/tables/{table_id}").json()
    page.route(f"{server.url}/**", valid_token)
    page.route(f"**/tables/{table_id}", lambda route: route.fulfill(json=table))
    page.evaluate(
        "s => sessionStorage.setItem('dew.session', JSON.stringify({...s, token: 'expired'}))",
        saved,
    )
    closes: list[Any] = []
    urls: list[str] = []

    def watch(ws: Any) -> None:
        urls.append(ws.url)
        ws.on("close", lambda _ws: closes.append(ws.url))

    page.on("websocket", watch)
    page.reload()
    page.wait_for_selector("#table[data-status=live][data-link=open] #hand button")
    assert urls[0].endswith("token=expired") and len(urls) == 2, urls
    assert closes[:1] == [urls[0]]
    rotated = page.evaluate("JSON.parse(sessionStorage.getItem('dew.session'))")
    assert rotated["refresh"] != saved["refresh"] and rotated["token"] != "expired"
    assert urls[1].endswith("token=" + rotated["token"])
    assert wallet.requests.count("personal_sign") == 1
    # The same seat, the same hand (no move was made in between).
    assert page.eval_on_selector_all("#hand button", "els => els.map(e => e.dataset.tile)") == hand
    assert page.get_attribute("#status", "class") != "error", page.inner_text("#status")
    assert not page.js_errors
    # The server accepts the new access token and refuses the spent refresh token (a reuse
    # that also revokes the session, so it comes last).
    with http_as(page, server.url) as http:
        assert http.get("/auth/me").json()["address"] == wallet.account.address
    spent = httpx.post(server.url + "/auth/refresh", json={"refresh_token": saved["refresh"]})
    assert spent.status_code == 401
