"""A player's clicks at the table, shared by the Chromium tests and the scripts that drive the
page (scripts/bench_web.py, scripts/screenshots.py): every click counted, the wait for one's
turn, and one move played."""

from __future__ import annotations

from typing import Any


class Clicks:
    """Every click made, counted (a click the page needs is a click the player makes)."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.count = 0

    def __call__(self, selector: str) -> None:
        self.count += 1
        self.page.locator(selector).first.click()


def wait_turn_or_end(page: Any) -> str:
    """Wait until it is the player's turn (connected) or the match is over; the table's status."""
    page.wait_for_selector(
        "#table[data-turn=mine][data-link=open], #table[data-status=finished]", timeout=30_000
    )
    return str(page.get_attribute("#table", "data-status"))


def play_one_move(page: Any, click: Clicks) -> None:
    """Play the first legal tile (its end chosen if asked) or action; back once it is drawn."""
    ply = page.get_attribute("#table", "data-ply")
    click("#hand button.legal, #actions button.legal")
    if page.locator("#sides button").count():
        click("#sides button")
    page.wait_for_function(
        "ply => document.querySelector('#table').dataset.ply !== ply", arg=ply, timeout=15_000
    )
