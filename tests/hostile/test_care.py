"""Hostile wallets against the one gate (``backend.care.standing``), on SQLite and
PostgreSQL, each through a real server process and the module's anvil:

- a banned, suspended, timed-out or self-excluded wallet, signed in before, is refused a
  seat, a table of its own, a matchmaking queue, a tournament's entry fee and a deposit,
  while its withdrawal still pays; a banned wallet cannot sign in again; a sanction is
  appealed once;
- a player's limit raised takes effect only after the 24-hour cooling (an injected clock,
  not a sleep), a lowered one at once;
- twenty parallel deposits, or twenty parallel entries, cannot pass a limit;
- a muted wallet's talk is refused; a moderator acts on a complaint and the audit keeps it.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from typing import Any

import httpx
import pytest
from eth_account import Account
from sqlalchemy import select

from backend.care import exceptions as care_exc
from backend.care import limits, moderation, standing
from backend.care.models import DepositAsked, SanctionAudit
from backend.care.standing import Door
from backend.competitions import service as competitions
from backend.competitions.models import Entrant
from backend.db.base import utcnow
from backend.economy.models import StakeEntry
from backend.tables.models import TableSeat
from tests.fixtures.harness import Player, api, sign_in
from tests.hostile.test_seats_and_holds import _balance, _deposit
from tests.hostile.test_tables import SLOW_BOTS, _count, _error, _send
from tests.hostile.test_talk import _until

pytestmark = pytest.mark.timeout(300)

DEW = 10**18
STAKE = 10 * DEW
OPERATOR = Account.create()
LIMITS = {
    "DEW_HTTP_CREATE_PER_WALLET": "1000/minute",
    "DEW_HTTP_TRANSACTIONS_PER_IP": "1000/minute",
    "DEW_OPERATOR_ADDRESSES": json.dumps([OPERATOR.address]),
}
REFUSALS = {
    "ban": "banned",
    "suspend": "suspended",
    "timeout": "timed_out",
    "exclusion": "self_excluded",
}


def _paid_tournament(books: Any, name: str, fee: int) -> int:
    with books() as session:
        t = competitions.create_tournament(
            session=session,
            spec=competitions.TournamentSpec(
                name=name,
                preset="draw",
                entry_fee=fee,
                min_entrants=2,
                max_entrants=64,
                starts_at=utcnow() + timedelta(hours=1),
            ),
            created_by="operator",
        )
        return t.id


def _put_in_standing(books: Any, address: str, state: str) -> None:
    with books() as session:
        if state in ("ban", "suspend"):
            moderation.impose(
                session=session,
                address=address,
                terms=moderation.Terms(state, f"a {state} for cheating", timedelta(days=7)),
                actor=OPERATOR.address,
            )
        else:
            days = 7 if state == "timeout" else 200
            limits.take_break(
                session=session, address=address, kind=state, duration=timedelta(days=days)
            )


# -- every door closed but the withdrawal ---------------------------------------------------


@pytest.mark.parametrize("state", list(REFUSALS))
def test_a_refused_wallet_finds_every_door_shut_but_its_withdrawal_pays(  # type: ignore[no-untyped-def]
    start_server, chain, books, db_url, state
) -> None:
    server = start_server(**SLOW_BOTS, extra_env={**chain.env, **LIMITS})
    host, player = chain.vip(), chain.vip()
    _, host_token = sign_in(server.url, host)
    _, token = sign_in(server.url, player)  # signed in before: a ban ends only new sign-ins
    _deposit(books, host.address, STAKE)
    _deposit(books, player.address, 3 * STAKE)
    staked = {"preset": "draw", "seats": 2, "earning": True, "stake": str(STAKE)}
    with api(server.url, host_token) as client:
        made = client.post("/tables", json=staked)
        assert made.status_code == 201, made.text
    table_id = made.json()["id"]
    tid = _paid_tournament(books, f"{state} {db_url[:6]}", STAKE)
    _put_in_standing(books, player.address, state)
    code = REFUSALS[state]
    with api(server.url, token) as client:
        doors = {
            "seat": client.post(f"/tables/{table_id}/join"),
            "own table": client.post("/tables", json=staked),
            "queue": client.post(
                "/matchmaking", json={"preset": "draw", "earning": True, "stake": str(STAKE)}
            ),
            "entry": client.post(f"/competitions/{tid}/register"),
            "deposit": client.post("/wallet/deposit", json={"amount": str(DEW)}),
        }
        for door, answer in doors.items():
            assert _error(answer) == (403, code), (door, answer.text)
        # Nothing was written behind the refusals.
        assert _count(db_url, TableSeat, TableSeat.address == player.address) == 0
        assert _count(db_url, Entrant, Entrant.address == player.address) == 0
        assert _count(db_url, DepositAsked, DepositAsked.address == player.address) == 0
        assert _balance(books, player.address) == 3 * STAKE
        # The wallet sees why.
        seen = client.get("/care/standing").json()
        if state in ("ban", "suspend"):
            assert [(s["kind"], s["reason"], s["active"]) for s in seen["sanctions"]] == [
                (state, f"a {state} for cheating", True)
            ]
        else:
            assert [b["kind"] for b in seen["breaks"]] == [state]
        # The withdrawal always pays.
        paid = client.post("/wallet/withdrawals", json={"amount": str(STAKE)})
        assert paid.status_code == 201, paid.text
        assert _balance(books, player.address) == 2 * STAKE
        if state in ("ban", "suspend"):
            sanction_id = seen["sanctions"][0]["id"]
            first = client.post(f"/care/sanctions/{sanction_id}/appeal", json={"text": "not me"})
            assert first.status_code == 200, first.text
            again = client.post(f"/care/sanctions/{sanction_id}/appeal", json={"text": "really"})
            assert _error(again) == (409, "already_appealed"), again.text
    if state == "ban":
        with pytest.raises(Exception, match="banned"):
            sign_in(server.url, player)
    if state == "exclusion":  # free play stays open to a self-excluded player
        with api(server.url, token) as client:
            free = client.post("/tables", json={"preset": "draw", "seats": 2})
            assert free.status_code == 201, free.text


# -- the cooling period ---------------------------------------------------------------------


def test_a_raised_limit_waits_its_cooling_and_a_lowered_one_holds_at_once(books) -> None:  # type: ignore[no-untyped-def]
    address = Account.create().address
    t0 = utcnow()

    def deposit(amount: int, at: Any) -> None:
        with books() as session:
            standing.require(session, address, Door.DEPOSIT, amount=amount, now=at)
            session.commit()

    with books() as session:
        limits.set_limit(
            session=session, address=address, kind="deposit", period="week", amount=10, now=t0
        )
    deposit(10, t0)
    with pytest.raises(care_exc.LimitReached):
        deposit(1, t0)
    raised_at = t0 + timedelta(hours=1)
    with books() as session:
        shown = limits.set_limit(
            session=session,
            address=address,
            kind="deposit",
            period="week",
            amount=100,
            now=raised_at,
        )
    assert (shown.amount, shown.pending) == (10, 100)
    with pytest.raises(care_exc.LimitReached):
        deposit(1, raised_at + timedelta(hours=23, minutes=59))
    deposit(50, raised_at + timedelta(hours=24))  # the cooling is over: 60 of 100
    with books() as session:
        lowered = limits.set_limit(
            session=session,
            address=address,
            kind="deposit",
            period="week",
            amount=55,
            now=raised_at + timedelta(hours=25),
        )
    assert (lowered.amount, lowered.pending, lowered.used) == (55, None, 60)
    with pytest.raises(care_exc.LimitReached):
        deposit(1, raised_at + timedelta(hours=25))
    # Removing a limit is a raise: it too waits.
    with books() as session:
        limits.set_limit(
            session=session,
            address=address,
            kind="deposit",
            period="week",
            amount=None,
            now=raised_at + timedelta(hours=26),
        )
    with pytest.raises(care_exc.LimitReached):
        deposit(1, raised_at + timedelta(hours=49))
    deposit(10**20, raised_at + timedelta(hours=50, seconds=1))
    # A break is not ended early by anything, and a too-short one is refused.
    with books() as session, pytest.raises(care_exc.InvalidCare):
        limits.take_break(
            session=session, address=address, kind="exclusion", duration=timedelta(days=30)
        )


# -- twenty at once --------------------------------------------------------------------------


def _race(racers: int, call: Callable[[int], httpx.Response]) -> list[httpx.Response]:
    barrier = threading.Barrier(racers)

    def go(n: int) -> httpx.Response:
        barrier.wait()
        return call(n)

    with ThreadPoolExecutor(racers) as pool:
        return list(pool.map(go, range(racers)))


def test_twenty_parallel_deposits_or_entries_cannot_pass_a_limit(  # type: ignore[no-untyped-def]
    start_server, chain, books, db_url
) -> None:
    server = start_server(**SLOW_BOTS, extra_env={**chain.env, **LIMITS})
    player, token = sign_in(server.url)
    token_contract = chain.d.contracts.token.functions
    _send(chain.w3, chain.d.deployer_key, token_contract.transfer(player.address, 10 * DEW))
    with api(server.url, token) as client:
        for kind, amount in (("deposit", 5 * DEW), ("stake", 3 * STAKE)):
            put = client.put(
                "/care/limits", json={"kind": kind, "period": "day", "amount": str(amount)}
            )
            assert put.status_code == 200, put.text
            assert put.json()["amount"] == str(amount)

    def deposit(_: int) -> httpx.Response:
        with api(server.url, token) as client:
            return client.post("/wallet/deposit", json={"amount": str(DEW)})

    answers = _race(20, deposit)
    assert sorted(a.status_code for a in answers) == [200] * 5 + [409] * 15, [
        a.text for a in answers if a.status_code not in (200, 409)
    ]
    assert {_error(a) for a in answers if a.status_code != 200} == {(409, "limit_reached")}
    with books() as session:
        asked = session.scalars(
            select(DepositAsked.amount).where(DepositAsked.address == player.address)
        )
        assert sum(int(a) for a in asked) == 5 * DEW
    # Twenty tournaments' fees at once: the stake limit lets three through.
    _deposit(books, player.address, 20 * STAKE)
    tids = [_paid_tournament(books, f"race {n} {db_url[:6]}", STAKE) for n in range(20)]

    def enter(n: int) -> httpx.Response:
        with api(server.url, token) as client:
            return client.post(f"/competitions/{tids[n]}/register")

    entries = _race(20, enter)
    assert sorted(a.status_code for a in entries) == [200] * 3 + [409] * 17, [
        a.text for a in entries if a.status_code not in (200, 409)
    ]
    assert {_error(a) for a in entries if a.status_code != 200} == {(409, "limit_reached")}
    assert _count(db_url, Entrant, Entrant.address == player.address) == 3
    assert _balance(books, player.address) == 17 * STAKE
    escrowed = _count(
        db_url, StakeEntry, StakeEntry.address == player.address, StakeEntry.kind == "escrow"
    )
    assert escrowed == 3


# -- moderators, complaints and talk -------------------------------------------------------


def test_a_moderator_acts_on_a_complaint_and_a_muted_wallet_cannot_talk(  # type: ignore[no-untyped-def]
    start_server, chain, books, db_url
) -> None:
    server = start_server(**SLOW_BOTS, extra_env={**chain.env, **LIMITS})
    _, operator_token = sign_in(server.url, OPERATOR)
    moderator, moderator_token = sign_in(server.url)
    _reporter, reporter_token = sign_in(server.url)
    reported, reported_token = sign_in(server.url)
    with api(server.url, reporter_token) as client:
        table = client.post("/tables", json={"preset": "dew200", "seats": 3}).json()
    with api(server.url, reported_token) as client:
        assert client.post(f"/tables/{table['id']}/join").status_code == 200
    with api(server.url, reporter_token) as client:
        filed = client.post(
            "/complaints",
            json={
                "address": reported.address,
                "table_id": table["id"],
                "reason": "abusive_language",
            },
        )
        assert filed.status_code == 201, filed.text
    complaint_id = filed.json()["id"]
    body = {"kind": "mute", "reason": "insults at the table", "hours": 48}
    with api(server.url, moderator_token) as client:
        # Not a moderator until the operator says so; nothing is written.
        refused = client.post(f"/care/moderation/complaints/{complaint_id}/sanction", json=body)
        assert _error(refused) == (403, "not_moderator"), refused.text
    with api(server.url, reported_token) as client:
        granted = client.put(f"/care/moderators/{moderator.address}")
        assert _error(granted) == (403, "not_operator"), granted.text
    with api(server.url, operator_token) as client:
        assert client.put(f"/care/moderators/{moderator.address}").status_code == 204
    with api(server.url, moderator_token) as client:
        listed = client.get("/care/moderation/complaints").json()
        assert [c["id"] for c in listed] == [complaint_id]
        acted = client.post(f"/care/moderation/complaints/{complaint_id}/sanction", json=body)
        assert acted.status_code == 201, acted.text
        again = client.post(f"/care/moderation/complaints/{complaint_id}/sanction", json=body)
        assert again.status_code == 409, again.text
        assert client.get("/care/moderation/complaints").json() == []
    sanction = acted.json()
    assert (sanction["address"], sanction["complaint_id"]) == (reported.address, complaint_id)
    with books() as session:
        standing.require(session, reported.address, Door.SEAT)  # a mute closes talk only

    async def talk(expect_muted: bool) -> None:
        speaker = await Player(server.ws_url, table["id"], reported_token).connect()
        hearer = await Player(server.ws_url, table["id"], reporter_token).connect()
        await speaker.send({"type": "talk", "phrase": "hello", "ref": "t"})
        answer = await _until(speaker, ("error", "talk"))
        if expect_muted:
            assert (answer["type"], answer["error"]["code"]) == ("error", "muted"), answer
            assert "insults at the table" in answer["error"]["message"]
            # It reached nobody: the table's next talk the hearer gets is its own.
            await hearer.send({"type": "talk", "emote": "wow"})
            assert (await _until(hearer, ("talk",)))["emote"] == "wow"
        else:
            assert (answer["type"], answer["phrase"]) == ("talk", "hello"), answer
        await speaker.close()
        await hearer.close()

    asyncio.run(talk(expect_muted=True))
    with api(server.url, reported_token) as client:
        appealed = client.post(
            f"/care/sanctions/{sanction['id']}/appeal", json={"text": "it was a joke"}
        )
        assert appealed.status_code == 200, appealed.text
    with api(server.url, moderator_token) as client:
        waiting = client.get("/care/moderation/sanctions", params={"appealed": True}).json()
        assert sanction["id"] in [s["id"] for s in waiting]
        assert all(s["appealed_at"] and not s["answered_at"] for s in waiting)
        answered = client.post(
            f"/care/moderation/sanctions/{sanction['id']}/answer",
            json={"uphold": False, "note": "lifted on appeal"},
        )
        assert answered.status_code == 200, answered.text
        assert answered.json()["active"] is False
        trail = client.get(f"/care/moderation/sanctions/{sanction['id']}/audit").json()
        assert [a["action"] for a in trail] == ["impose", "appeal", "lift"]
    assert _count(db_url, SanctionAudit, SanctionAudit.sanction_id == sanction["id"]) == 3
    asyncio.run(talk(expect_muted=False))  # lifted on appeal: it talks again
