"""Hostile callers of the creator routes, against a real server process on SQLite and
PostgreSQL: anonymous writes, malformed and reserved codes, squatting and flooding, forged,
replayed, expired and someone else's bind statements, a second bind, self-referral, a wallet
the server links to the creator, and the per-season cap. Each refusal is checked to change
nothing: the creators, bindings and statements are read back from the database."""

from __future__ import annotations

import secrets
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from itertools import pairwise

import pytest
from eth_account import Account
from sqlalchemy import func, select, update

from backend.creators.models import BindStatement, Creator, CreatorBinding
from backend.db import create_db_engine, make_session_factory
from backend.db.base import utcnow
from backend.economy.models import AgreementMirror
from tests.creators.helpers import sign
from tests.tables.harness import api, sign_in


@pytest.fixture(scope="module")
def books(db_url):
    engine = create_db_engine(db_url)
    yield make_session_factory(engine)
    engine.dispose()


@pytest.fixture(scope="module")
def server(db_url):
    from tests.tables.harness import ServerProcess

    with ServerProcess(db_url) as process:
        yield process


def _counts(books) -> tuple[int, int, int]:
    with books() as session:
        return tuple(  # type: ignore[return-value]
            session.scalar(select(func.count()).select_from(m)) or 0
            for m in (Creator, CreatorBinding, BindStatement)
        )


def _code() -> str:
    return "C" + secrets.token_hex(4).upper()


def _creator(server) -> tuple[object, str, str]:
    account, token = sign_in(server.url)
    code = _code()
    with api(server.url, token) as c:
        assert c.post("/creators", json={"code": code.lower()}).status_code == 201
    return account, token, code


def _statement(server, token: str, code: str):
    with api(server.url, token) as c:
        return c.post("/creators/bind/statement", json={"code": code})


def test_anonymous_writes_are_refused(server, books):
    before = _counts(books)
    with api(server.url) as c:
        assert c.post("/creators", json={"code": "ANONCODE"}).status_code == 401
        assert c.post("/creators/bind/statement", json={"code": "ANONCODE"}).status_code == 401
        assert (
            c.post("/creators/bind", json={"nonce": "0" * 32, "signature": "0x" + "1" * 130})
        ).status_code == 401
        assert c.get("/creators/me/dashboard").status_code == 401
    assert _counts(books) == before


@pytest.mark.parametrize(
    ("code", "status"),
    [
        ("abc", 422),  # too short
        ("A" * 17, 422),  # too long
        ("bad-code", 422),  # outside the charset
        ("ADMIN", 422),  # reserved
        ("treasury", 422),  # reserved, any case
        ("DEWPROMO", 422),  # the platform's prefix
        ("ÄÖÜÄÖÜ", 422),  # not ASCII
    ],
)
def test_bad_and_reserved_codes_are_refused(server, books, code, status):
    _, token = sign_in(server.url)
    before = _counts(books)
    with api(server.url, token) as c:
        response = c.post("/creators", json={"code": code})
    assert response.status_code == status, response.text
    assert _counts(books) == before


def test_squatting_and_flooding_codes_is_refused(server, books):
    _, token, code = _creator(server)
    before = _counts(books)
    with api(server.url, token) as c:
        again = c.post("/creators", json={"code": _code()})  # a second code for one wallet
    assert again.status_code == 409 and again.json()["error"]["code"] == "already_creator"
    _, other = sign_in(server.url)
    with api(server.url, other) as c:
        taken = c.post("/creators", json={"code": code.lower()})  # the same code, any case
    assert taken.status_code == 409 and taken.json()["error"]["code"] == "creator_code_taken"
    assert _counts(books) == before


def test_forged_and_foreign_signatures_bind_nothing(server, books):
    _, _, code = _creator(server)
    player, token = sign_in(server.url)
    statement = _statement(server, token, code).json()
    before = _counts(books)
    forger = Account.create()
    with api(server.url, token) as c:
        forged = c.post(
            "/creators/bind",
            json={"nonce": statement["nonce"], "signature": sign(forger, statement["message"])},
        )
        edited = c.post(
            "/creators/bind",
            json={
                "nonce": statement["nonce"],
                "signature": sign(player, statement["message"].replace(code, "OTHERCODE")),
            },
        )
        garbage = c.post(
            "/creators/bind", json={"nonce": statement["nonce"], "signature": "0x" + "ff" * 65}
        )
    for response in (forged, edited, garbage):
        assert response.status_code == 403, response.text
        assert response.json()["error"]["code"] == "bad_bind_statement"
    # Another wallet presenting the player's own valid statement and signature.
    _, thief = sign_in(server.url)
    with api(server.url, thief) as c:
        stolen = c.post(
            "/creators/bind",
            json={"nonce": statement["nonce"], "signature": sign(player, statement["message"])},
        )
    assert stolen.status_code == 403
    assert _counts(books) == before


