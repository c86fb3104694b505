"""The table as a domino game in a real Chromium, at a phone's 390x844 and a desktop's 1280x800
(issue 21): a whole hand played to its end with every tile of the line and of the hand on the
screen and no sideways scroll; a tile played by dragging it onto the board and one by the
keyboard; in a 2-player draw game played to an empty boneyard, doubles lie crosswise and the
line bends at both edges of the board (both seats of a same-device table play a fixed deal from
this page, tests/web/drawing.py); draws are shown at the seat and the hand's end is counted.
Screenshots of the table at both sizes go to the test artifacts."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import Any

import pytest
from eth_account import Account
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from backend.protocol.client import DewClient
from tests.fixtures.harness import ServerProcess
from tests.web.conftest import InjectedWallet, goto_view, open_wallet_page, pg_server, sign_in_page
from tests.web.contrast import low_contrast
from tests.web.drawing import OPTIONS, SEED, first_hand, oriented

pytestmark = pytest.mark.timeout(600)

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}

# Every tile of the line and of the hand, with its box; those not inside the viewport.
OFF_SCREEN_JS = """() => {
  const W = window.innerWidth, H = window.innerHeight;
  const tiles = [...document.querySelectorAll('#line g.tile, #hand .tile-btn')];
  const off = tiles.map((e) => [e.getAttribute('data-tile'), e.getBoundingClientRect()])
    .filter(([, r]) => r.left < -0.5 || r.top < -0.5 || r.right > W + 0.5 || r.bottom > H + 0.5)
    .map(([t, r]) => `${t} at ${[r.left, r.top, r.right, r.bottom].map(Math.round)}`);
  const root = document.documentElement;
  return { count: tiles.length, off, overflow: root.scrollWidth > root.clientWidth };
}"""

# The board's geometry: tiles outside the board's box, overlapping pairs, the doubles and how
# they lie, and the corners of each arm.
BOARD_JS = """() => {
  const board = document.querySelector('#line').getBoundingClientRect();
  const tiles = [...document.querySelectorAll('#line g.tile')].map((g) => ({
    tile: g.dataset.tile, arm: g.dataset.arm, corner: g.dataset.corner === 'true',
    double: g.dataset.double === 'true', orient: g.dataset.orient, r: g.getBoundingClientRect(),
  }));
  const outside = tiles.filter(({ r }) => r.left < board.left - 0.5 || r.right > board.right + 0.5
    || r.top < board.top - 0.5 || r.bottom > board.bottom + 0.5).map((x) => x.tile);
  let overlaps = 0;
  for (let i = 0; i < tiles.length; i++) for (let j = i + 1; j < tiles.length; j++) {
    const a = tiles[i].r, b = tiles[j].r;
    const apart = a.left >= b.right - 0.5 || b.left >= a.right - 0.5
      || a.top >= b.bottom - 0.5 || b.top >= a.bottom - 0.5;
    if (!apart) overlaps++;
  }
  const doubles = tiles.filter((x) => x.double).map((x) => ({
    tile: x.tile, corner: x.corner, orient: x.orient, tall: x.r.height > x.r.width,
  }));
  return {
    count: tiles.length, outside, overlaps, doubles,
    corners: { L: tiles.filter((x) => x.corner && x.arm === 'L').length,
               R: tiles.filter((x) => x.corner && x.arm === 'R').length },
  };
}"""


SEAT_OR_HAND_OVER_JS = """seat => document.querySelector('#hand-over')
  || (document.querySelector('#table[data-turn=mine][data-link=open] #hand')
      && document.querySelector(`#seats li.me[data-seat="${seat}"]`))"""

PAGE_STATE_JS = """() => ({
  table: { ...document.querySelector('#table')?.dataset },
  me: document.querySelector('#seats li.me')?.dataset.seat,
  handOver: !!document.querySelector('#hand-over'),
  hand: !!document.querySelector('#hand'),
  status: document.querySelector('#status')?.textContent })"""

# Every score flash the page draws, in order, however briefly it stays.
FLASHES_JS = """() => { window.flashes = [];
new MutationObserver((records) => {
  for (const record of records) for (const node of record.addedNodes) {
    if (node.classList?.contains('score-flash')) window.flashes.push(Number(node.dataset.points));
  }
}).observe(document, { childList: true, subtree: true }); }"""


def _settled(page: Any) -> None:
    """No tile is still sliding to its place."""
    page.wait_for_function("() => !document.querySelector('#line g.tile[data-anim=running]')")


def _hand(page: Any) -> list[str]:
    return list(page.eval_on_selector_all("#hand button", "es => es.map(e => e.dataset.tile)"))


def _line_tiles(page: Any) -> set[str]:
    names = page.eval_on_selector_all("#line g.tile", "els => els.map(e => e.dataset.tile)")
    return {":".join(sorted(n.split(":"), reverse=True)) for n in names}


def _wait_turn_or_end(page: Any) -> str:
    page.wait_for_selector(
        "#table[data-turn=mine][data-link=open], #table[data-status=finished]", timeout=30_000
    )
    return str(page.get_attribute("#table", "data-status"))


def _wait_ply_after(page: Any, ply: str | None) -> None:
    page.wait_for_function(
        "ply => document.querySelector('#table').dataset.ply !== ply", arg=ply, timeout=15_000
    )


def _click_move(page: Any) -> None:
    ply = page.get_attribute("#table", "data-ply")
    page.locator("#hand button.legal, #actions button.legal").first.click()
    if page.locator("#sides button").count():
        page.locator("#sides button").first.click()
    _wait_ply_after(page, ply)


def _drag_move(page: Any) -> str:
    """Drag the first legal tile onto the middle of the board; the tile's name."""
    ply = page.get_attribute("#table", "data-ply")
    tile = page.locator("#hand button.legal").first
    name = str(tile.get_attribute("data-tile"))
    box, board = tile.bounding_box(), page.locator("#line").bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.mouse.move(board["x"] + board["width"] / 2, board["y"] + board["height"] / 2, steps=8)
    page.mouse.up()
    _wait_ply_after(page, ply)
    return name


