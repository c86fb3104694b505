"""Game Centers and the creator dashboard in Chromium (issue 20), on a real server process
and PostgreSQL: a player finds a center by place (a city chosen from the list, nearest first)
and joins the table its host opened there; a creator's `?ref=CODE` link binds a player (the
wallet signs the statement) and the creator's dashboard shows the player, its matches and the
creator's earnings. The centers are mirrored from CenterMinted events through the indexer's
own code; the earnings are ledger legs as the settlement planner writes them."""

from __future__ import annotations

import secrets
from typing import Any

import pytest
from eth_account import Account
from sqlalchemy.orm import Session

from backend.competitions.models import escrow_key
from backend.db import create_db_engine, make_session_factory
from backend.db.base import utcnow
from backend.economy.counts import Count
from backend.economy.models import LedgerLeg, PlannedSettlement, SeatRecord
from tests.centers.helpers import mint_center
from tests.fixtures.harness import ServerProcess, api, sign_in
from tests.web.conftest import InjectedWallet, goto_view, open_wallet_page, sign_in_page
from tests.web.phone import phone_fits

pytestmark = pytest.mark.timeout(300)
DEW = 10**18


def _db(server: ServerProcess) -> Any:
    engine = create_db_engine(server.env["DEW_DB_URL"])
    return engine, make_session_factory(engine)


def _seed_centers(server: ServerProcess, host: str) -> dict[str, int]:
    """Three centers in three cities, under names unique to this run."""
    tag = secrets.token_hex(3)
    places = {
        f"Madrid {tag}": ("Madrid", 4042, -370),
        f"Barcelona {tag}": ("Barcelona", 4139, 217),
        f"Habana {tag}": ("La Habana", 2314, -8238),
    }
    ids: dict[str, int] = {}
    engine, sessions = _db(server)
    try:
        with sessions() as session:
            for name, (city, lat, lon) in places.items():
                center_id = secrets.randbelow(2**40) + 1
                country = b"CU" if city == "La Habana" else b"ES"
                mint_center(
                    session, center_id, host, name=name, city=city, country=country,
                    lat_e2=lat, lon_e2=lon, capacity=2,
                )  # fmt: skip
                ids[name] = center_id
    finally:
        engine.dispose()
    return ids


def test_find_a_center_by_place_and_join_its_table(browser: Any, server: ServerProcess) -> None:
    host = Account.create()
    ids = _seed_centers(server, host.address)
    barcelona = next(name for name in ids if name.startswith("Barcelona"))
    _, host_token = sign_in(server.url, host)
    with api(server.url, host_token) as client:
        opened = client.post(
            f"/centers/{ids[barcelona]}/tables", json={"preset": "draw", "seats": 2}
        )
        assert opened.status_code == 201, opened.text
        table_id = opened.json()["id"]

    wallet = InjectedWallet(Account.create().key.hex())
    page = open_wallet_page(browser, server.url, wallet)
    me = sign_in_page(page)
    page.click("#nav-more")  # the header's "More" group
    page.click("#nav-centers")
    page.wait_for_selector("form#center-search")
    # Choose a place: Barcelona's coordinates fill in; the nearest center comes first, then
    # Madrid (about 500 km), then Havana (across the ocean).
    page.select_option("#center-search select[name=city]", "Barcelona (ES)")
    assert page.input_value("#center-search input[name=lat]") == "41.39"
    page.click("#center-search button[type=submit]")
    page.wait_for_selector("#center-results[data-searched=true]")
    ours = [
        name for name in page.locator("#center-results a.center").all_inner_texts() if name in ids
    ]
    assert ours == [barcelona, *(n for n in ids if n.startswith("Madrid")),
                    *(n for n in ids if n.startswith("Habana"))]  # fmt: skip
    first_km = float(str(page.locator("#center-results .distance").first.get_attribute("data-km")))
    assert first_km < 1.0

    page.click(f"#center-results a.center[data-center='{ids[barcelona]}']")
    page.wait_for_selector(f"#center-name[data-center='{ids[barcelona]}']")
    assert "Barcelona (ES)" in page.inner_text("#center-place")
    page.click(f"#center-tables button.join[data-table='{table_id}']")
    page.wait_for_selector("main[data-ready=true][data-view=table]")
    assert page.url.split("#", 1)[1].startswith(f"/table/{table_id}")
    _, token = sign_in(server.url)
    with api(server.url, token) as client:
        seats = client.get(f"/tables/{table_id}").json()["seats"]
    assert [s["address"] for s in seats] == [me]
    assert not page.js_errors  # type: ignore[attr-defined]
    # The English page and a phone's width.
    assert phone_fits(browser, f"{server.url}/#/centers", "form#center-search")
    page.context.close()


def _creator_earning(server: ServerProcess, creator: str, player: str, amount: int) -> None:
    """One settled match of ``player`` paying ``creator`` its fee leg, as the planner books it."""
    match_id = secrets.token_hex(16)
    engine, sessions = _db(server)
    try:
        with sessions() as session:
            _book(session, match_id, creator, player, amount)
    finally:
        engine.dispose()


