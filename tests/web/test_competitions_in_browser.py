"""The competitions and help pages in Chromium, on a real server process and PostgreSQL.

A tournament is opened by the operator's path (``competitions.service.create_tournament``);
a wallet reads its entry rules and registers from the page; the organizer fills the draw with a
bot and the tournament advances (``competitions.jobs.advance_tournaments``, what the worker's
task runs). The page follows all of it through the tournament socket, without a reload: the
entrants, the live bracket, the wallet's game, and the results with their prizes. The help
pages show the glossary and each preset's rules and tips in Spanish and in English. Each page
fits a phone (390x844) without scrolling sideways."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

import pytest
from eth_account import Account
from sqlalchemy.orm import Session, sessionmaker

from backend.competitions import jobs, service, views
from backend.config import Settings
from backend.db import create_db_engine, make_session_factory
from backend.db.base import utcnow
from backend.economy import stakes
from backend.tables import play
from tests.fixtures.harness import Player, ServerProcess, api
from tests.web.conftest import InjectedWallet, goto_view, open_wallet_page, pg_server, sign_in_page
from tests.web.phone import phone_fits

pytestmark = pytest.mark.timeout(300)
DEW = 10**18
# A hostile tournament name: the page must show it as text, never run or render it.
MARKUP_NAME = '<img id="x" src=x onerror="window.__pwned=1">VIP'


@pytest.fixture(scope="module")
def stack() -> Iterator[tuple[ServerProcess, sessionmaker[Session]]]:
    """A server that adopts the tournament games the advancing job starts, on its own database."""
    with pg_server(turn_timeout_s=60, bot_move_delay_s=0.02, adopt_started_every_s=0.2) as server:
        engine = create_db_engine(server.env["DEW_DB_URL"])
        try:
            yield server, make_session_factory(engine)
        finally:
            engine.dispose()


def _open(sessions: sessionmaker[Session], **fields: Any) -> int:
    spec = service.TournamentSpec(
        name=fields.pop("name"),
        preset="draw",
        format=fields.pop("format", "elimination"),
        min_entrants=2,
        max_entrants=2,
        starts_at=utcnow() + timedelta(hours=1),
        turn_timeout_s=20,
        bot_level="easy",
        **fields,
    )
    with sessions() as session:
        t = service.create_tournament(session=session, spec=spec, created_by="operator")
        session.commit()
        return t.id


def page_token(page: Any) -> str:
    return str(page.evaluate("JSON.parse(sessionStorage.getItem('dew.session')).token"))


@contextmanager
def advancing(sessions: sessionmaker[Session]) -> Iterator[None]:
    """Advance tournaments in the background, as the worker's beat task does."""
    stop = threading.Event()

    def advance() -> None:
        while not stop.is_set():
            jobs.advance_tournaments(session_factory=sessions, settings=Settings())
            stop.wait(0.2)

    runner = threading.Thread(target=advance, daemon=True)
    runner.start()
    try:
        yield
    finally:
        stop.set()
        runner.join(timeout=10)


def play_game(server: ServerProcess, table_id: str, token: str) -> None:
    """Play the wallet's seat at ``table_id`` to the end over the table socket. Playwright's
    sync API holds the test thread's event loop, so the game plays in a thread of its own."""
    failures: list[BaseException] = []

    async def play_it() -> None:
        player = await Player(server.ws_url, table_id, token).connect()
        await player.play_until_over()
        await player.close()

    def in_thread() -> None:
        try:
            asyncio.run(play_it())
        except BaseException as error:  # reported below, in the test's thread
            failures.append(error)

    thread = threading.Thread(target=in_thread)
    thread.start()
    thread.join(timeout=120)
    assert not thread.is_alive() and not failures, failures


def shown_wei(page: Any, selector: str) -> list[str]:
    return [
        str(x) for x in page.locator(selector).evaluate_all("els => els.map((e) => e.dataset.wei)")
    ]