def _keyboard_move(page: Any) -> str:
    """Arrows to a legal tile, Enter; if it fits both ends, an arrow to the other end, Enter."""
    ply = page.get_attribute("#table", "data-ply")
    page.focus("#hand button.legal")
    page.keyboard.press("ArrowRight")  # the next legal tile (or the same one, if it is alone)
    name = str(page.evaluate("document.activeElement.dataset.tile"))
    assert name in page.eval_on_selector_all(
        "#hand button.legal", "els => els.map(e => e.dataset.tile)"
    )
    page.keyboard.press("Enter")
    if page.locator("#sides button").count():
        assert page.evaluate("document.activeElement.classList.contains('side')")
        page.keyboard.press("ArrowRight")
        page.keyboard.press("Enter")
    _wait_ply_after(page, ply)
    return name


def _play_move(page: Any, move: str) -> None:
    """Play ``move`` ("6:4L", "draw" or "pass") by clicking, as a player would: the tile, then
    its end if the page asks which."""
    ply = page.get_attribute("#table", "data-ply")
    if ":" not in move:
        page.click(f"#actions button[data-move={move}]")
    else:
        page.click(f"#hand button.legal[data-tile='{move[:-1]}']")
        page.wait_for_function(
            "ply => document.querySelector('#table').dataset.ply !== ply"
            " || document.querySelector('#sides button')",
            arg=ply,
        )
        if page.get_attribute("#table", "data-ply") == ply:
            page.click(f"#sides button[data-move='{move}']")
    _wait_ply_after(page, ply)


