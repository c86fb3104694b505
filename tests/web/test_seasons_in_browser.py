"""The seasons page on the demo's real stack (anvil with the contracts, ``dew serve``, a Celery
worker and beat, the economy jobs): the operator opens seasons (``economy.seasons``), two
wallets play matches in the running one, the economy jobs book them, and the page shows the
schedule and the running season's leaderboard exactly as the API ranks it; a phone shows it
without scrolling sideways."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from datetime import timedelta
from typing import Any

import pytest

from backend.db.base import utcnow
from backend.demo.players import ok
from backend.demo.season import DemoConfig, Season
from backend.devstack.services import wait_for
from backend.economy import seasons
from tests.web.conftest import InjectedWallet, open_wallet_page, sign_in_page
from tests.web.phone import phone_fits
from tests.web.season_matches import contested_match

pytestmark = pytest.mark.timeout(420)
DEW = 10**18


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Season]:
    """The demo's first steps: chain, services and five signed-in wallets."""
    config = DemoConfig(workdir=tmp_path_factory.mktemp("web-seasons"), out=lambda _text: None)
    with ExitStack() as stack:
        run = Season(config, stack)
        run.start()
        run.sign_in()
        yield run


def _season(demo: Season, name: str, starts: timedelta, ends: timedelta, budget: int) -> int:
    with demo.sessions.begin() as session:
        return seasons.create_season(
            session=session,
            name=name,
            starts_at=utcnow() + starts,
            ends_at=utcnow() + ends,
            emission_budget=budget,
        ).id


def test_schedule_and_leaderboard_of_the_running_season(browser, demo: Season, artifacts):
    past = _season(demo, "Temporada 0", timedelta(days=-9), timedelta(days=-2), 10 * DEW)
    running = _season(demo, "Temporada 1", timedelta(minutes=-1), timedelta(days=7), 500 * DEW)
    upcoming = _season(demo, "Temporada 2", timedelta(days=8), timedelta(days=15), 20 * DEW)

    # Two contested earning matches of vera against sam (free practice would not count).
    matches = [(demo.vera, demo.sam), (demo.vera, demo.sam)]
    for winner, loser in matches:
        contested_match(demo.sessions, winner.address, loser.address)

    def booked() -> list[dict[str, Any]] | None:
        rows = ok(demo.http.get(f"/economy/seasons/{running}/leaderboard"))
        return rows if sum(r["matches"] for r in rows) == 2 * len(matches) else None

    board = wait_for("the season's matches booked", booked, timeout_s=120)
    assert {r["address"] for r in board} == {demo.sam.address, demo.vera.address}

    page = open_wallet_page(browser, demo.base, InjectedWallet(demo.vera.key, demo.w3))
    assert sign_in_page(page) == demo.vera.address
    page.click("#nav-seasons")
    page.wait_for_selector("main[data-ready=true][data-view=seasons] #leaderboard")
    # The schedule: all three seasons, each with its state.
    states = page.locator("#season-schedule [data-status]").evaluate_all(
        "els => els.map((e) => e.dataset.status)"
    )
    assert states == ["finished", "running", "upcoming"]
    links = page.locator("#season-schedule a[data-season]").evaluate_all(
        "els => els.map((e) => Number(e.dataset.season))"
    )
    assert links == [past, running, upcoming]
    # The running season is the one shown, ranked as the API ranks it.
    assert page.get_attribute("#season", "data-season") == str(running)
    shown = page.locator("#leaderboard tbody tr").evaluate_all(
        """rows => rows.map((r) => [...r.cells].map((c) => c.textContent))"""
    )
    addresses = page.locator("#leaderboard .player").evaluate_all(
        "els => els.map((e) => e.dataset.address)"
    )
    assert addresses == [r["address"] for r in board]
    assert [[row[0], row[2], row[3], row[4]] for row in shown] == [
        [str(r["rank"]), str(r["matches"]), str(r["wins"]), str(r["points"])] for r in board
    ]
    assert page.locator("#leaderboard tr.me").count() == 1
    assert "(tú)" in page.locator("#leaderboard tr.me").inner_text()
    page.screenshot(path=str(artifacts / "seasons.png"), full_page=True)

    # Another season from the schedule: its own (empty) leaderboard.
    page.click(f"#season-schedule a[data-season='{past}']")
    page.wait_for_selector(f"#season[data-season='{past}'][data-status=finished]")
    assert page.get_attribute("#leaderboard", "data-rows") == "0"
    assert not page.js_errors

    assert phone_fits(browser, f"{demo.base}/#/seasons", "#leaderboard tbody tr")
