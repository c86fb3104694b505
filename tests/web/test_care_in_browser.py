"""Trust and care in Chromium at a phone's 390x844 (issue 32), on the web tests' one server:

- a moderator (a wallet the operator granted the role) sees a report in its screen and, by
  keyboard, suspends the reported player with a reason and a length; the player, refused a
  match search, follows the refusal's link to its account page, reads which action, why and
  until when in its own language, and appeals once; the moderator lifts it on appeal, and the
  player reads the answer;
- a player reads the risk statement before its first deposit, sets a daily deposit limit
  (held at once), sees when a raise would take effect, and is refused a deposit above the
  limit in the catalogue's words while one within it passes the limit (and reaches the
  chain, which this server has not);
- every error code the care routes answer has its sentence in both languages.

Each screen is also checked for developer text, the other language, a page wider than the
phone and covered controls (tests/web/words.py)."""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from eth_account import Account
from sqlalchemy import create_engine
from sqlalchemy.orm import Session

from backend.care import exceptions as care_exc
from backend.care import moderation
from backend.kit.errors import DewError
from tests.fixtures.harness import ServerProcess, api, sign_in
from tests.web.conftest import InjectedWallet, goto_view, open_wallet_page, sign_in_page
from tests.web.phone import PHONE
from tests.web.words import CATALOGUE_JS, problems_of, raw_values, speak

pytestmark = pytest.mark.timeout(300)

DEW = 10**18
REASON = "Insultos repetidos en la charla de la mesa"


def _page(browser: Any, server: ServerProcess, account: Any, **kwargs: Any) -> Any:
    page = open_wallet_page(browser, server.url, InjectedWallet(account.key.hex()), PHONE, **kwargs)
    assert sign_in_page(page) == account.address
    return page


def _clean(page: Any, lang: str, values: set[str]) -> None:
    assert problems_of(page, lang, values) == []


@pytest.fixture(scope="module")
def reported(server: ServerProcess) -> Iterator[dict[str, Any]]:
    """A reporter and the player it reported at a table they both sat at (the player has
    left it since), and a moderator the operator granted the role."""
    reporter, player, mod = Account.create(), Account.create(), Account.create()
    _, reporter_token = sign_in(server.url, reporter)
    _, player_token = sign_in(server.url, player)
    with api(server.url, reporter_token) as host, api(server.url, player_token) as guest:
        created = host.post("/tables", json={"preset": "dew200", "seats": 4})
        assert created.status_code == 201, created.text
        table_id = created.json()["id"]
        assert guest.post(f"/tables/{table_id}/join").status_code == 200
        body = {"table_id": table_id, "address": player.address, "reason": "abusive_language"}
        said = host.post("/complaints", json={**body, "note": "Me insultó tres veces"})
        assert said.status_code == 201, said.text
        assert guest.post(f"/tables/{table_id}/leave").status_code == 204
    engine = create_engine(server.env["DEW_DB_URL"])
    try:
        with Session(engine) as session:  # what `dew moderation grant` does for the operator
            assert moderation.grant(session=session, address=mod.address, by="operator")
    finally:
        engine.dispose()
    yield {"player": player, "player_token": player_token, "moderator": mod}


def test_a_moderator_suspends_a_reported_player_who_reads_why_and_appeals(
    browser: Any, server: ServerProcess, reported: dict[str, Any]
) -> None:
    player = reported["player"]
    values = raw_values(server.url)
    mod_page = _page(browser, server, reported["moderator"])
    mod_page.wait_for_selector("#nav-moderation", state="attached")  # the role's tool
    goto_view(mod_page, f"{server.url}/#/moderation")
    card = mod_page.locator(f"article.complaint[data-reported='{player.address}']")
    assert "Lenguaje ofensivo" in card.inner_text() and "Me insultó tres veces" in card.inner_text()
    _clean(mod_page, "es", values)

    # By keyboard: the action, its length in days, the reason, then Enter on the button.
    card.locator("select[name=kind]").focus()
    mod_page.keyboard.press("ArrowDown")  # warn, mute, suspend
    mod_page.keyboard.press("ArrowDown")
    assert card.locator("select[name=kind]").input_value() == "suspend"
    mod_page.keyboard.press("Tab")
    mod_page.keyboard.press("Control+a")
    mod_page.keyboard.type("3")
    mod_page.keyboard.press("Tab")
    mod_page.keyboard.press("ArrowDown")  # hours, days
    assert card.locator("select[name=unit]").input_value() == "days"
    mod_page.keyboard.press("Tab")
    mod_page.keyboard.type(REASON)
    mod_page.keyboard.press("Tab")
    mod_page.keyboard.press("Enter")
    mod_page.wait_for_selector("#mod-recent [data-state=active]")
    assert mod_page.locator(f"article.complaint[data-reported='{player.address}']").count() == 0
    assert "Suspensión del juego" in mod_page.inner_text("#mod-recent")

    # The player (in English) is refused a match search; the refusal links to the reason.
    page = _page(browser, server, player)
    speak(page, "en")
    page.click("#matchmaking button[type=submit]")
    page.wait_for_selector("#status.error[data-code=suspended]")
    assert "suspended your play" in page.inner_text("#status")
    page.click("#status a.status-why")
    page.wait_for_selector("main[data-ready=true][data-view=standing] article.sanction")
    sanction = page.locator("article.sanction[data-kind=suspend][data-active=true]")
    shown = sanction.inner_text()
    assert "Play suspended" in shown and REASON in shown and "In force until" in shown
    ends = datetime.now(UTC) + timedelta(days=3)
    assert f"{ends.day} {ends:%B} {ends.year}" in shown  # the end, in the player's words
    _clean(page, "en", values)

    # One appeal: written and sent by keyboard; the form is gone once it is sent.
    sanction.locator("textarea").focus()
    page.keyboard.type("I only wrote good game, twice.")
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    page.wait_for_selector("article.sanction .appeal-waiting")
    assert page.locator("article.sanction form.appeal-form").count() == 0
    with api(server.url, reported["player_token"]) as again:
        sanction_id = page.get_attribute("article.sanction", "data-id")
        twice = again.post(f"/care/sanctions/{sanction_id}/appeal", json={"text": "again"})
        assert (twice.status_code, twice.json()["error"]["code"]) == (409, "already_appealed")

    # The moderator lifts it on appeal; the player reads the answer.
    goto_view(mod_page, f"{server.url}/#/moderation")
    appeal = mod_page.locator(f"article.appeal[data-address='{player.address}']")
    assert "I only wrote good game, twice." in appeal.inner_text()
    appeal.locator("textarea").fill("Revisado: no hubo insultos.")
    appeal.locator("button.lift").click()
    mod_page.wait_for_selector("#mod-recent [data-state=lifted]")
    goto_view(page, f"{server.url}/#/standing")
    answer = page.inner_text("article.sanction .appeal-answer")
    assert "Revisado: no hubo insultos." in answer and "The action was lifted." in answer
    assert page.get_attribute("article.sanction", "data-active") == "false"
    for p in (mod_page, page):
        assert not p.js_errors, p.js_errors
        p.context.close()


