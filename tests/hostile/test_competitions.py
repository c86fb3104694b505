"""Hostile callers against tournaments and the one turn-timer floor (issue 30), each on a real
server process on SQLite and PostgreSQL:

- a center's host (or the operator's command) opening a tournament with a 1-second turn
  timer, so that a scripted accomplice wins while a human's seat times out and forfeits;
- the floor's one setting (DEW_TABLES_MIN_EARNING_TURN_TIMEOUT_S) serving tables,
  matchmaking and tournaments alike, even when the server's default timer is below it;
- a host's paid tournament scheduled to start in 2100 (its entrants' fees locked for good);
- an entrant leaving before registration closes: its fee back once, to the unit, however
  many leaves race; nobody else's entry withdrawn; nothing after registration closes;
- the standings of a tournament cancelled with one entrant (a 500 before).
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from typing import Any

import httpx
import pytest
from eth_account import Account
from sqlalchemy import update

from backend.competitions import service as competitions
from backend.competitions.models import Entrant, Tournament, escrow_key
from backend.db import create_db_engine, make_session_factory
from backend.db.base import utcnow
from backend.economy import stakes
from backend.economy.models import StakeEntry
from backend.tables.models import Table
from tests.fixtures.dew_cli import only_database, run_dew
from tests.fixtures.harness import api, sign_in, wait_for
from tests.hostile.test_centers import LIMITS, _mint
from tests.hostile.test_tables import DEW_WEI, SLOW_BOTS, _count, _error

pytestmark = pytest.mark.timeout(240)

FEE = 5 * DEW_WEI + 3


def _cup(name: str, **changes: Any) -> dict[str, Any]:
    return {"name": name, "preset": "draw", "min_entrants": 2, "max_entrants": 4, **changes}


_ENGINES: dict[str, Any] = {}


def _books(db_url: str) -> Any:
    """Sessions on the module's database (one engine per database, disposed at the end)."""
    if db_url not in _ENGINES:
        _ENGINES[db_url] = create_db_engine(db_url)
    return make_session_factory(_ENGINES[db_url])


@pytest.fixture(scope="module", autouse=True)
def _dispose_engines() -> Any:
    yield
    for engine in _ENGINES.values():
        engine.dispose()
    _ENGINES.clear()


# -- the 1-second timer through a Game Center's tournament ----------------------------------


def test_a_hosts_tournament_holds_the_turn_timer_floor(start_server, db_url) -> None:  # type: ignore[no-untyped-def]
    """The host's accomplice script answers at once; a human needs seconds. A tournament's
    places (and prizes) are at stake, so its timer is at least the floor, as a staked
    table's: 1, 5 and 14.9 s are refused with 422 and nothing is written; 15 s is taken."""
    server = start_server(**SLOW_BOTS, extra_env=LIMITS)
    host, token = sign_in(server.url)
    center_id = _mint(db_url, host.address)
    with api(server.url, token) as client:
        for timer in (1, 5, 14.9):
            refused = client.post(
                f"/centers/{center_id}/competitions",
                json=_cup(f"fast {timer} {db_url[:6]}", turn_timeout_s=timer),
            )
            assert _error(refused) == (422, "invalid_request"), refused.text
            assert "at least 15" in refused.json()["error"]["message"]
        assert _count(db_url, Tournament, Tournament.center_id == center_id) == 0
        made = client.post(
            f"/centers/{center_id}/competitions",
            json=_cup(f"fair {db_url[:6]}", turn_timeout_s=15),
        )
        assert made.status_code == 201, made.text
    assert made.json()["turn_timeout_s"] == 15
    assert _count(db_url, Tournament, Tournament.center_id == center_id) == 1


def test_the_operators_command_holds_the_same_floor(db_url) -> None:  # type: ignore[no-untyped-def]
    """``dew create-tournament --turn-timeout-s 1`` is refused like the host's route, and the
    floor is the one setting: raised to 20 s, 19 s is refused and 20 s taken."""

    def create(name: str, timer: float, floor: str | None = None) -> Any:
        extra = {"DEW_TABLES_MIN_EARNING_TURN_TIMEOUT_S": floor} if floor else {}
        env = {**only_database(db_url), **extra}
        return run_dew(env, "create-tournament", name, "--turn-timeout-s", str(timer), timeout=60)

    tag = db_url[:6]
    refused = create(f"cli fast {tag}", 1)
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert "at least 15" in refused.stderr
    raised = create(f"cli 19 {tag}", 19, floor="20")
    assert raised.returncode == 1 and "at least 20" in raised.stderr, raised.stderr
    assert _count(db_url, Tournament, Tournament.name.like("cli % " + tag)) == 0
    taken = create(f"cli 20 {tag}", 20, floor="20")
    assert taken.returncode == 0, taken.stderr
    assert _count(db_url, Tournament, Tournament.name == f"cli 20 {tag}") == 1