def test_a_replayed_statement_and_a_second_bind_are_refused(server, books):
    _, _, code = _creator(server)
    _, _, other_code = _creator(server)
    player, token = sign_in(server.url)
    statement = _statement(server, token, code).json()
    body = {"nonce": statement["nonce"], "signature": sign(player, statement["message"])}
    with api(server.url, token) as c:
        assert c.post("/creators/bind", json=body).status_code == 201
        before = _counts(books)
        replay = c.post("/creators/bind", json=body)
        assert replay.status_code == 403
        assert "used" in replay.json()["error"]["message"]
        second = c.post("/creators/bind/statement", json={"code": other_code})
        assert second.status_code == 409 and second.json()["error"]["code"] == "already_bound"
    assert _counts(books) == before
    with books() as session:
        assert session.get(CreatorBinding, player.address).code == code


def test_an_expired_statement_binds_nothing(server, books):
    _, _, code = _creator(server)
    player, token = sign_in(server.url)
    statement = _statement(server, token, code).json()
    with books.begin() as session:
        session.execute(
            update(BindStatement)
            .where(BindStatement.nonce == statement["nonce"])
            .values(expires_at=utcnow() - timedelta(seconds=1))
        )
    before = _counts(books)
    with api(server.url, token) as c:
        response = c.post(
            "/creators/bind",
            json={"nonce": statement["nonce"], "signature": sign(player, statement["message"])},
        )
    assert response.status_code == 403 and "expired" in response.json()["error"]["message"]
    assert _counts(books) == before


def test_self_referral_a_linked_wallet_and_a_cycle_are_refused(server, books):
    creator, creator_token, code = _creator(server)
    before = _counts(books)
    own = _statement(server, creator_token, code)
    assert own.status_code == 403 and own.json()["error"]["code"] == "bind_refused"
    # A wallet that rented the creator's avatar: the server links the two.
    scholar, scholar_token = sign_in(server.url)
    with books.begin() as session:
        session.add(
            AgreementMirror(
                id=secrets.randbelow(2**40) + 1,
                avatar_id=1,
                owner=creator.address,
                scholar=scholar.address,
                terms="fixed_rent",
                duration_s=3600,
                dust_to="scholar",
                status="ended",
                offered_block=1,
                updated_block=1,
            )
        )
    linked = _statement(server, scholar_token, code)
    assert linked.status_code == 403 and "agreement" in linked.json()["error"]["message"]
    assert _counts(books) == before
    # A creator bound to a player cannot have that player bind back (farming in a ring).
    _player, player_token = sign_in(server.url)
    with api(server.url, player_token) as c:
        player_code = _code()
        assert c.post("/creators", json={"code": player_code}).status_code == 201
    upstream = _statement(server, creator_token, player_code).json()
    with api(server.url, creator_token) as c:
        body = {"nonce": upstream["nonce"], "signature": sign(creator, upstream["message"])}
        assert c.post("/creators/bind", json=body).status_code == 201
    ring = _statement(server, player_token, code)
    assert ring.status_code == 403 and "cycle" in ring.json()["error"]["message"]


def _bind(server, account, token: str, statement: dict):
    with api(server.url, token) as c:
        body = {"nonce": statement["nonce"], "signature": sign(account, statement["message"])}
        return c.post("/creators/bind", json=body)


@pytest.fixture
def ring_server(db_url):
    """A server of its own: the rings' many sign-ins and binds from one address would spend
    the module server's per-address budget (60 a minute) before the tests after them."""
    from tests.tables.harness import ServerProcess

    with ServerProcess(db_url) as process:
        yield process


