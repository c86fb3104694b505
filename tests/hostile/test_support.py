"""Hostile wallets against support tickets, reports' outcomes and the closing of an account,
through a real server process, on SQLite and PostgreSQL:

- a ticket names one of the wallet's own payouts, match results, rentals or purchases: a
  forged link (someone else's object, a missing one, a malformed id) is refused and writes
  nothing; someone else's ticket is not found, to read, to write in or to close;
- a wallet over its daily cap of tickets or messages is refused (429) and nothing is
  written, and twelve parallel tickets pass a cap of four exactly four times; hidden
  characters are cleaned and over-long text refused;
- the operator answers in the thread and the player sees the state and the answer, not who
  answered; a reporter sees the action its report led to, and nothing more;
- an account with money or a seat left is not closed ("withdraw first"); a closed one is
  signed out, cannot sign in again (account_closed), its words are gone and its ledger kept.
"""

from __future__ import annotations

import json
import secrets
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from eth_account import Account
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from backend.accounts.models import DisplayName
from backend.care.models import ClosedAccount, SupportMessage, SupportTicket
from backend.db import create_db_engine, make_session_factory
from backend.db.base import utcnow
from backend.economy import stakes
from backend.economy.models import AgreementMirror, LedgerLeg, PlannedSettlement, StakeEntry
from backend.markets.models import MarketLedgerEntry
from backend.protocol.client import DewClientError
from backend.tables.models import Match, MatchmakingTicket, MatchResult, TableSeat
from backend.tables.moderation.complaints import Complaint
from tests.fixtures.harness import ServerProcess, api, sign_in
from tests.fixtures.tables import add_table
from tests.hostile.test_seats_and_holds import _deposit
from tests.hostile.test_tables import _error

pytestmark = pytest.mark.timeout(300)

OPERATOR = Account.create()
ENV = {
    "DEW_OPERATOR_ADDRESSES": json.dumps([OPERATOR.address]),
    "DEW_TALK_TICKETS_PER_DAY": "4",
    "DEW_TALK_TICKET_MESSAGES_PER_DAY": "6",
    "DEW_HTTP_CREATE_PER_WALLET": "1000/minute",
}
HIDDEN = "\u200b\u202e\U000e0068"


@pytest.fixture
def sessions(db_url: str) -> Iterator[sessionmaker[Session]]:
    engine = create_db_engine(db_url)
    yield make_session_factory(engine)
    engine.dispose()


def _count(sessions: sessionmaker[Session], model: Any) -> int:
    with sessions() as session:
        return int(session.scalar(select(func.count()).select_from(model)) or 0)


def _settled(session: Session, match_id: str) -> None:
    session.add(
        PlannedSettlement(
            match_id=match_id,
            chain_match_id="0x" + secrets.token_hex(32),
            result_hash="0x" + secrets.token_hex(32),
            economy="staked",
            finished_at=utcnow(),
            status="paid",
        )
    )
    session.flush()


def _table(session: Session) -> str:
    return add_table(session, status="finished")


def _objects(sessions: sessionmaker[Session], address: str) -> dict[str, str]:
    """One payout, match result, rental and purchase of ``address``: each kind's id."""
    with sessions.begin() as session:
        match_id = uuid.uuid4().hex
        _settled(session, match_id)
        leg = LedgerLeg(
            match_id=match_id, party="wallet", address=address, amount="5", status="paid"
        )
        session.add(leg)
        table_id = _table(session)
        session.add(
            Match(
                id=match_id,
                table_id=table_id,
                preset="draw",
                seats=[{"seat": 0, "address": address}],
                seed="0" * 64,
                seed_commitment="0" * 64,
                status="finished",
            )
        )
        session.flush()
        session.add(
            MatchResult(
                match_id=match_id, seat=0, address=address, is_bot=False, placement=1, won=True
            )
        )
        rental = secrets.randbelow(2**40)
        session.add(
            AgreementMirror(
                id=rental,
                avatar_id=1,
                owner=Account.create().address,
                scholar=address,
                terms="fixed_rent",
                duration_s=86_400,
                dust_to="owner",
                status="active",
                offered_block=1,
                updated_block=1,
            )
        )
        entry = MarketLedgerEntry(
            kind="price",
            source="shop",
            listing_id=1,
            payer=address,
            payee=Account.create().address,
            amount="7",
            token=Account.create().address,
            item_id="avatar:1",
            tx_hash="0x" + secrets.token_hex(32),
            log_index=0,
            leg=0,
            block_number=1,
        )
        session.add(entry)
        session.flush()
        return {
            "payout": str(leg.id),
            "match": match_id,
            "rental": str(rental),
            "purchase": str(entry.id),
        }