def test_register_and_follow_the_live_bracket_to_the_prizes(browser, stack, artifacts):
    server, sessions = stack
    tid = _open(sessions, name="Campeonato web", prize_bps=[10_000])
    wallet = InjectedWallet(Account.create().key.hex())
    page = open_wallet_page(browser, server.url, wallet)
    address = sign_in_page(page)

    page.click("#nav-competitions")
    page.wait_for_selector("main[data-ready=true][data-view=competitions]")
    page.click(f"#tournaments a[data-tournament='{tid}']")
    page.wait_for_selector("#competition[data-link=open]")
    # The entry rules: the fee, who may enter, the format, the prize shares.
    assert page.get_attribute("#entry-fee", "data-wei") == "0"
    assert page.inner_text("#eligibility") == "Cualquier billetera"
    assert "Eliminación directa" in page.inner_text("#format")
    assert "100 %" in page.inner_text("#prize-shares")
    assert page.inner_text("#bracket").endswith("El cuadro aparece cuando empieza el torneo.")
    page.evaluate("window.__samePage = true")

    page.click("#register-form button[type=submit]")
    page.wait_for_selector("#my-entry[data-number='1']")
    with sessions() as session:
        [entrant] = service.entrants_of(session=session, tournament_id=tid)
        assert entrant.address == address

    # The organizer fills the draw with a bot: the page hears it through the socket.
    with sessions() as session:
        service.add_bots(session=session, tournament_id=tid, count=1, level="easy")
        session.commit()
    page.wait_for_selector("#entrants[data-count='2']")

    with advancing(sessions):
        # The tournament starts: the bracket's first round appears live, the wallet's game in it.
        page.wait_for_selector("#bracket [data-round='1'] .game[data-status=live]")
        assert page.inner_text("#t-status") == "en juego"
        game = page.locator("#bracket .game").first.inner_text()
        assert "(tú)" in game and "bot (easy)" in game
        page.screenshot(path=str(artifacts / "competition-live.png"), full_page=True)
        table_id = str(page.get_attribute("#bracket a.watch-game", "href")).rsplit("/", 1)[1]
        play_game(server, table_id, page_token(page))
        # Finished: results and prizes, as the standings route gives them.
        page.wait_for_selector("#competition[data-status=finished] #results .place")
    assert page.evaluate("window.__samePage === true")  # every change came through the socket
    standings = service_standings(sessions, tid)
    shown = page.locator("#results .place").all_inner_texts()
    assert shown == [str(s["place"]) for s in standings] == ["1", "2"]
    prizes = shown_wei(page, "#results .prize")
    assert prizes == [str(s["prize"]) for s in standings]
    assert page.locator("#bracket .game[data-status=finished]").count() == 1
    winner = page.get_attribute("#bracket .game", "data-winner")
    assert winner == str(standings[0]["entrant"])
    page.screenshot(path=str(artifacts / "competition-finished.png"), full_page=True)
    assert not page.js_errors

    assert phone_fits(browser, f"{server.url}/#/competitions", "#tournaments")
    assert phone_fits(browser, f"{server.url}/#/competitions/{tid}", "#competition #results")


def service_standings(sessions: sessionmaker[Session], tid: int) -> list[dict[str, Any]]:
    with sessions() as session:
        t = service.get_tournament(session=session, tournament_id=tid)
        return views.standings_view(session=session, tournament=t)


def test_entry_rules_show_fee_eligibility_and_a_refusal(browser, stack):
    """A tournament with a fee and a VIP rule: the page says both, and a wallet without the
    pass (or the DEW) is refused with the API's error, and nothing is entered. Its name is
    markup, shown as text."""
    server, sessions = stack
    tid = _open(
        sessions, name=MARKUP_NAME, entry_fee=2 * DEW, requires_vip=True, prize_bps=[7_000, 3_000]
    )
    page = open_wallet_page(browser, server.url, InjectedWallet(Account.create().key.hex()))
    sign_in_page(page)
    goto_view(page, f"{server.url}/#/competitions/{tid}")
    page.wait_for_selector("#competition #entry-rules")
    assert page.locator("#x").count() == 0 and page.evaluate("window.__pwned === undefined")
    assert page.inner_text("#competition h2").startswith(MARKUP_NAME)
    assert page.get_attribute("#entry-fee", "data-wei") == str(2 * DEW)
    assert "2.00 DEW" in page.inner_text("#entry-fee")
    assert "pase VIP" in page.inner_text("#eligibility")
    assert page.locator("#prize-shares li").all_inner_texts() == [
        "Puesto 1: 70 % del bote",
        "Puesto 2: 30 % del bote",
    ]
    page.click("#register-form button[type=submit]")
    page.wait_for_selector("#status.error")
    # The API's error code is kept on the bar; the player reads the catalogue's sentence.
    assert page.get_attribute("#status", "data-code")
    assert "_" not in page.inner_text("#status") and "(" not in page.inner_text("#status")
    assert page.locator("#my-entry").count() == 0
    with sessions() as session:
        assert service.entrants_of(session=session, tournament_id=tid) == []
    # A tournament that does not exist: the API's error, nothing else.
    goto_view(page, f"{server.url}/#/competitions/{2**31 - 1}")
    page.wait_for_selector("main[data-ready=true][data-view=competitions]")
    assert page.get_attribute("#status", "data-code") == "tournament_not_found"
    assert "No se encontró ese torneo." in page.inner_text("#status")
    assert page.locator("#competition").count() == 0
    assert not page.js_errors


