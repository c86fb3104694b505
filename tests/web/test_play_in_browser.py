"""Playing in a real Chromium: sign in with the injected wallet, sit at a table with a bot, play
a whole hand by clicking legal tiles, reload mid-hand and resume; the page never receives
another seat's tiles (every WebSocket frame is inspected); the replay viewer verifies the
record in the page and refuses a tampered one; a visitor without a wallet watches a match."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from eth_account import Account

from backend.protocol.client import DewClient
from tests.web.conftest import InjectedWallet, goto_view, open_wallet_page, sign_in_page

pytestmark = pytest.mark.timeout(240)
TILE = re.compile(r"^[0-6]:[0-6]$")


def tiles_in(value: Any) -> set[str]:
    """Every bare tile name ("6:4", not a move "6:4L") anywhere in a message."""
    if isinstance(value, dict):
        return set().union(*(tiles_in(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(tiles_in(v) for v in value)) if value else set()
    return {value} if isinstance(value, str) and TILE.match(value) else set()


def oriented(tile: str) -> str:
    high, low = sorted(map(int, tile.split(":")), reverse=True)
    return f"{high}:{low}"


def allowed_tiles(record: dict[str, Any], seat: int) -> dict[int, set[str]]:
    """Per hand: the tiles this seat may ever see: its deal, what it drew, what was played."""
    allowed: dict[int, set[str]] = {}
    for hand in record["hands"]:
        mine = set(hand["deal"]["hands"][seat])
        boneyard = iter(hand["deal"]["boneyard"])
        played = set()
        for who, move in hand["moves"]:
            if move == "draw":
                tile = next(boneyard)
                if who == seat:
                    mine.add(tile)
            elif move != "pass":
                played.add(oriented(move[:-1]))
        allowed[hand["index"]] = mine | played
    return allowed


def my_hand(page: Any) -> list[str]:
    return page.eval_on_selector_all("#hand button", "els => els.map(e => e.dataset.tile)")


def click_one_legal_move(page: Any) -> None:
    ply = page.get_attribute("#table", "data-ply")
    legal = page.locator("#hand button.legal, #actions button.legal")
    assert legal.count() > 0, "my turn but no legal move highlighted"
    legal.first.click()
    sides = page.locator("#sides button")
    if sides.count():
        sides.first.click()
    page.wait_for_function(
        "ply => document.querySelector('#table').dataset.ply !== ply", arg=ply, timeout=15_000
    )


def wait_turn_or_end(page: Any) -> str:
    page.wait_for_selector(
        "#table[data-turn=mine][data-link=open], #table[data-status=finished]", timeout=30_000
    )
    return str(page.get_attribute("#table", "data-status"))


def test_sign_in_play_a_hand_reload_and_resume_never_seeing_other_tiles(browser, server, artifacts):
    wallet = InjectedWallet(Account.create().key.hex())
    page = open_wallet_page(browser, server.url, wallet)
    frames: list[str] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: frames.append(payload)))

    address = sign_in_page(page)
    assert address == wallet.account.address
    assert "personal_sign" in wallet.requests
    page.wait_for_selector("#create-table button[type=submit]:not([disabled])")
    assert "null" not in page.inner_text("main")
    page.screenshot(path=str(artifacts / "lobby.png"), full_page=True)

    # A practice table of the draw game (one hand decides it) against a bot.
    page.select_option("#create-table select[name=preset]", "draw")
    page.fill("#create-table input[name=seats]", "2")
    page.select_option("#create-table select[name=kind]", "practice")
    page.click("#create-table button[type=submit]")
    page.wait_for_selector("#table[data-status=live]")
    table_id = page.get_attribute("#table", "data-table")

    my_moves = 0
    reloaded = False
    while wait_turn_or_end(page) != "finished":
        if my_moves == 2 and not reloaded:
            page.screenshot(path=str(artifacts / "table.png"), full_page=True)
            before, ply = my_hand(page), page.get_attribute("#table", "data-ply")
            page.reload()
            page.wait_for_selector("#table[data-link=open][data-status=live]")
            page.wait_for_selector("#table[data-turn=mine], #table[data-status=finished]")
            assert page.get_attribute("#table", "data-table") == table_id
            assert page.get_attribute("#table", "data-ply") == ply, "resumed at another ply"
            assert my_hand(page) == before, "the hand after the reload is not the one before"
            assert wallet.requests.count("personal_sign") == 1, "the reload asked to sign in again"
            reloaded = True
            continue
        click_one_legal_move(page)
        my_moves += 1
    assert reloaded, f"the hand ended after {my_moves} of my moves, before the reload"

    page.wait_for_selector("#final")
    page.screenshot(path=str(artifacts / "table-final.png"), full_page=True)
    match_id = page.get_attribute("#replay-link", "href").rsplit("/", 1)[1]
    with DewClient(server.url) as client:
        match = client.match(match_id)
    my_seat = next(s["seat"] for s in match["seats"] if s["address"] == address)
    player_moves = [m for h in match["record"]["hands"] for s, m in h["moves"] if s == my_seat]
    assert len(player_moves) >= my_moves

    # Every frame the page received, including those before the reload.
    allowed = allowed_tiles(match["record"], my_seat)
    everything = set().union(*allowed.values())
    messages = [json.loads(f) for f in frames]
    assert sum(m["type"] == "snapshot" for m in messages) >= 2  # before and after the reload
    for message in messages:
        view = message.get("view") or {}
        # A finished hand's tiles are public (what the winner counts): only a finished hand
        # is listed there; the live hand's tiles are checked below.
        finished = view.pop("previous_hands", [])
        assert all(h["index"] < view["hand_number"] or view["match_over"] for h in finished)
        seen = {oriented(t) for t in tiles_in(message)}
        may_see = allowed[view["hand_number"]] if "hand_number" in view else everything
        assert seen <= may_see, f"{message['type']} frame showed {seen - may_see}"
        assert not {"deal", "hands"} & set(view), "a view carried the deal"

    # The match is in the wallet's history, linked to its replay.
    goto_view(page, f"{server.url}/#/history")
    page.wait_for_selector(f"main[data-view=history] a[href='#/replay/{match_id}']")
    assert not page.js_errors


def test_replay_viewer_verifies_the_record_and_refuses_a_tampered_one(browser, server, artifacts):
    with DewClient(server.url) as client:
        client.sign_in(Account.create().key.hex())
        table = client.create_table(preset="draw", seats=2, kind="practice")
        match_id = client.play(table["id"])["match_id"]

    page = open_wallet_page(browser, server.url, None)
    goto_view(page, f"{server.url}/#/replay/{match_id}")
    page.wait_for_selector("#verdict")
    assert page.get_attribute("#verdict", "data-ok") == "true"
    for check in ("commitment", "deals", "resultHash"):
        assert page.get_attribute(f"#checks [data-check={check}]", "data-ok") == "true", check
    page.click("#replay-next")
    page.click("#replay-next")
    assert page.locator("#replay-board #line .tile").count() >= 1
    page.screenshot(path=str(artifacts / "replay.png"), full_page=True)

    def tamper(route: Any) -> None:
        body = route.fetch().json()
        hand = body["record"]["hands"][0]
        hand["deal"]["boneyard"] = list(reversed(hand["deal"]["boneyard"]))
        route.fulfill(json=body)

    page.route(f"**/matches/{match_id}", tamper)
    page.reload()
    page.wait_for_selector("#verdict")
    assert page.get_attribute("#verdict", "data-ok") == "false"
    assert page.get_attribute("#checks [data-check=deals]", "data-ok") == "false"
    assert page.get_attribute("#checks [data-check=resultHash]", "data-ok") == "false"
    assert page.get_attribute("#checks [data-check=commitment]", "data-ok") == "true"


def test_a_visitor_watches_a_live_match_without_any_hand(browser, server):
    with DewClient(server.url) as client:
        client.sign_in(Account.create().key.hex())
        table = client.create_table(preset="dew200", seats=4, kind="ai", bot_level="easy")
    page = open_wallet_page(browser, server.url, None)
    page.wait_for_selector(f"#live-tables a[href='#/table/{table['id']}']").click()
    page.wait_for_selector("#table[data-link=open] #line .tile")
    assert page.locator("#hand").count() == 0
    assert page.locator("#seats li").count() == 4
    assert not page.js_errors


def test_private_table_by_invite_link_then_matchmaking_and_the_language_switch(browser, server):
    host = open_wallet_page(browser, server.url, InjectedWallet(Account.create().key.hex()))
    guest = open_wallet_page(browser, server.url, InjectedWallet(Account.create().key.hex()))
    sign_in_page(host)
    guest_address = sign_in_page(guest)
    host.wait_for_selector("#create-table button[type=submit]:not([disabled])")
    host.select_option("#create-table select[name=preset]", "draw")
    host.fill("#create-table input[name=seats]", "2")
    host.select_option("#create-table select[name=kind]", "human")
    host.select_option("#create-table select[name=visibility]", "private")
    host.click("#create-table button[type=submit]")
    host.wait_for_selector("#table a[href*='?invite=']")
    link = host.get_attribute("#table a[href*='?invite=']", "href")
    table_id = host.get_attribute("#table", "data-table")

    # Not in the public lobby; the invite link seats the guest, which starts the match.
    guest.wait_for_selector("main[data-ready=true]")
    assert guest.locator(f"a[href='#/table/{table_id}']").count() == 0
    goto_view(guest, f"{server.url}/{link}")
    guest.click("#take-seat")
    guest.wait_for_selector("#table[data-status=live]")
    host.wait_for_selector("#table[data-status=live]")
    assert host.locator(f"#seats li[data-address='{guest_address}']").count() == 1

    # Matchmaking: alone in the queue, the guest gets a table with a bot after the wait.
    goto_view(guest, f"{server.url}/#/lobby")
    guest.wait_for_selector("main[data-ready=true][data-view=lobby]")
    guest.select_option("#matchmaking select[name=preset]", "draw")
    guest.click("#matchmaking button[type=submit]")
    guest.wait_for_function(
        "id => location.hash.startsWith('#/table/') && !location.hash.includes(id)",
        arg=table_id,
        timeout=30_000,
    )
    guest.wait_for_selector("#table[data-status=live] #hand")

    assert host.inner_text("#nav").startswith("Jugar")
    host.click("#lang")
    host.wait_for_function("() => document.documentElement.lang === 'en'")
    assert host.inner_text("#nav").startswith("Play")
    assert not host.js_errors and not guest.js_errors


def test_a_refused_access_token_is_rotated_with_the_refresh_token_without_signing_again(
    browser, server
):
    wallet = InjectedWallet(Account.create().key.hex())
    page = open_wallet_page(browser, server.url, wallet)
    sign_in_page(page)
    saved = page.evaluate("JSON.parse(sessionStorage.getItem('dew.session'))")
    assert saved["refresh"]
    # As if the access token had expired: the server refuses it (401) on the next call.
    page.evaluate(
        "s => sessionStorage.setItem('dew.session', JSON.stringify({...s, token: 'expired'}))",
        saved,
    )
    page.reload()
    page.wait_for_selector("#create-table button[type=submit]:not([disabled])")
    page.select_option("#create-table select[name=preset]", "draw")
    page.fill("#create-table input[name=seats]", "2")
    page.select_option("#create-table select[name=kind]", "practice")
    page.click("#create-table button[type=submit]")
    page.wait_for_selector("#table[data-status=live][data-link=open] #hand")
    rotated = page.evaluate("JSON.parse(sessionStorage.getItem('dew.session'))")
    # The refresh token is single-use, so a new one proves the page refreshed. (The access
    # token itself may equal the first: it is a pure function of the session and the second.)
    assert rotated["token"] != "expired"
    assert rotated["refresh"] != saved["refresh"]
    assert wallet.requests.count("personal_sign") == 1
    assert not page.js_errors