def _ticket(about: str, ref: str, text: str = "the amount looks short") -> dict[str, str]:
    return {"about": about, "ref": ref, "subject": f"my {about}", "text": text}


JSON_BODY = {"Content-Type": "application/json"}


def _server(start_server: Any) -> ServerProcess:
    server: ServerProcess = start_server(extra_env=ENV)
    return server


def test_a_ticket_names_only_the_wallets_own_objects_and_stays_the_wallets(  # type: ignore[no-untyped-def]
    start_server, sessions
) -> None:
    server = _server(start_server)
    alice, alice_token = sign_in(server.url)
    _, bob_token = sign_in(server.url)
    theirs = _objects(sessions, alice.address)
    with api(server.url, bob_token) as bob:
        before = _count(sessions, SupportTicket), _count(sessions, SupportMessage)
        for about, ref in theirs.items():  # forged: alice's objects, named by bob
            assert _error(bob.post("/care/tickets", json=_ticket(about, ref))) == (
                404,
                "link_not_found",
            ), about
        for about, ref in [("payout", "999999999"), ("match", "nope"), ("rental", "-1")]:
            assert _error(bob.post("/care/tickets", json=_ticket(about, ref)))[0] == 404
        assert _error(bob.post("/care/tickets", json=_ticket("refund", "1")))[0] == 422
        # A ref no id is spelled like (the fuzzer's lone surrogates: a 500 on PostgreSQL when
        # it reached the match lookup) is refused before any lookup.
        for junk in ("\udbf4\udd5a\u0000x", "12 34", "é1"):
            body = json.dumps(_ticket("match", junk))  # \u escapes, as a fuzzer sends them
            sent = bob.post("/care/tickets", content=body, headers=JSON_BODY)
            assert _error(sent)[0] == 422, sent.text
        assert (_count(sessions, SupportTicket), _count(sessions, SupportMessage)) == before
    with api(server.url, alice_token) as client:
        opened = [client.post("/care/tickets", json=_ticket(a, r)) for a, r in theirs.items()]
        assert [o.status_code for o in opened] == [201] * 4, opened[-1].text
        mine = opened[0].json()
        assert mine["status"] == "open" and mine["messages"][0]["staff"] is False
    ticket_id = mine["id"]
    with api(server.url, bob_token) as bob:
        assert _error(bob.get(f"/care/tickets/{ticket_id}")) == (404, "ticket_not_found")
        said = bob.post(f"/care/tickets/{ticket_id}/messages", json={"text": "mine now"})
        assert _error(said) == (404, "ticket_not_found")
        assert _error(bob.post(f"/care/tickets/{ticket_id}/close"))[0] == 404
        assert bob.get("/care/tickets").json() == []
        assert _error(bob.get("/care/support/tickets")) == (403, "not_moderator")
    _, operator_token = sign_in(server.url, OPERATOR)
    with api(server.url, operator_token) as staff:
        waiting = staff.get("/care/support/tickets").json()
        assert ticket_id in [t["id"] for t in waiting]
        answered = staff.post(
            f"/care/support/tickets/{ticket_id}/answer",
            json={"text": f"we paid it in full{HIDDEN}"},
        )
        assert answered.status_code == 200, answered.text
        assert answered.json()["messages"][-1]["author"] == OPERATOR.address
    with api(server.url, alice_token) as client:
        seen = client.get(f"/care/tickets/{ticket_id}").json()
        assert seen["status"] == "answered"
        answer = seen["messages"][-1]
        assert answer == {**answer, "staff": True, "body": "we paid it in full"}
        assert "author" not in answer  # the player sees an answer, not who wrote it
        assert client.post(f"/care/tickets/{ticket_id}/close").json()["status"] == "closed"
        late = client.post(f"/care/tickets/{ticket_id}/messages", json={"text": "one more"})
        assert _error(late) == (409, "ticket_closed")


