"""Hostile callers of the money routes (``/wallet``), against a real server process on SQLite
and PostgreSQL: anonymous callers, bad amounts, malformed bodies, someone else's withdrawal,
replays, and 20 parallel withdrawals of one balance. Every refusal is checked to change
nothing: the stake balance, the withdrawals and the chain outbox are read from the database."""

from __future__ import annotations

import secrets
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from sqlalchemy import func, select, update

from backend.chain.models import ChainRequest
from backend.competitions import service as competitions
from backend.competitions.models import escrow_key
from backend.db import create_db_engine, make_session_factory
from backend.economy import stakes
from backend.economy.models import PlannedSettlement, SettlementStatus, StakeEntry
from tests.fixtures.harness import api, sign_in

DEW = 10**18


@pytest.fixture(scope="module")
def books(db_url):
    """The server's database, to seed deposits and to check what a refusal left."""
    engine = create_db_engine(db_url)
    yield make_session_factory(engine)
    engine.dispose()


@pytest.fixture
def server(start_server):
    return start_server()


def _deposit(books, address: str, amount: int) -> None:
    with books.begin() as session:
        stakes.credit_deposit(
            session=session,
            address=address,
            amount=amount,
            tx_hash="0x" + secrets.token_hex(32),
            log_index=0,
        )


def _books(books, address: str) -> tuple[int, int, int]:
    """Stake balance, withdrawal entries of the wallet, chain requests in the outbox."""
    with books() as session:
        return (
            stakes.stake_balance(session=session, address=address),
            session.scalar(
                select(func.count()).where(
                    StakeEntry.address == address, StakeEntry.kind == "withdrawal"
                )
            )
            or 0,
            session.scalar(select(func.count()).select_from(ChainRequest)) or 0,
        )


def _player(server, books, amount: int) -> tuple[str, httpx.Client]:
    account, token = sign_in(server.url)
    if amount:
        _deposit(books, account.address, amount)
    return account.address, api(server.url, token)


def test_anonymous_and_forged_tokens_are_refused_everywhere(server):
    calls = [
        ("GET", "/wallet", None),
        ("POST", "/wallet/deposit", {"amount": "1"}),
        ("POST", "/wallet/withdrawals", {"amount": "1"}),
        ("GET", "/wallet/withdrawals", None),
        ("GET", "/wallet/withdrawals/w" + "0" * 31, None),
    ]
    for token in (None, "not-a-jwt", "eyJhbGciOiJub25lIn0.eyJzdWIiOiIweDAifQ."):
        with api(server.url, token) as client:
            for method, path, body in calls:
                response = client.request(method, path, json=body)
                assert response.status_code == 401, (method, path, response.text)
                assert response.json()["error"]["code"] in ("not_authenticated", "token_invalid")


BAD_BODIES = [
    {"amount": "0"},
    {"amount": "-1"},
    {"amount": "1.5"},
    {"amount": "1e18"},
    {"amount": ""},
    {"amount": " 1"},
    {"amount": "0x10"},
    {"amount": 1},
    {"amount": 1.5},
    {"amount": None},
    {"amount": ["1"]},
    {"amount": "9" * 41},
    {"amount": str(2**88)},  # above the vault's 2**88-1 per payout
    {},
    {"amount": "1", "address": "0x0000000000000000000000000000000000000001"},
    {"amount": "1", "idempotency_key": ""},
    {"amount": "1", "idempotency_key": "k" * 65},
    {"amount": "1", "idempotency_key": "a b"},
    {"amount": "1", "idempotency_key": 7},
]
MALFORMED = [
    b"{",
    b"not json",
    b'{"amount": "1"',
    b"[]",
    b'"1"',
    b"\xff\xfe",
    b'{"amount": "1"}' * 2,
]


def test_bad_withdrawal_bodies_are_refused_and_change_nothing(server, books):
    address, client = _player(server, books, 10 * DEW)
    before = _books(books, address)
    for body in BAD_BODIES:
        response = client.post("/wallet/withdrawals", json=body)
        assert response.status_code == 422, (body, response.text)
        assert response.json()["error"]["code"] == "invalid_request"
    for raw in MALFORMED:
        response = client.post(
            "/wallet/withdrawals", content=raw, headers={"Content-Type": "application/json"}
        )
        assert response.status_code == 422, (raw, response.text)
    assert _books(books, address) == before == (10 * DEW, 0, before[2])


