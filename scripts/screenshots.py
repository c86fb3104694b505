#!/usr/bin/env python
"""Screenshots of the web client for docs/screenshots/, taken in Debian's Chromium (Playwright)
against a server this script starts (a fresh SQLite database with a few
open tables, bots that move fast):

    home-<size>.png       the landing page (the home screen's big choices and the lobby)
    table-<size>.png      a guest's practice hand against a bot, mid-hand
    hand-end-<size>.png   the end of that hand: who won, the tiles counted, the match score
    wallet-<size>.png     the wallet screen of a signed-in wallet

at 390x844 (a phone) and 1280x800. ``uv run python scripts/screenshots.py [--out DIR]``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from eth_account import Account  # noqa: E402

from backend.db import migrate  # noqa: E402
from scripts.bench_web import launch, seed_lobby, start_server, stop_server  # noqa: E402
from tests.web.conftest import InjectedWallet, goto_view, open_wallet_page, sign_in_page  # noqa: E402
from tests.web.moves import Clicks, play_one_move, wait_turn_or_end  # noqa: E402

SIZES = {"390x844": {"width": 390, "height": 844}, "1280x800": {"width": 1280, "height": 800}}


def shoot(page: Any, out: Path, name: str, bottom: str | None = None) -> Path:
    """The viewport as a PNG, scrolled to the top, or so that ``bottom``'s element ends at
    the viewport's bottom (a phone's table: the hand is below the first screen)."""
    if bottom is None:
        page.evaluate("window.scrollTo(0, 0)")
    else:
        page.locator(bottom).evaluate("(e) => e.scrollIntoView({ block: 'end' })")
    path = out / f"{name}.png"
    page.screenshot(path=str(path), animations="disabled")
    return path


def guest_screens(browser: Any, url: str, out: Path, size: str) -> list[Path]:
    """The landing page, a hand mid-way and its end, as a guest (no wallet)."""
    page = open_wallet_page(browser, url, None, SIZES[size])
    try:
        shots = [shoot(page, out, f"home-{size}")]
        click = Clicks(page)
        click("#play-now")
        wait_turn_or_end(page)
        play_one_move(page, click)  # a move of one's own on the board, and the bot's answer
        page.click("#guide-dismiss")  # the first-game guide, read
        wait_turn_or_end(page)
        page.wait_for_selector("#table[data-status=live] #hand .tile-btn")
        shots.append(shoot(page, out, f"table-{size}", bottom="#hand"))
        while wait_turn_or_end(page) != "finished":
            play_one_move(page, click)
        page.wait_for_selector("#hand-count[data-done=true]", timeout=30_000)
        shots.append(shoot(page, out, f"hand-end-{size}"))
        if page.js_errors:
            raise RuntimeError(f"script errors on the page: {page.js_errors}")
        return shots
    finally:
        page.context.close()


def wallet_screen(browser: Any, url: str, out: Path, size: str) -> Path:
    wallet = InjectedWallet(Account.create().key.hex())
    page = open_wallet_page(browser, url, wallet, SIZES[size])
    try:
        sign_in_page(page)
        goto_view(page, f"{url}/#/wallet")
        page.wait_for_load_state("networkidle")
        return shoot(page, out, f"wallet-{size}")
    finally:
        page.context.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--out", type=Path, default=REPO / "docs" / "screenshots", help="where the PNGs go"
    )
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="dew-screenshots-") as workdir:
        db_url = f"sqlite:///{workdir}/dew.sqlite3"
        migrate(db_url)
        server, url = start_server(db_url, Path(workdir), bot_delay_s=0.05)
        try:
            seed_lobby(url, 2)  # open tables and bots-only matches: the lobby has rows
            with sync_playwright() as playwright:
                browser = launch(playwright)
                shots: list[Path] = []
                for size in SIZES:
                    shots += guest_screens(browser, url, args.out, size)
                    shots.append(wallet_screen(browser, url, args.out, size))
                browser.close()
        finally:
            stop_server(server)
    for path in shots:
        print(
            f"{path.relative_to(REPO) if path.is_relative_to(REPO) else path}  "
            f"{path.stat().st_size // 1024} KB"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