def test_tickets_and_messages_over_the_daily_cap_are_refused_and_not_written(  # type: ignore[no-untyped-def]
    start_server, sessions
) -> None:
    server = _server(start_server)
    carol, token = sign_in(server.url)
    refs = _objects(sessions, carol.address)
    with api(server.url, token) as client:
        long = client.post("/care/tickets", json=_ticket("payout", refs["payout"], "x" * 2001))
        assert long.status_code == 422
        blank = client.post("/care/tickets", json=_ticket("payout", refs["payout"], HIDDEN))
        assert _error(blank) == (422, "invalid_request")  # nothing left once cleaned
        made = [client.post("/care/tickets", json=_ticket("match", refs["match"])) for _ in "1234"]
        assert [m.status_code for m in made] == [201] * 4
        before = _count(sessions, SupportTicket)
        over = client.post("/care/tickets", json=_ticket("match", refs["match"]))
        assert _error(over) == (429, "too_many_tickets")
        assert _count(sessions, SupportTicket) == before
        ticket_id = made[0].json()["id"]
        # Four first messages, then two more reach the cap of six messages a day.
        for n in range(2):
            said = client.post(f"/care/tickets/{ticket_id}/messages", json={"text": f"and {n}"})
            assert said.status_code == 200, said.text
        messages = _count(sessions, SupportMessage)
        spam = client.post(f"/care/tickets/{ticket_id}/messages", json={"text": "again"})
        assert _error(spam) == (429, "too_many_tickets")
        assert _count(sessions, SupportMessage) == messages


def test_twelve_parallel_tickets_cannot_pass_the_daily_cap(  # type: ignore[no-untyped-def]
    start_server, sessions
) -> None:
    server = _server(start_server)
    ivan, token = sign_in(server.url)
    refs = _objects(sessions, ivan.address)

    def one(_: int) -> int:
        with api(server.url, token) as client:
            return client.post("/care/tickets", json=_ticket("payout", refs["payout"])).status_code

    with ThreadPoolExecutor(max_workers=12) as pool:
        codes = list(pool.map(one, range(12)))
    assert sorted(codes) == [201] * 4 + [429] * 8, codes
    with sessions() as session:
        mine = select(func.count()).where(SupportTicket.address == ivan.address)
        assert session.scalar(mine) == 4


def test_a_reporter_sees_the_action_taken_and_nothing_more(  # type: ignore[no-untyped-def]
    start_server, sessions
) -> None:
    server = _server(start_server)
    dave, dave_token = sign_in(server.url)
    erin, erin_token = sign_in(server.url)
    with sessions.begin() as session:
        reports = []
        for _ in range(2):
            complaint = Complaint(
                reporter=dave.address,
                reported=erin.address,
                table_id=_table(session),
                reason="abuse",
                status="open",
            )
            session.add(complaint)
            session.flush()
            reports.append(complaint.id)
    with api(server.url, dave_token) as client:
        first = client.get(f"/care/reports/{reports[0]}")
        assert first.status_code == 200, first.text
        assert first.json()["action"] is None
    _, operator_token = sign_in(server.url, OPERATOR)
    with api(server.url, operator_token) as staff:
        acted = staff.post(
            f"/care/moderation/complaints/{reports[0]}/sanction",
            json={"kind": "suspend", "reason": "secret evidence 42", "hours": 48},
        )
        assert acted.status_code == 201, acted.text
    with sessions.begin() as session:  # the second closed by the operator's note alone
        session.get(Complaint, reports[1]).status = "closed"  # type: ignore[union-attr]
    with api(server.url, dave_token) as client:
        seen = {r["id"]: r for r in client.get("/care/reports").json()}
        assert seen[reports[0]]["status"] == "closed" and seen[reports[0]]["action"] == "suspend"
        assert seen[reports[1]]["action"] == "none"
        assert "secret evidence" not in json.dumps(seen)
        assert "resolution" not in seen[reports[0]]
    with api(server.url, erin_token) as client:  # the reported wallet is not the reporter
        assert _error(client.get(f"/care/reports/{reports[0]}")) == (404, "complaint_not_found")
        assert client.get("/care/reports").json() == []


