"""A guest session (no wallet) against a real server process, on SQLite and PostgreSQL.

A guest reaches free play only: every door of earning, staked or ranked play refuses its
token and changes nothing, while free practice stays open. Guest sessions are handed out
under the sign-in budget of the caller's address, so a script cannot mint guests without end.
"""

from __future__ import annotations

import secrets
from datetime import timedelta

from eth_account import Account

from backend.competitions import service as competitions
from backend.competitions.models import Entrant
from backend.db import create_db_engine, make_session_factory
from backend.db.base import utcnow
from backend.kit.guests import is_guest_address
from backend.tables.models import MatchmakingTicket as Ticket
from backend.tables.models import MatchResult, Table
from tests.accounts.signing import sign
from tests.fixtures.harness import api
from tests.hostile.conftest import StartServer
from tests.hostile.test_http import assert_rate_limited, client_from, flood_within_one_minute
from tests.hostile.test_tables import DEW_WEI, _count, _error

EARNING = {"preset": "draw", "seats": 2, "kind": "practice", "earning": True}
STAKED = {"preset": "draw", "seats": 2, "kind": "human", "earning": True, "stake": DEW_WEI}
FREE = {"preset": "draw", "seats": 2, "kind": "practice", "bot_level": "easy"}


def _guest(base_url: str) -> dict[str, str]:
    with api(base_url) as anonymous:
        made = anonymous.post("/auth/guest")
    assert made.status_code == 201, made.text
    tokens = made.json()
    assert is_guest_address(tokens["address"])
    return tokens


def _free_tournament(db_url: str) -> int:
    engine = create_db_engine(db_url)
    try:
        with make_session_factory(engine)() as session:
            made = competitions.create_tournament(
                session=session,
                spec=competitions.TournamentSpec(
                    name=f"guests {secrets.token_hex(4)}",
                    preset="draw",
                    entry_fee=0,
                    min_entrants=2,
                    max_entrants=4,
                    starts_at=utcnow() + timedelta(hours=1),
                ),
                created_by="operator",
            )
            return made.id
    finally:
        engine.dispose()


def test_a_guest_token_is_refused_at_every_earning_staked_and_ranked_door(
    start_server: StartServer, db_url: str
) -> None:
    server = start_server()
    guest = _guest(server.url)
    address = guest["address"]
    tournament_id = _free_tournament(db_url)
    with api(server.url, guest["access_token"]) as client:
        refusals = [
            client.post("/tables", json=EARNING),
            client.post("/tables", json=STAKED),
            client.post("/matchmaking", json={"preset": "draw", "earning": True}),
            client.post("/matchmaking", json={"preset": "draw", "stake": DEW_WEI}),
            client.post(f"/competitions/{tournament_id}/register", json={}),
        ]
        for refused in refusals:
            assert _error(refused) == (403, "guest_not_allowed"), refused.text
        # Nothing changed: no table, no ticket, no entry under the guest's address.
        assert _count(db_url, Table, Table.creator == address) == 0
        assert _count(db_url, Ticket, Ticket.address == address) == 0
        assert _count(db_url, Entrant, Entrant.address == address) == 0
        # Free play stays open to the same token.
        free = client.post("/tables", json=FREE)
        assert free.status_code == 201, free.text
        assert _count(db_url, Table, Table.creator == address) == 1


def test_a_wallet_signing_in_from_a_guests_browser_takes_its_history(
    start_server: StartServer, db_url: str
) -> None:
    server = start_server()
    guest = _guest(server.url)
    with api(server.url, guest["access_token"]) as client:
        table_id = client.post("/tables", json=FREE).json()["id"]
    engine = create_db_engine(db_url)
    try:
        with make_session_factory(engine)() as session, session.begin():
            # The guest's finished hand, as the hub records it (the result row is the history).
            match_id = session.get(Table, table_id).match_id  # type: ignore[union-attr]
            session.add(
                MatchResult(
                    match_id=match_id,
                    seat=0,
                    address=guest["address"],
                    is_bot=False,
                    placement=1,
                    points=10,
                    won=True,
                    finished_at=utcnow(),
                )
            )
    finally:
        engine.dispose()
    wallet = Account.create()
    with api(server.url) as anonymous:
        grant = anonymous.post("/auth/nonce", json={"address": wallet.address}).json()
        message = grant["message"]
        signed = anonymous.post(
            "/auth/signin",
            json={
                "message": message,
                "signature": sign(wallet, message),
                "guest_token": guest["access_token"],
            },
        )
        assert signed.status_code == 200, signed.text
        mine = anonymous.get("/results", params={"address": wallet.address}).json()
        assert [r["points"] for r in mine] == [10]
        assert anonymous.get("/results", params={"address": guest["address"]}).json() == []
    # The guest's session is over: its token opens nothing any more.
    with api(server.url, guest["access_token"]) as old:
        assert old.post("/tables", json=FREE).status_code == 401


def test_guest_sessions_are_cut_at_the_sign_in_budget_of_an_address(
    start_server: StartServer,
) -> None:
    server = start_server(extra_env={"DEW_HTTP_SIGNIN_PER_IP": "5/minute;50/hour"})
    flood_within_one_minute()
    with client_from(server, "127.0.0.4") as flooder:
        answers = [flooder.post("/auth/guest") for _ in range(12)]
    statuses = [a.status_code for a in answers]
    assert statuses[:5] == [201] * 5
    assert statuses[5:] == [429] * 7
    assert_rate_limited(answers[-1])
    # Another address is not affected.
    with client_from(server, "127.0.0.5") as other:
        assert other.post("/auth/guest").status_code == 201