def test_more_than_the_balance_and_a_wallet_that_never_deposited_are_refused(server, books):
    address, client = _player(server, books, 3 * DEW)
    before = _books(books, address)
    response = client.post("/wallet/withdrawals", json={"amount": str(3 * DEW + 1)})
    assert response.status_code == 409 and response.json()["error"]["code"] == "insufficient_stake"
    assert _books(books, address) == before
    for path in ("/wallet", "/wallet/withdrawals"):
        for limit in ("0", "-1", "501", "1e9", "x", "9" * 30):
            response = client.get(path, params={"limit": limit})
            assert response.status_code == 422, (path, limit, response.text)
    poor, poor_client = _player(server, books, 0)
    response = poor_client.post("/wallet/withdrawals", json={"amount": str(DEW)})
    assert response.status_code == 409 and response.json()["error"]["code"] == "insufficient_stake"
    assert _books(books, poor)[:2] == (0, 0)


def test_dust_huge_and_too_many_withdrawals_are_refused(server, books):
    """Each withdrawal is one of the vault's matches per window: a wallet cannot fill the
    window with dust (below DEW_ECONOMY_WITHDRAWAL_MIN, 1 DEW), ask for more than the vault's
    per-match limit (DEW_ECONOMY_WITHDRAWAL_MAX, 10,000 DEW: it would wait for ever, debited),
    or keep more than DEW_ECONOMY_WITHDRAWALS_OPEN_PER_WALLET (3) in flight."""
    address, client = _player(server, books, 20_000 * DEW)
    before = _books(books, address)
    for amount in ("1", str(DEW - 1), str(10_000 * DEW + 1)):
        response = client.post("/wallet/withdrawals", json={"amount": amount})
        assert response.status_code == 422, (amount, response.text)
        assert response.json()["error"]["code"] == "invalid_request"
    assert _books(books, address) == before
    for n in range(3):  # no worker runs here: all three stay in flight
        response = client.post("/wallet/withdrawals", json={"amount": str(DEW)})
        assert response.status_code == 201, (n, response.text)
    after_three = _books(books, address)
    response = client.post("/wallet/withdrawals", json={"amount": str(DEW)})
    assert response.status_code == 409, response.text
    assert response.json()["error"]["code"] == "too_many_withdrawals"
    assert _books(books, address) == after_three
    # Paid or not, at most DEW_ECONOMY_WITHDRAWALS_PER_WALLET_PER_DAY (10) in 24 hours.
    with books.begin() as session:
        session.execute(
            update(PlannedSettlement)
            .where(PlannedSettlement.economy == "withdrawal")
            .values(status=SettlementStatus.PAID)
        )
    for n in range(7):
        response = client.post("/wallet/withdrawals", json={"amount": str(DEW)})
        assert response.status_code == 201, (n, response.text)
        with books.begin() as session:  # as if the worker paid it at once
            session.execute(
                update(PlannedSettlement)
                .where(PlannedSettlement.match_id == response.json()["id"])
                .values(status=SettlementStatus.PAID)
            )
    response = client.post("/wallet/withdrawals", json={"amount": str(DEW)})
    assert response.status_code == 409, response.text
    assert response.json()["error"]["code"] == "too_many_withdrawals"


def test_escrowed_stake_cannot_be_withdrawn_and_the_page_says_why(server, books):
    address, client = _player(server, books, 5 * DEW)
    name = "Hostile cup " + secrets.token_hex(4)
    with books() as session:  # it commits itself
        cup = competitions.create_tournament(
            session=session, spec=competitions.TournamentSpec(name=name, preset="draw")
        )
    with books.begin() as session:
        stakes.escrow_stakes(  # an entry fee, as registering escrows it
            session=session, match_id=escrow_key(cup.id), seats=[(1, address)], stake=3 * DEW
        )
        stakes.escrow_stakes(
            session=session,
            match_id="hostile-" + secrets.token_hex(8),
            seats=[(0, address)],
            stake=DEW,
        )
        cup_id = cup.id
    response = client.post("/wallet/withdrawals", json={"amount": str(5 * DEW)})
    assert response.status_code == 409
    response = client.post("/wallet/withdrawals", json={"amount": str(DEW + 1)})
    assert response.status_code == 409
    money = client.get("/wallet").json()
    assert (money["stake_balance"], money["escrowed_total"]) == (str(DEW), str(4 * DEW))
    cup_row, match_row = money["escrowed"]
    assert (cup_row["kind"], cup_row["tournament_id"], cup_row["name"]) == (
        "tournament",
        cup_id,
        name,
    )
    assert (cup_row["amount"], match_row["kind"], match_row["amount"]) == (
        str(3 * DEW),
        "table",
        str(DEW),
    )
    assert _books(books, address)[:2] == (DEW, 0)