def _practice_draw_game(page: Any) -> None:
    page.wait_for_selector("#create-table button[type=submit]:not([disabled])")
    page.select_option("#create-table select[name=preset]", "draw")
    page.fill("#create-table input[name=seats]", "2")
    page.select_option("#create-table select[name=kind]", "practice")
    page.click("#create-table button[type=submit]")
    page.wait_for_selector("#table[data-status=live] #felt")


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["390x844", "1280x800"])
def test_a_hand_played_to_its_end_fits_the_screen_by_drag_keyboard_and_tap(
    browser, server, artifacts, viewport
):
    page = open_wallet_page(
        browser, server.url, InjectedWallet(Account.create().key.hex()), viewport
    )
    sign_in_page(page)
    _practice_draw_game(page)
    size = f"{viewport['width']}x{viewport['height']}"
    dragged = keyed = None
    moves = 0
    while _wait_turn_or_end(page) != "finished":
        _settled(page)
        seen = page.evaluate(OFF_SCREEN_JS)
        assert seen["count"] > 0 and seen["off"] == [], seen
        assert not seen["overflow"], "the table scrolls sideways"
        has_tile = page.locator("#hand button.legal").count() > 0
        if has_tile and dragged is None:
            dragged = _drag_move(page)
            assert oriented(dragged) in _line_tiles(page), "the dragged tile is not on the board"
        elif has_tile and keyed is None:
            keyed = _keyboard_move(page)
            assert oriented(keyed) in _line_tiles(page), "the keyboard's tile is not on the board"
        else:
            _click_move(page)
        moves += 1
        if moves == 3:
            _settled(page)
            assert low_contrast(page, "#felt") == []
            page.screenshot(path=str(artifacts / f"table-{size}.png"))
    assert dragged and keyed, f"the hand ended after {moves} moves, before a drag and a key play"
    _settled(page)
    final = page.evaluate(OFF_SCREEN_JS)
    assert final["off"] == [] and not final["overflow"], final
    board = page.evaluate(BOARD_JS)
    assert board["outside"] == [] and board["overlaps"] == 0, board
    page.wait_for_selector("#hand-count[data-done=true]")
    page.screenshot(path=str(artifacts / f"table-end-{size}.png"))
    assert not page.js_errors


def _check_board(page: Any) -> dict[str, Any]:
    """The board now: every tile inside it, none over another, every double crosswise."""
    _settled(page)
    board = page.evaluate(BOARD_JS)
    assert board["outside"] == [] and board["overlaps"] == 0, board
    for double in board["doubles"]:
        assert double["orient"] == "cross", double
        # Across the line's run: upright in a row, lying flat in a corner (which runs up/down).
        assert double["tall"] != double["corner"], double
    return dict(board)


@pytest.fixture(scope="module")
def seeded_server() -> Iterator[ServerProcess]:
    """A server whose every match is dealt from ``drawing.SEED`` (``seeded_app``)."""
    with pg_server(SeededServer, turn_timeout_s=60, bot_move_delay_s=0.05) as proc:
        yield proc


