"""The seats around the board in a real Chromium, at a phone's 390x844 and a desktop's
1280x800: you at the bottom, the partner across, the opponents left and right (a 2-seat
same-device table keeps Player 1 at the bottom and Player 2 at the top whoever holds the
device); each seat with its name (the address on demand), picture, tile count and score; the
countdown ring on the seat to move warns before the time runs out, and a notice says when the
server played for you; a draw or pass note stays inside its own seat; hand tiles are at
least 44x44. Quick match from the lobby's form at 2 and 3 players."""

from __future__ import annotations

import secrets
import string
from typing import Any

import pytest
from eth_account import Account

from tests.fixtures.harness import api, sign_in
from tests.web.conftest import InjectedWallet, goto_view, open_wallet_page, sign_in_page

pytestmark = pytest.mark.timeout(600)

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}

# Each seat's place, box and content, the board's box, the overlaps between seats (and with
# the board), notes outside their own seat, and hand tiles smaller than 44x44.
LAYOUT_JS = """() => {
  const box = (e) => { const r = e.getBoundingClientRect();
    return { l: r.left, t: r.top, r: r.right, b: r.bottom }; };
  const apart = (a, b) => a.l >= b.r - 0.5 || b.l >= a.r - 0.5
    || a.t >= b.b - 0.5 || b.t >= a.b - 0.5;
  const inside = (a, b) => a.l >= b.l - 0.5 && a.r <= b.r + 0.5
    && a.t >= b.t - 0.5 && a.b <= b.b + 0.5;
  const board = box(document.querySelector('#line'));
  const seats = [...document.querySelectorAll('#seats li.seat')].map((li) => ({
    seat: Number(li.dataset.seat), place: li.dataset.place, me: li.classList.contains('me'),
    box: box(li), name: li.querySelector('.seat-name')?.textContent,
    picture: !!li.querySelector('.seat-pic svg'), tiles: li.dataset.tiles,
    tilesText: li.querySelector('.seat-tiles')?.textContent, score: li.dataset.score,
    scoreText: li.querySelector('.seat-score')?.textContent, text: li.innerText,
    noteInside: inside(box(li.querySelector('.bubble')), box(li)),
  }));
  const overlaps = [];
  seats.forEach((a, i) => {
    if (!apart(a.box, board)) overlaps.push(`${a.seat} on the board`);
    seats.slice(i + 1).forEach((b) => {
      if (!apart(a.box, b.box)) overlaps.push(`${a.seat} on ${b.seat}`);
    });
    document.querySelectorAll('#seats .bubble').forEach((n) => {
      if (!n.closest('li').isSameNode(document.querySelector(`#seats li[data-seat="${a.seat}"]`))
          && !apart(box(n), a.box)) overlaps.push(`a note on ${a.seat}`);
    });
  });
  const small = [...document.querySelectorAll('#hand .tile-btn')]
    .map((b) => b.getBoundingClientRect()).filter((r) => r.width < 44 || r.height < 44).length;
  const root = document.documentElement;
  return { board, seats, overlaps, small, sideways: root.scrollWidth > root.clientWidth };
}"""


def _name() -> str:
    return "Ana " + "".join(secrets.choice(string.ascii_lowercase) for _ in range(8))


def _places(layout: dict[str, Any]) -> dict[int, str]:
    return {s["seat"]: s["place"] for s in layout["seats"]}


def _check_around_the_board(layout: dict[str, Any], wide: bool) -> None:
    board = layout["board"]
    assert not layout["overlaps"], layout["overlaps"]
    assert not layout["sideways"]
    assert layout["small"] == 0
    for seat in layout["seats"]:
        r = seat["box"]
        assert seat["picture"] and seat["name"], seat
        assert seat["tilesText"].strip().startswith(seat["tiles"]), seat
        assert seat["scoreText"].endswith(seat["score"]), seat
        assert seat["noteInside"], seat
        if seat["place"] == "bottom":
            assert r["t"] >= board["b"] - 1, seat
        elif seat["place"] == "top" or not wide:  # on a phone the side seats top the board
            assert r["b"] <= board["t"] + 1, seat
        elif seat["place"] == "left":
            assert r["r"] <= board["l"] + 1, seat
        else:
            assert r["l"] >= board["r"] - 1, seat