def test_a_replayed_request_pays_once_and_another_amount_under_its_key_is_refused(server, books):
    address, client = _player(server, books, 10 * DEW)
    body = {"amount": str(4 * DEW), "idempotency_key": "pay-me-once"}
    first = client.post("/wallet/withdrawals", json=body)
    assert first.status_code == 201, first.text
    for _ in range(3):
        again = client.post("/wallet/withdrawals", json=body)
        assert again.status_code == 200 and again.json()["id"] == first.json()["id"]
    changed = client.post("/wallet/withdrawals", json={**body, "amount": str(DEW)})
    assert changed.status_code == 409
    assert changed.json()["error"]["code"] == "idempotency_conflict"
    assert _books(books, address)[:2] == (6 * DEW, 1)
    assert first.json()["state"] == "requested" and first.json()["address"] == address


def test_someone_elses_withdrawal_is_not_found_and_never_listed(server, books):
    _victim, victim = _player(server, books, 2 * DEW)
    made = victim.post("/wallet/withdrawals", json={"amount": str(DEW)}).json()
    thief_address, thief = _player(server, books, 0)
    response = thief.get(f"/wallet/withdrawals/{made['id']}")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "withdrawal_not_found"
    assert thief.get("/wallet/withdrawals").json() == []
    money = thief.get("/wallet").json()
    assert money["address"] == thief_address and money["history"] == []
    # The victim's key reused by the thief is the thief's own (refused: no balance).
    assert thief.post("/wallet/withdrawals", json={"amount": str(DEW)}).status_code == 409
    for bad in ("nope", "w" + "0" * 32, "W" + "a" * 31, "w" + "g" * 31, "..%2f..%2fauth"):
        assert thief.get(f"/wallet/withdrawals/{bad}").status_code in (404, 422)


def test_twenty_parallel_withdrawals_of_one_balance_pay_once(server, books):
    address, client = _player(server, books, 5 * DEW)
    before_requests = _books(books, address)[2]

    def withdraw(i: int) -> int:
        body = {"amount": str(5 * DEW), "idempotency_key": f"race-{i}"}
        return client.post("/wallet/withdrawals", json=body).status_code

    with ThreadPoolExecutor(20) as pool:
        codes = sorted(pool.map(withdraw, range(20)))
    assert codes == [201] + [409] * 19
    assert _books(books, address) == (0, 1, before_requests + 1)
    [only] = client.get("/wallet/withdrawals").json()
    assert only["amount"] == str(5 * DEW)


def test_twenty_parallel_repeats_of_one_key_answer_one_201(server, books):
    """The request whose own insert queued the payout is the 201; every repeat, however it
    raced the first, is a 200 with the same withdrawal (PostgreSQL answered seven 201s)."""
    address, client = _player(server, books, 5 * DEW)
    before_requests = _books(books, address)[2]
    body = {"amount": str(2 * DEW), "idempotency_key": "one-key"}

    def withdraw(_: int) -> httpx.Response:
        return client.post("/wallet/withdrawals", json=body)

    with ThreadPoolExecutor(20) as pool:
        answers = list(pool.map(withdraw, range(20)))
    assert sorted(a.status_code for a in answers) == [200] * 19 + [201], [a.text for a in answers]
    assert len({a.json()["id"] for a in answers}) == 1
    assert _books(books, address) == (3 * DEW, 1, before_requests + 1)


def test_deposit_bad_amounts_are_refused_and_without_a_chain_it_is_unavailable(server, books):
    _address, client = _player(server, books, 0)
    for body in ({"amount": "0"}, {"amount": "-5"}, {"amount": 5}, {"amount": "1.0"}, {}):
        response = client.post("/wallet/deposit", json=body)
        assert response.status_code == 422, (body, response.text)
    response = client.post("/wallet/deposit", json={"amount": "1"})
    assert response.status_code == 503
    assert response.json()["error"]["code"] == "chain_unavailable"
    money = client.get("/wallet").json()
    assert money["dew_balance"] is None and money["chain_error"]