def test_swiss_with_an_entry_fee_from_the_stake_balance(browser, stack):
    """The fee comes from the vault balance the page shows (credited as the indexer credits a
    deposit); a Swiss tournament shows live standings, then the results with the prize."""
    server, sessions = stack
    tid = _open(sessions, name="Suizo web", format="swiss", entry_fee=2 * DEW, prize_bps=[10_000])
    account = Account.create()
    with sessions() as session:
        stakes.credit_deposit(
            session=session,
            address=account.address,
            amount=5 * DEW,
            tx_hash="0x" + "ab" * 32,
            log_index=0,
        )
        session.commit()
    page = open_wallet_page(browser, server.url, InjectedWallet(account.key.hex()))
    sign_in_page(page)
    goto_view(page, f"{server.url}/#/competitions/{tid}")
    page.wait_for_selector("#competition[data-link=open] #my-stake")
    assert page.get_attribute("#my-stake", "data-wei") == str(5 * DEW)
    assert page.locator("#bracket").count() == 0  # Swiss: standings, not a bracket
    page.click("#register-form button[type=submit]")
    page.wait_for_selector(f"#my-stake[data-wei='{3 * DEW}']")
    with sessions() as session:
        assert stakes.stake_balance(session=session, address=account.address) == 3 * DEW
        service.add_bots(session=session, tournament_id=tid, count=1, level="easy")
        session.commit()
    with advancing(sessions):
        page.wait_for_selector("#competition[data-status=running] #standings .place")
        table_id = next(
            g["table_id"]
            for r in ok_json(server, f"/competitions/{tid}/bracket")
            for g in r["games"]
            if g["status"] == "live"
        )
        play_game(server, table_id, page_token(page))
        page.wait_for_selector("#competition[data-status=finished] #results .place")
    standings = service_standings(sessions, tid)
    assert shown_wei(page, "#results .prize") == [str(s["prize"]) for s in standings]
    assert sum(int(s["prize"]) for s in standings) == 2 * DEW  # the pool: one paid entry
    assert not page.js_errors


def ok_json(server: ServerProcess, path: str) -> Any:
    with api(server.url) as client:
        response = client.get(path)
        assert response.status_code == 200, response.text
        return response.json()


@pytest.mark.parametrize(
    ("lang", "glossary_term", "tips_heading", "preset_summary"),
    [
        ("es", "Pozo (cementerio)", "Consejos para ganar", "Juego de robar a dos"),
        ("en", "Boneyard (graveyard)", "Tips for winning", "Two-player draw game"),
    ],
)
def test_help_pages_in_both_languages(
    browser, stack, lang, glossary_term, tips_heading, preset_summary
):
    server, _ = stack
    page = open_wallet_page(browser, server.url, None)
    if lang == "en":
        page.click("#lang")
        page.wait_for_selector("html[lang=en] main[data-ready=true]")
    page.click("#nav-help")
    page.wait_for_selector("main[data-ready=true][data-view=help] #glossary")
    assert glossary_term in page.locator("#glossary dt").all_inner_texts()
    assert page.inner_text("#tips h3") == tips_heading
    assert page.locator("#tips li").count() == 4
    # A rules page for every preset the server offers, with its options.
    presets = play.presets()
    links = page.locator("#preset-rules a").evaluate_all("els => els.map((e) => e.dataset.preset)")
    assert links == [p["preset"] for p in presets]
    page.click("#preset-rules a[data-preset=draw]")
    page.wait_for_selector("#rules[data-preset=draw]")
    assert page.inner_text("#summary").startswith(preset_summary)
    assert page.inner_text("#tips h3") == tips_heading
    # Premium choices are marked, as /presets says.
    goto_view(page, f"{server.url}/#/help/partnership")
    page.wait_for_selector("#rules[data-preset=partnership]")
    spec = next(p for p in presets if p["preset"] == "partnership")
    premium = sum(len(o["premium"]) for o in spec["option_specs"])
    assert page.locator("#rules [data-premium=true]").count() == premium > 0
    # An unknown preset in the address: said, and the glossary still shown.
    goto_view(page, f"{server.url}/#/help/no_such_game")
    page.wait_for_selector("main[data-ready=true][data-view=help] p.error")
    assert page.locator("#glossary").count() == 1
    assert not page.js_errors
    if lang == "es":
        assert phone_fits(browser, f"{server.url}/#/help", "#glossary")
        assert phone_fits(browser, f"{server.url}/#/help/partnership", "#rules")
