"""A season's rewards per place on the seasons page, on the demo's real stack (anvil with the
contracts, ``dew serve``, a Celery worker and beat, the economy jobs): the operator opens a
season with a reward table (``economy.operator.create_season``), two wallets play in it, and
the page shows each place's reward as reserved, on the leaderboard too; the operator ends the
season, the worker's beat task pays its one settlement on chain, and the page shows, per place,
the wallet paid, the amount, the state (paid, or returned for a place nobody reached) and the
transaction, exactly as the API reports them; a phone shows it without scrolling sideways, in
English and in Spanish."""

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
from backend.economy import operator
from tests.web.conftest import InjectedWallet, open_wallet_page, sign_in_page
from tests.web.phone import phone_fits
from tests.web.season_matches import contested_match

pytestmark = pytest.mark.timeout(420)
DEW = 10**18
REWARDS = [5 * DEW, 3 * DEW, 2 * DEW]


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Season]:
    """The demo's first steps: chain, services and five signed-in wallets."""
    config = DemoConfig(workdir=tmp_path_factory.mktemp("web-rewards"), out=lambda _text: None)
    with ExitStack() as stack:
        run = Season(config, stack)
        run.start()
        run.sign_in()
        yield run


def _season_row(demo: Season, season_id: int) -> dict[str, Any]:
    [row] = [s for s in ok(demo.http.get("/economy/seasons")) if s["id"] == season_id]
    return row


def _rewards_shown(page: Any) -> list[list[str | None]]:
    return page.locator("#season-rewards tbody tr").evaluate_all(
        """rows => rows.map((r) => [
            r.cells[0].textContent,
            r.cells[1].querySelector('[data-wei]')?.dataset.wei ?? null,
            r.cells[2].querySelector('[data-state]').dataset.state,
            r.cells[3].querySelector('[data-address]')?.dataset.address ?? null,
            r.cells[4].querySelector('[data-wei]')?.dataset.wei ?? null,
            r.cells[5].querySelector('[data-tx]')?.dataset.tx ?? null,
        ])"""
    )


def _expected(row: dict[str, Any]) -> list[list[str | None]]:
    return [
        [str(p["place"]), p["amount"], p["status"], p["address"], p["paid"], p["tx_hash"]]
        for p in row["rewards"]
    ]


def test_rewards_per_place_reserved_then_paid(browser, demo: Season, artifacts):
    with demo.sessions.begin() as session:
        season_id = operator.create_season(
            session=session,
            name="Temporada con premios",
            starts_at=utcnow() - timedelta(minutes=1),
            ends_at=utcnow() + timedelta(days=7),
            emission_budget=500 * DEW,
            rewards=REWARDS,
        ).id

    # Two contested earning matches of vera against sam (free practice would not count).
    matches = [(demo.vera, demo.sam), (demo.vera, demo.sam)]
    for winner, loser in matches:
        contested_match(demo.sessions, winner.address, loser.address)

    def booked() -> list[dict[str, Any]] | None:
        rows = ok(demo.http.get(f"/economy/seasons/{season_id}/leaderboard"))
        return rows if sum(r["matches"] for r in rows) == 2 * len(matches) else None

    board = wait_for("the season's matches booked", booked, timeout_s=120)
    assert [r["reward"] for r in board] == [str(a) for a in REWARDS[: len(board)]]

    # While the season runs: the table, each place reserved, the leaderboard's reward column.
    page = open_wallet_page(browser, demo.base, InjectedWallet(demo.vera.key, demo.w3))
    assert sign_in_page(page) == demo.vera.address
    page.click("#nav-seasons")
    page.wait_for_selector(f"#season[data-season='{season_id}'] #season-rewards tbody tr")
    assert _rewards_shown(page) == [
        [str(i + 1), str(a), "reserved", None, None, None] for i, a in enumerate(REWARDS)
    ]
    assert page.locator("#season-rewards [data-state=reserved]").first.inner_text() == "reservado"
    column = page.locator("#leaderboard .reward").evaluate_all(
        "els => els.map((e) => e.dataset.wei)"
    )
    assert column == [r["reward"] for r in board]

    # The operator ends the season; the worker's beat task pays it as one settlement.
    with demo.sessions.begin() as session:
        operator.end_season(session=session, season_id=season_id)

    def paid() -> dict[str, Any] | None:
        demo.supervise_worker()
        row = _season_row(demo, season_id)
        states = [p["status"] for p in row["rewards"]]
        return row if all(s in ("paid", "returned") for s in states) else None

    row = wait_for("the season's rewards paid", paid, timeout_s=180, every_s=0.5)
    reached = len(board)
    assert [p["status"] for p in row["rewards"]] == ["paid"] * reached + ["returned"] * (
        len(REWARDS) - reached
    )
    assert [p["address"] for p in row["rewards"][:reached]] == [r["address"] for r in board]
    assert [p["paid"] for p in row["rewards"][:reached]] == [str(a) for a in REWARDS[:reached]]
    [tx_hash] = {p["tx_hash"] for p in row["rewards"][:reached]}
    receipt = demo.w3.eth.get_transaction_receipt(tx_hash)
    assert receipt["status"] == 1

    page.reload()
    page.wait_for_selector(f"#season[data-season='{season_id}'] #season-rewards [data-state=paid]")
    assert _rewards_shown(page) == _expected(row)
    assert page.locator("#season-rewards [data-state=paid]").first.inner_text() == "pagado"
    page.screenshot(path=str(artifacts / "season-rewards.png"), full_page=True)
    assert not page.js_errors

    url = f"{demo.base}/#/seasons/{season_id}"
    assert phone_fits(browser, url, "#season-rewards [data-state=paid]")
    assert phone_fits(browser, url, "#season-rewards [data-state=paid]", locale="en-US")