def _book(session: Session, match_id: str, creator: str, player: str, amount: int) -> None:
    now = utcnow()
    session.add(
        PlannedSettlement(
            match_id=match_id, chain_match_id="0x" + secrets.token_hex(32),
            result_hash="0x" + "00" * 32, season_id=None, economy="staked",
            finished_at=now, status="paid",
        )
    )  # fmt: skip
    session.flush()
    session.add(
        SeatRecord(
            match_id=match_id, seat=0, address=player, is_bot=False, placement=1,
            finished_at=now,
            # What the rule (backend.economy.counts) stores for a contested staked match.
            counts=int(Count.EMISSION | Count.LEADERBOARD | Count.CREATOR_EARNINGS
                       | Count.CENTER_EARNINGS),
        )
    )  # fmt: skip
    session.add(
        LedgerLeg(
            match_id=match_id, party="fee_creator", address=creator, amount=str(amount),
            status="paid",
        )
    )  # fmt: skip
    session.commit()


def test_a_ref_link_binds_a_player_and_the_creator_dashboard_shows_it(
    browser: Any, server: ServerProcess
) -> None:
    creator = Account.create()
    code = ("web" + secrets.token_hex(4)).upper()  # the server keeps codes upper case
    _, creator_token = sign_in(server.url, creator)
    with api(server.url, creator_token) as client:
        registered = client.post("/creators", json={"code": code})
        assert registered.status_code == 201, registered.text

    wallet = InjectedWallet(Account.create().key.hex())
    page = open_wallet_page(browser, server.url, wallet)
    player = sign_in_page(page)
    goto_view(page, f"{server.url}/#/creator?ref={code}")
    page.wait_for_selector("#bind-creator")
    page.click("#bind-creator")
    page.wait_for_selector(f"#bound-to[data-code='{code}'], #status.error")
    assert page.locator("#bound-to").count() == 1, page.inner_text("#status")
    assert "personal_sign" in wallet.requests
    assert not page.js_errors  # type: ignore[attr-defined]
    page.context.close()

    _creator_earning(server, creator.address, player, 3 * DEW // 2)
    owner_wallet = InjectedWallet(creator.key.hex())
    page = open_wallet_page(browser, server.url, owner_wallet)
    sign_in_page(page)
    page.click("#nav-more")
    page.click("#nav-creator")
    page.wait_for_selector("#creator-code")
    assert page.inner_text("#creator-code") == code
    assert f"ref={code}" in page.inner_text("#creator-link")
    brought = page.locator("#creator-players .brought")
    assert brought.count() == 1
    assert str(brought.first.get_attribute("data-address")).lower() == player.lower()
    assert page.inner_text("#creator-players .player-matches") == "1"
    assert page.locator("#creator-earnings .earned-paid").first.get_attribute("data-wei") == str(
        3 * DEW // 2
    )
    assert "1.50 DEW" in page.inner_text("#creator-earnings")
    # Spanish by default; English after the language button.
    assert "Jugadores que trajiste" in page.inner_text("#creator-players")
    page.click("#lang")
    page.wait_for_selector("#creator-players h3:has-text('Players you brought')")
    assert not page.js_errors  # type: ignore[attr-defined]
    page.context.close()


def test_a_host_sees_what_its_center_earns(browser: Any, server: ServerProcess) -> None:
    """The host's earnings on the center's page: the center's fee share per season and per
    match with the transaction that paid it; another wallet's page of it shows none of it."""
    host = Account.create()
    ids = _seed_centers(server, host.address)
    center = next(iter(ids.values()))
    _, host_token = sign_in(server.url, host)
    with api(server.url, host_token) as client:
        cups = [
            client.post(
                f"/centers/{center}/competitions",
                json={"name": f"Copa {secrets.token_hex(3)}", "preset": "draw"},
            )
            for _ in range(2)
        ]
        assert all(c.status_code == 201 for c in cups), [c.text for c in cups]
    engine, sessions = _db(server)
    paid_tx = "0x" + secrets.token_hex(32)
    try:
        with sessions() as session:
            for cup, amount, status in ((cups[0], 15, "paid"), (cups[1], 5, "pending")):
                match_id = escrow_key(cup.json()["id"])
                session.add(
                    PlannedSettlement(
                        match_id=match_id, chain_match_id="0x" + secrets.token_hex(32),
                        result_hash="0x" + "00" * 32, season_id=None, economy="staked",
                        finished_at=utcnow(), status="paid",
                        tx_hash=paid_tx if status == "paid" else None,
                    )
                )  # fmt: skip
                session.flush()
                session.add(
                    LedgerLeg(
                        match_id=match_id, party="fee_center", address=host.address,
                        amount=str(amount * 10**17), status=status,
                    )
                )  # fmt: skip
            session.commit()
    finally:
        engine.dispose()

    page = open_wallet_page(browser, server.url, InjectedWallet(host.key.hex()))
    assert sign_in_page(page) == host.address
    goto_view(page, f"{server.url}/#/centers/{center}")
    page.wait_for_selector("#center-earnings")
    assert page.get_attribute("#center-earned", "data-wei") == str(2 * 10**18)
    assert page.inner_text("#center-earned") == "2.00 DEW"
    assert page.inner_text("#center-paid") == "1.50 DEW"
    assert page.locator("#center-earnings .center-leg").count() == 2
    assert page.get_attribute("#center-earnings .leg-tx", "title") == paid_tx
    assert "wei" not in page.inner_text("#center-earnings")
    assert not page.js_errors  # type: ignore[attr-defined]
    page.context.close()

    other = open_wallet_page(browser, server.url, InjectedWallet(Account.create().key.hex()))
    sign_in_page(other)
    goto_view(other, f"{server.url}/#/centers/{center}")
    assert other.locator("#center-earnings").count() == 0
    other.context.close()