def test_one_floor_setting_serves_tables_matchmaking_and_tournaments(  # type: ignore[no-untyped-def]
    start_server, chain, db_url
) -> None:
    """A deployment that raises the floor to 20 s (and whose default timer is 1 s) gets 20 s
    on every path where DEW or rank is at stake: the lobby's limits, an earning table made
    with or without a timer, a matchmade earning table, a center's tournament."""
    server = start_server(
        **{**SLOW_BOTS, "turn_timeout_s": 1, "matchmaking_wait_s": 1.0},
        extra_env={**chain.env, **LIMITS, "DEW_TABLES_MIN_EARNING_TURN_TIMEOUT_S": "20"},
    )
    host, host_token = sign_in(server.url)
    center_id = _mint(db_url, host.address)
    with api(server.url) as anonymous:
        limits = anonymous.get("/tables/limits").json()
    assert limits["min_earning_turn_timeout_s"] == 20
    creator, queued = chain.vip(), chain.vip()
    _, creator_token = sign_in(server.url, creator)
    _, queued_token = sign_in(server.url, queued)
    with api(server.url, creator_token) as client:
        body = {"preset": "draw", "seats": 2, "earning": True}
        refused = client.post("/tables", json={**body, "turn_timeout_s": 19})
        assert _error(refused) == (422, "invalid_request") and "at least 20" in refused.text
        table = client.post("/tables", json=body)  # the server's 1 s default: raised to 20
        assert table.status_code == 201, table.text
    assert table.json()["turn_timeout_s"] == 20
    with api(server.url, queued_token) as client:
        ticket = client.post("/matchmaking", json={"preset": "draw", "earning": True})
        assert ticket.status_code == 201, ticket.text
        table_id = wait_for(
            lambda: client.get(f"/matchmaking/{ticket.json()['id']}").json().get("table_id"),
            timeout=60,
            what="the matchmaker to seat the earning ticket",
        )
        assert client.get(f"/tables/{table_id}").json()["turn_timeout_s"] == 20
    with api(server.url, host_token) as client:
        cup = f"/centers/{center_id}/competitions"
        low = client.post(cup, json=_cup(f"floor 19 {db_url[:6]}", turn_timeout_s=19))
        assert _error(low) == (422, "invalid_request") and "at least 20" in low.text
        fair = client.post(cup, json=_cup(f"floor 20 {db_url[:6]}", turn_timeout_s=20))
        assert fair.status_code == 201, fair.text
    assert _count(db_url, Table, Table.turn_timeout_s < 20, Table.earning.is_(True)) == 0


# -- a host's tournament in 2100 ------------------------------------------------------------


def test_a_hosts_tournament_starts_within_the_window(start_server, db_url) -> None:  # type: ignore[no-untyped-def]
    """Entrants' fees are held until the start: a host may schedule at most
    DEW_COMPETITIONS_HOST_MAX_LEAD_DAYS (30) ahead; 2100, 31 days and a start without a
    time zone are refused with 422 and write nothing; 29 days is taken."""
    server = start_server(**SLOW_BOTS, extra_env=LIMITS)
    host, token = sign_in(server.url)
    center_id = _mint(db_url, host.address, capacity=3)
    now = utcnow()
    with api(server.url, token) as client:
        for starts_at, what in [
            ("2100-01-01T00:00:00+00:00", "at most 30 days ahead"),
            ((now + timedelta(days=31)).isoformat(), "at most 30 days ahead"),
            ("2026-12-01T00:00:00", "timezone-aware"),
        ]:
            refused = client.post(
                f"/centers/{center_id}/competitions",
                json=_cup(f"late {starts_at} {db_url[:6]}", starts_at=starts_at),
            )
            assert _error(refused) == (422, "invalid_request"), refused.text
            assert what in refused.json()["error"]["message"]
        assert _count(db_url, Tournament, Tournament.center_id == center_id) == 0
        soon = (now + timedelta(days=29)).isoformat()
        made = client.post(
            f"/centers/{center_id}/competitions", json=_cup(f"soon {db_url[:6]}", starts_at=soon)
        )
        assert made.status_code == 201, made.text


# -- leaving a tournament before it starts ---------------------------------------------------


def _paid_tournament(db_url: str, name: str) -> int:
    books = _books(db_url)
    with books() as session:
        t = competitions.create_tournament(
            session=session,
            spec=competitions.TournamentSpec(
                name=name,
                preset="draw",
                entry_fee=FEE,
                min_entrants=2,
                max_entrants=4,
                starts_at=utcnow() + timedelta(hours=1),
            ),
            created_by="operator",
        )
        return t.id


def _deposit(db_url: str, address: str, amount: int) -> None:
    with _books(db_url)() as session, session.begin():
        stakes.credit_deposit(
            session=session,
            address=address,
            amount=amount,
            tx_hash="0x" + os.urandom(32).hex(),
            log_index=0,
        )


def _balance(db_url: str, address: str) -> int:
    with _books(db_url)() as session:
        return stakes.stake_balance(session=session, address=address)