def _at_own_table(
    browser: Any,
    server: Any,
    viewport: dict[str, int],
    table: dict[str, Any],
    name: str | None = None,
) -> tuple[Any, Any]:
    """A new wallet (named ``name``) creates ``table`` over HTTP and opens it in a page of
    ``viewport``, signed in: (page, account)."""
    account = Account.create()
    _, token = sign_in(server.url, account)
    with api(server.url, token) as client:
        if name:
            assert client.put("/names/me", json={"name": name}).status_code == 200
        made = client.post("/tables", json=table)
        assert made.status_code == 201, made.text
        table_id = made.json()["id"]
    page = open_wallet_page(browser, server.url, InjectedWallet(account.key.hex()), viewport)
    sign_in_page(page)
    goto_view(page, f"{server.url}/#/table/{table_id}")
    return page, account


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_four_seats_around_the_board_with_names_ring_and_the_servers_move(
    browser: Any, server: Any, artifacts: Any, viewport: dict[str, int]
) -> None:
    name = _name()
    table = {
        "preset": "dew200",
        "seats": 4,
        "kind": "practice",
        "bot_level": "easy",
        "turn_timeout_s": 12,
    }
    page, account = _at_own_table(browser, server, viewport, table, name)
    page.wait_for_selector("#table[data-link=open] #seats li.me .seat-pic svg")
    page.wait_for_function("() => document.querySelectorAll('#seats li.seat').length === 4")
    layout = page.evaluate(LAYOUT_JS)
    me = next(s for s in layout["seats"] if s["me"])
    places = _places(layout)
    you = me["seat"]
    assert places == {
        you: "bottom",
        (you + 1) % 4: "right",
        (you + 2) % 4: "top",
        (you + 3) % 4: "left",
    }
    _check_around_the_board(layout, wide=viewport is DESKTOP)
    # The name, not the address; the address on demand.
    page.wait_for_function(
        "n => document.querySelector('#seats li.me .seat-name').textContent.startsWith(n)", arg=name
    )
    assert account.address not in page.inner_text("#seats")
    assert account.address[:8] not in page.inner_text("#seats")
    page.click("#seats li.me button.seat-name")
    assert page.inner_text("#seats li.me .seat-address") == account.address
    assert page.get_attribute("#seats li.me button.seat-name", "aria-expanded") == "true"
    assert page.inner_text(f"#seats li[data-seat='{(you + 1) % 4}'] .seat-name").startswith("Bot ")

    # My turn: the ring on my seat runs down and warns, the turn line says to hurry; I do not
    # move, and the server plays for me and says so.
    page.wait_for_selector("#seats li.me.turn .turn-ring", timeout=30_000)
    # A 12 s turn warns in its last 5 s: first the ring runs down without warning...
    page.wait_for_selector("#seats li.me.turn[data-warn=false]")
    assert page.is_hidden("#hurry")
    start = int(page.get_attribute("#seats li.me.turn", "data-time-left") or "0")
    page.wait_for_function(
        "s => Number(document.querySelector('#seats li.me.turn')?.dataset.timeLeft) < s", arg=start
    )
    # ...then warns, on the ring and in the turn line.
    page.wait_for_selector("#seats li.me.turn[data-warn=true]", timeout=12_000)
    page.wait_for_selector("#hurry:not([hidden])")
    page.screenshot(path=str(artifacts / f"seats-{viewport['width']}.png"))
    notice = page.wait_for_selector("#auto-played", timeout=20_000)
    assert notice.inner_text() == "Se acabó tu tiempo: el servidor jugó por ti."

    # Every note shown at once still lies inside its own seat.
    page.evaluate(
        "() => document.querySelectorAll('#seats .bubble').forEach((b) => b.classList.add('show'))"
    )
    assert not page.evaluate(LAYOUT_JS)["overlaps"]
    assert not page.js_errors


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_same_device_keeps_player_one_at_the_bottom_and_player_two_at_the_top(
    browser: Any, server: Any, viewport: dict[str, int]
) -> None:
    table = {"preset": "draw", "seats": 2, "kind": "same_device"}
    page, _ = _at_own_table(browser, server, viewport, table)
    page.wait_for_selector("#table[data-link=open][data-status=live] #seats li.seat")
    for _ in range(2):  # before and after a move: the device changes hands, the seats do not
        layout = page.evaluate(LAYOUT_JS)
        assert _places(layout) == {0: "bottom", 1: "top"}
        assert {s["seat"]: s["name"] for s in layout["seats"]} == {0: "Jugador 1", 1: "Jugador 2"}
        _check_around_the_board(layout, wide=viewport is DESKTOP)
        ply = page.get_attribute("#table", "data-ply")
        page.click("#show-hand")
        page.locator("#hand .tile-btn.legal, #actions button.legal").first.click()
        if page.locator(".end-target").count():
            page.locator(".end-target").first.click()
        page.wait_for_function("p => document.querySelector('#table').dataset.ply !== p", arg=ply)
    assert not page.js_errors


@pytest.mark.parametrize("players", [2, 3])
def test_quick_match_for_two_and_three_players_from_the_lobby(
    browser: Any, server: Any, players: int
) -> None:
    page = open_wallet_page(browser, server.url, InjectedWallet(Account.create().key.hex()), PHONE)
    sign_in_page(page)
    page.wait_for_selector("#matchmaking select[name=preset]")
    page.select_option("#matchmaking select[name=preset]", "dew200")
    assert page.locator("#queue-seats input[type=radio]").count() == 3  # Mode 1: 2, 3 or 4
    assert page.is_checked("#queue-seats-4")
    page.check(f"#queue-seats-{players}")
    with page.expect_request(
        lambda r: r.url.endswith("/matchmaking") and r.method == "POST"
    ) as sent:
        page.click("#matchmaking button[type=submit]")
    assert sent.value.post_data_json["seats"] == players
    page.wait_for_function("() => location.hash.startsWith('#/table/')", timeout=30_000)
    page.wait_for_selector("#table[data-status=live] #seats li.me")
    page.wait_for_function(
        f"() => document.querySelectorAll('#seats li.seat').length === {players}"
    )
    layout = page.evaluate(LAYOUT_JS)
    you = next(s["seat"] for s in layout["seats"] if s["me"])
    expected = ["bottom", "top"] if players == 2 else ["bottom", "right", "left"]
    assert _places(layout) == {(you + i) % players: p for i, p in enumerate(expected)}
    _check_around_the_board(layout, wide=False)
    assert not page.js_errors