def test_an_account_with_money_or_a_seat_left_is_not_closed(  # type: ignore[no-untyped-def]
    start_server, sessions
) -> None:
    server = _server(start_server)
    frank, token = sign_in(server.url)
    with api(server.url, token) as client:
        unconfirmed = client.post("/care/closure", json={"confirm": False})
        assert unconfirmed.status_code == 422
        _deposit(sessions, frank.address, 10**18)
        money = client.post("/care/closure", json={"confirm": True})
        assert _error(money) == (409, "withdraw_first")
        assert "withdraw" in money.json()["error"]["message"]
        assert "stake balance" in money.json()["error"]["message"]
        # Staked into a match not yet settled: the balance is zero, the stake is in play.
        with sessions.begin() as session:
            stakes.escrow_stakes(
                session=session,
                match_id="m" + uuid.uuid4().hex[:20],
                seats=[(0, frank.address)],
                stake=10**18,
            )
        in_play = client.post("/care/closure", json={"confirm": True})
        assert _error(in_play) == (409, "withdraw_first")
        assert "in play" in in_play.json()["error"]["message"]
        with sessions.begin() as session:
            table_id = _table(session)
            session.add(TableSeat(table_id=table_id, seat=0, address=frank.address))
            session.add(
                MatchmakingTicket(id=uuid.uuid4().hex, address=frank.address, preset="draw")
            )
        seated = client.post("/care/closure", json={"confirm": True})
        message = seated.json()["error"]["message"]
        assert "a seat at table" in message and "matchmaking ticket" in message
        assert not _closed(sessions, frank.address)
        assert client.get("/care/standing").status_code == 200  # still signed in


def _closed(sessions: sessionmaker[Session], address: str) -> bool:
    with sessions() as session:
        return session.get(ClosedAccount, address) is not None


def test_a_closed_account_loses_its_words_and_its_sign_in_and_keeps_its_ledger(  # type: ignore[no-untyped-def]
    start_server, sessions
) -> None:
    server = _server(start_server)
    gina, token = sign_in(server.url)
    refs = _objects(sessions, gina.address)
    match_id = "m" + uuid.uuid4().hex[:20]
    _deposit(sessions, gina.address, 10**18)
    with sessions.begin() as session:  # the deposit staked and played out: nothing left
        stakes.escrow_stakes(
            session=session, match_id=match_id, seats=[(0, gina.address)], stake=10**18
        )
        _settled(session, match_id)
        session.add(
            Complaint(
                reporter=gina.address,
                reported=Account.create().address,
                table_id=_table(session),
                reason="abuse",
                note="he said my address is 12 Elm St",
                status="open",
            )
        )
    with api(server.url, token) as client:
        named = client.put("/names/me", json={"name": f"Gina{secrets.token_hex(3)}"})
        assert named.status_code == 200, named.text
        opened = client.post("/care/tickets", json=_ticket("rental", refs["rental"], "my words"))
        assert opened.status_code == 201
        entries = _count(sessions, StakeEntry)
        closed = client.post("/care/closure", json={"confirm": True})
        assert closed.status_code == 200, closed.text
        assert closed.json()["address"] == gina.address
        assert _error(client.get("/care/standing")) == (401, "session_revoked")
    with pytest.raises(DewClientError, match="account_closed"):
        sign_in(server.url, gina)
    with sessions() as session:
        assert session.get(ClosedAccount, gina.address) is not None
        assert session.get(DisplayName, gina.address) is None  # the profile's name is gone
        assert session.scalars(
            select(Complaint.note).where(Complaint.reporter == gina.address)
        ).all() == [None]
        bodies = session.scalars(
            select(SupportMessage.body).where(SupportMessage.author == gina.address)
        ).all()
        assert bodies == [None]
        # The ledger is whole: the stake entries, the payout, the result and the rental.
        assert session.scalar(select(func.count()).select_from(StakeEntry)) == entries
        assert session.get(LedgerLeg, int(refs["payout"])) is not None
        assert session.scalar(select(MatchResult).where(MatchResult.match_id == refs["match"]))
        assert session.get(AgreementMirror, int(refs["rental"])) is not None