class SeededServer(ServerProcess):
    def __init__(self, db_url: str, **server: Any) -> None:
        super().__init__(db_url, extra_env={"DEW_TEST_DEAL_SEED": SEED}, **server)

    def command(self) -> list[str]:
        factory = ["-m", "uvicorn", "tests.web.seeded_app:create_app", "--factory"]
        where = ["--host", "127.0.0.1", "--port", str(self.port), "--log-level", "warning"]
        return [sys.executable, *factory, *where]


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["390x844", "1280x800"])
def test_a_draw_game_to_an_empty_boneyard_bends_at_both_edges_with_doubles_crosswise(
    browser, seeded_server, artifacts, viewport
):
    """Both seats of a same-device table play the fixed deal's first hand (tests/web/drawing.py)
    from this page, clicking, until its boneyard is empty; then the line bends at both edges."""
    size = f"{viewport['width']}x{viewport['height']}"
    expected = first_hand(SEED)
    assert expected is not None
    url = seeded_server.url
    page = open_wallet_page(browser, url, InjectedWallet(Account.create().key.hex()), viewport)
    sign_in_page(page)
    # The lobby as drawn for the signed-in wallet (a form drawn before it would be replaced,
    # choices and all: a table was once created with the default kind, a bot in seat 1).
    page.wait_for_selector("#main[data-ready=true][data-view=lobby]")
    page.wait_for_selector("#create-table button[type=submit]:not([disabled])")
    page.select_option("#create-table select[name=preset]", "draw")
    page.select_option("#create-table select[name=kind]", "same_device")
    page.select_option("#create-table select[name='option:target']", str(OPTIONS["target"]))
    page.click("#create-table button[type=submit]")
    page.wait_for_selector("#table[data-status=live] #felt")
    for step, (seat, move) in enumerate(expected.moves):
        # The seat to move holds the page, or the hand-over screen asks for it (after a move
        # the page may show the last mover's hand a moment before the hand-over).
        try:
            page.wait_for_function(SEAT_OR_HAND_OVER_JS, arg=seat)
        except PlaywrightTimeout as error:
            page.screenshot(path=str(artifacts / f"board-stuck-{size}.png"))
            stuck = {"step": step, "seat": seat, "move": move, "page": page.evaluate(PAGE_STATE_JS)}
            raise AssertionError(f"the page does not show the seat to move: {stuck}") from error
        if page.locator("#hand-over").count():
            page.click("#show-hand")
            page.wait_for_function(SEAT_OR_HAND_OVER_JS, arg=seat)
        assert page.get_attribute("#table", "data-status") == "live"
        _play_move(page, move)
    page.wait_for_selector("#boneyard[data-count='0']")
    board = _check_board(page)
    assert board["count"] == expected.line, (board, expected)
    assert board["corners"]["L"] >= 1 and board["corners"]["R"] >= 1, board
    assert len(board["doubles"]) == expected.doubles, board
    # Draws were shown at the seats (that is how the boneyard emptied).
    assert int(page.get_attribute("#table", "data-shown-draws") or 0) >= 14
    page.screenshot(path=str(artifacts / f"table-bent-{size}.png"))
    assert not page.js_errors


def test_reduced_motion_places_tiles_at_once_and_sound_is_off_until_switched_on(browser, server):
    page = open_wallet_page(browser, server.url, InjectedWallet(Account.create().key.hex()), PHONE)
    page.emulate_media(reduced_motion="reduce")
    sign_in_page(page)
    _practice_draw_game(page)
    assert page.get_attribute("#sound-toggle", "aria-pressed") == "false"
    while _wait_turn_or_end(page) != "finished":
        if page.locator("#hand button.legal").count():
            before = len(_line_tiles(page))
            _click_move(page)
            # The played tile is in place with no animation running anywhere on the board.
            page.wait_for_function(
                "n => document.querySelectorAll('#line g.tile').length > n", arg=before
            )
            moving = page.evaluate(
                "() => [...document.querySelectorAll('#line .slide')]"
                ".filter((s) => s.getAnimations().length).length"
            )
            assert moving == 0
            assert page.locator("#line g.tile[data-anim=running]").count() == 0
            break
        _click_move(page)
    page.click("#sound-toggle")
    assert page.get_attribute("#sound-toggle", "aria-pressed") == "true"
    assert page.evaluate("localStorage.getItem('dew.sound')") == "on"
    assert not page.js_errors


def test_a_score_on_a_multiple_of_five_flashes_its_points(browser, server):
    """All-fives (dew200) scores during play: a watcher sees the points flash over the board.
    Bots move every 50 ms here, so a flash may be drawn and replaced between two of
    Playwright's polls: the page records every flash it draws as it draws it."""
    page = open_wallet_page(browser, server.url, None, DESKTOP)
    page.evaluate(FLASHES_JS)  # the page stays one document: the table is its #/table route
    with DewClient(server.url) as client:
        client.sign_in(Account.create().key.hex())
        table = client.create_table(preset="dew200", seats=2, kind="ai", bot_level="easy")
    goto_view(page, f"{server.url}/#/table/{table['id']}")
    page.wait_for_selector("#table[data-link=open] #felt")
    page.wait_for_function("() => window.flashes.length > 0", timeout=120_000)
    points = page.evaluate("window.flashes")[0]
    assert points > 0 and points % 5 == 0
    assert not page.js_errors