def test_rings_of_any_length_are_refused_even_when_raced(ring_server, books):
    """Cycles of three or more wallets: walked up the creator's chain of creators, and
    every bind serialized, so binds racing to close a ring together cannot all pass."""
    server = ring_server
    # A chain 0 -> 1 -> 2 -> 3, bound one by one; 3 binding to 0 would close a ring of four.
    four = [_creator(server) for _ in range(4)]
    for (account, token, _), (_, _, code) in pairwise(four):
        assert (
            _bind(server, account, token, _statement(server, token, code).json()).status_code == 201
        )
    before = _counts(books)
    ring = _statement(server, four[3][1], four[0][2])
    assert ring.status_code == 403 and "cycle" in ring.json()["error"]["message"], ring.text
    assert _counts(books) == before
    # Three wallets, each with a statement for the next one's code issued before any bind
    # (each one alone is fine), then all three binds at once: one is refused.
    three = [_creator(server) for _ in range(3)]
    statements = [
        _statement(server, token, three[(i + 1) % 3][2]).json()
        for i, (_, token, _) in enumerate(three)
    ]
    with ThreadPoolExecutor(3) as pool:
        answers = list(
            pool.map(lambda i: _bind(server, three[i][0], three[i][1], statements[i]), range(3))
        )
    assert sorted(a.status_code for a in answers) == [201, 201, 403], [a.text for a in answers]
    [refused] = [a for a in answers if a.status_code == 403]
    assert refused.json()["error"]["code"] == "bind_refused" and "cycle" in refused.text
    with books() as session:
        players = [account.address for account, _, _ in three]
        bound = session.scalars(
            select(CreatorBinding).where(CreatorBinding.player.in_(players))
        ).all()
    assert len(bound) == 2


def test_statement_flooding_is_bounded(server, books):
    _, _, code = _creator(server)
    _, token = sign_in(server.url)
    for _ in range(5):
        assert _statement(server, token, code).status_code == 201
    before = _counts(books)
    flood = _statement(server, token, code)
    assert flood.status_code == 429 and flood.json()["error"]["code"] == "too_many_statements"
    assert _counts(books) == before


@pytest.mark.parametrize(
    "body",
    [
        {"nonce": "x" * 32, "signature": "0x" + "1" * 130},
        {"nonce": "0" * 31, "signature": "0x" + "1" * 130},
        {"nonce": "0" * 32, "signature": "0x" + "1" * 10},
        {"nonce": "0" * 32, "signature": "0x" + "1" * 130, "extra": "y" * 10_000},
        {},
    ],
)
def test_malformed_bind_bodies_change_nothing(server, books, body):
    _, token = sign_in(server.url)
    before = _counts(books)
    with api(server.url, token) as c:
        response = c.post("/creators/bind", json=body)
    assert response.status_code in (403, 422), response.text
    assert _counts(books) == before


def test_public_reads_refuse_bad_codes(server):
    with api(server.url) as c:
        assert c.get("/creators/" + "A" * 40).status_code == 422
        assert c.get("/creators/NOSUCHCODE").status_code == 404
        assert c.get("/creators/bad!code").status_code in (404, 422)


def test_a_farming_creator_earns_at_most_its_season_cap(books):
    """A creator binding many wallets it controls (the server cannot link fresh ones) and
    staking them against each other earns at most the cap per season; the rest of every fee
    goes to the treasury, and the legs still sum to each fee."""
    from datetime import UTC, datetime

    from backend.creators.routing import FeeRouting
    from backend.economy.fees.schedule import FeeSchedule
    from backend.economy.models import LedgerLeg
    from backend.economy.policy import default_policies
    from backend.economy.settlement import plan_settlement
    from backend.tables.hosting import center_of_table
    from tests.creators.helpers import bind
    from tests.creators.test_fee_legs import STAKE, TREASURY, _staked_match

    creator = Account.create()
    with books() as session:
        from backend.creators import service

        code = service.register(session=session, address=creator.address, code=_code()).code
    cap = 3 * 10**15
    schedule = FeeSchedule(creator_bps=5_000, creator_cap_per_season=cap)
    farm = [Account.create() for _ in range(4)]
    for wallet in farm:
        bind(books, wallet, code, schedule)
    earned, fees = 0, 0
    for i in range(3):
        match = _staked_match(books, farm, i)
        with books.begin() as session:
            planned = plan_settlement(
                session=session,
                match=match,
                finished_at=datetime.now(UTC),
                policies=default_policies(fee_bps=500, emission_per_seat=0),
                treasury=TREASURY,
                chain_id=31337,
                schedule=schedule,
                recipients=FeeRouting(center_of_table=center_of_table),
            )
            fee = int(planned.fee)
            legs = session.scalars(select(LedgerLeg).where(LedgerLeg.match_id == match.match_id))
            by_party: dict[str, int] = {}
            for leg in legs:
                by_party[leg.party] = by_party.get(leg.party, 0) + int(leg.amount)
        assert fee == 4 * STAKE * 500 // 10_000
        assert by_party.get("fee_creator", 0) + by_party["treasury"] == fee
        earned += by_party.get("fee_creator", 0)
        fees += fee
    assert earned == cap < fees * schedule.creator_bps // 10_000