def _limit_row(page: Any) -> Any:
    return page.locator("#my-limits tr", has=page.locator("[data-kind=deposit]"))


def test_a_player_sets_a_deposit_limit_and_is_refused_above_it(
    browser: Any, server: ServerProcess
) -> None:
    values = raw_values(server.url)
    page = _page(browser, server, Account.create(), risk_read=False)
    goto_view(page, f"{server.url}/#/limits")
    assert page.get_attribute("#risk-statement", "data-read") == "false"
    _clean(page, "es", values)
    page.select_option("#limit-kind", "deposit")
    page.select_option("#limit-period", "day")
    page.fill("#limit-amount", "5")
    page.click("#limit-form button[type=submit]")
    page.wait_for_selector(f"#my-limits .limit-amount[data-wei='{5 * DEW}']")
    assert "5.00 DEW" in _limit_row(page).inner_text()

    # A raise waits its cooling: the page says from when, and the 5 DEW still hold.
    page.fill("#limit-amount", "20")
    page.click("#limit-form button[type=submit]")
    pending = page.wait_for_selector("#my-limits .limit-pending")
    start = datetime.fromisoformat(str(pending.get_attribute("data-from")))
    assert abs(start - (datetime.now(UTC) + timedelta(hours=24))) < timedelta(minutes=5)
    assert "20.00 DEW" in pending.inner_text()
    assert page.get_attribute("#my-limits .limit-amount", "data-wei") == str(5 * DEW)
    _clean(page, "es", values)

    # The first deposit: the risk statement first (go on only once it is read), then the
    # refusal above the limit in the catalogue's words.
    goto_view(page, f"{server.url}/#/wallet")
    page.fill("#deposit-form input[name=amount]", "6")
    page.click("#deposit-form button[type=submit]")
    page.wait_for_selector("#risk-gate")
    assert page.is_disabled("#risk-go-on")
    _clean(page, "es", values)
    page.focus("#risk-read")
    page.keyboard.press("Space")
    page.click("#risk-go-on")
    page.wait_for_selector("#status.error[data-code=limit_reached]")
    assert "límite que tú pusiste" in page.inner_text("#status")
    assert page.locator(".tx-panel").count() == 0
    # Within it the door lets the deposit through to the chain (none here): no statement again.
    page.fill("#deposit-form input[name=amount]", "2")
    page.click("#deposit-form button[type=submit]")
    page.wait_for_selector("#status.error[data-code=chain_unavailable]")
    assert page.locator("#risk-gate").count() == 0

    # Help with a payout: a number that is not one of the wallet's is refused in words.
    goto_view(page, f"{server.url}/#/support?about=payout&ref=424242")
    assert page.input_value("#ticket-ref") == "424242"
    page.fill("#ticket-subject", "Falta un pago")
    page.fill("#ticket-text", "No me llegó el pago de ayer.")
    page.click("#ticket-form button[type=submit]")
    page.wait_for_selector("#status.error[data-code=link_not_found]")
    assert "No encontramos ese número" in page.inner_text("#status")
    assert not page.js_errors, page.js_errors

    # Every code the care routes answer has its sentence, in both languages.
    codes = {
        k.code
        for _, k in inspect.getmembers(care_exc, inspect.isclass)
        if issubclass(k, DewError) and k.__module__ == care_exc.__name__
    } | {"complaint_not_found", "conflict", "not_authenticated", "not_operator", "rate_limited"}
    for lang in ("es", "en"):
        words = page.evaluate(CATALOGUE_JS, lang)
        assert sorted(c for c in codes if f"err_{c}" not in words) == []
    page.context.close()