def test_an_entrant_leaves_before_registration_closes_with_its_fee_back_once(  # type: ignore[no-untyped-def]
    start_server, db_url
) -> None:
    """The entrant's fee was locked until the operator cancelled. Now it may leave while
    registration is open: the fee comes back to the unit, once, however many leaves race;
    a wallet with no entry withdraws nothing; a fresh entry is charged again under a new
    number; after registration closes nobody leaves; a cancel refunds only who stayed."""
    server = start_server(**SLOW_BOTS, extra_env=LIMITS)
    tid = _paid_tournament(db_url, f"leavers {db_url[:6]}")
    entrant, token = sign_in(server.url)
    stayer, stayer_token = sign_in(server.url)
    _stranger, stranger_token = sign_in(server.url)
    for wallet in (entrant, stayer):
        _deposit(db_url, wallet.address, 2 * FEE)
    with api(server.url, token) as client:
        first = client.post(f"/competitions/{tid}/register")
        assert first.status_code == 200, first.text
    with api(server.url, stayer_token) as client:
        assert client.post(f"/competitions/{tid}/register").status_code == 200
    assert _balance(db_url, entrant.address) == FEE
    with api(server.url, stranger_token) as client:
        nobody = client.post(f"/competitions/{tid}/leave")
        assert _error(nobody) == (409, "not_registered"), nobody.text
    with api(server.url) as anonymous:
        assert anonymous.post(f"/competitions/{tid}/leave").status_code == 401
    racers = 8
    barrier = threading.Barrier(racers)

    def leave(_: int) -> httpx.Response:
        with api(server.url, token) as client:
            barrier.wait()
            return client.post(f"/competitions/{tid}/leave")

    with ThreadPoolExecutor(racers) as pool:
        answers = list(pool.map(leave, range(racers)))
    left = [a for a in answers if a.status_code == 200]
    assert len(left) == 1, [a.text for a in answers]
    assert left[0].json()["refunded"] == FEE
    assert {_error(a) for a in answers if a.status_code != 200} == {(409, "not_registered")}
    assert _balance(db_url, entrant.address) == 2 * FEE  # to the unit, once
    assert _balance(db_url, stayer.address) == FEE
    with api(server.url, token) as client:
        again = client.post(f"/competitions/{tid}/register")
        assert again.status_code == 200, again.text
        assert again.json()["number"] > first.json()["number"]  # a number is never reused
        assert _balance(db_url, entrant.address) == FEE  # charged again
        assert client.post(f"/competitions/{tid}/leave").json()["refunded"] == FEE
    # Registration closes at the start: from then on an entry stays (the bracket may be made).
    with _books(db_url)() as session, session.begin():
        session.execute(
            update(Tournament)
            .where(Tournament.id == tid)
            .values(starts_at=utcnow() - timedelta(seconds=1))
        )
    with api(server.url, stayer_token) as client:
        closed = client.post(f"/competitions/{tid}/leave")
        assert _error(closed) == (409, "registration_closed"), closed.text
    assert _balance(db_url, stayer.address) == FEE
    with _books(db_url)() as session:
        assert [
            e.address for e in competitions.entrants_of(session=session, tournament_id=tid)
        ] == [stayer.address]
        assert sum(stakes.escrowed(session=session, match_id=escrow_key(tid)).values()) == FEE
        done = competitions.cancel(session=session, tournament_id=tid, reason="test")
    assert done.refunded == FEE  # the stayer's fee; the leaver's was already back
    assert _balance(db_url, entrant.address) == 2 * FEE
    assert _balance(db_url, stayer.address) == 2 * FEE
    assert _count(db_url, Entrant, Entrant.tournament_id == tid) == 1
    assert _count(db_url, StakeEntry, StakeEntry.match_id == escrow_key(tid)) == 6


# -- standings of a tournament cancelled with one entrant ----------------------------------


def test_standings_of_a_tournament_cancelled_with_one_entrant(start_server, db_url) -> None:  # type: ignore[no-untyped-def]
    """One wallet entered, fewer than the minimum: the tournament is cancelled and has no
    standings; the route answers 200 with none (a 500 with a traceback before)."""
    server = start_server(**SLOW_BOTS)
    books = _books(db_url)
    lonely = Account.create().address
    with books() as session:
        for fmt in ("swiss", "elimination"):
            t = competitions.create_tournament(
                session=session,
                spec=competitions.TournamentSpec(
                    name=f"lonely {fmt} {db_url[:6]}",
                    preset="draw",
                    format=fmt,
                    starts_at=utcnow() + timedelta(hours=1),
                ),
            )
            competitions.register(session=session, gate=None, tournament_id=t.id, address=lonely)
            competitions.cancel(session=session, tournament_id=t.id, reason="one entrant")
            with api(server.url) as anonymous:
                answer = anonymous.get(f"/competitions/{t.id}/standings")
                assert answer.status_code == 200, answer.text
                assert answer.json() == []
                detail = anonymous.get(f"/competitions/{t.id}").json()
                assert detail["status"] == "cancelled" and len(detail["entrants"]) == 1
