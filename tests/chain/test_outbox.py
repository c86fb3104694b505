"""The outbox: idempotent requests written in the caller's transaction, on both databases."""

from __future__ import annotations

import threading

import pytest
from sqlalchemy import func, select

from backend.chain.exceptions import ChainValueError, IdempotencyConflict
from backend.chain.models import ChainRequest, RequestStatus
from backend.chain.outbox import Payout, request_mint, request_settlement

ALICE = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
BOB = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC"


def _count(session_factory) -> int:
    with session_factory() as session:
        return session.scalar(select(func.count()).select_from(ChainRequest))


def _match(n: int) -> bytes:
    return n.to_bytes(32, "big")


def test_same_key_returns_the_same_request(session_factory):
    with session_factory.begin() as session:
        first = request_settlement(
            session=session,
            match_id=_match(101),
            result_hash=b"\x11" * 32,
            payouts=[Payout(amount=5, account=ALICE), Payout(amount=7, avatar_id=3)],
        )
        first_id = first.id
    with session_factory.begin() as session:
        again = request_settlement(
            session=session,
            match_id=_match(101),
            result_hash=b"\x11" * 32,
            payouts=[Payout(amount=5, account=ALICE.lower()), Payout(amount=7, avatar_id=3)],
        )
        assert again.id == first_id
        assert again.status == RequestStatus.QUEUED
        assert again.payload["payouts"][0] == {"account": ALICE, "amount": "5"}


def test_same_key_with_other_content_is_refused_and_writes_nothing(session_factory):
    with session_factory.begin() as session:
        request_mint(session=session, recipients=[ALICE], idempotency_key="shop:order-1")
    before = _count(session_factory)
    with pytest.raises(IdempotencyConflict, match="shop:order-1"), session_factory.begin() as s:
        request_mint(session=s, recipients=[BOB], idempotency_key="shop:order-1")
    assert _count(session_factory) == before


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"match_id": b"\x01" * 31}, "32 bytes"),
        ({"match_id": "0xzz"}, "hex"),
        ({"payouts": []}, "no payouts"),
        ({"payouts": [Payout(amount=0, account=ALICE)]}, "positive"),
        ({"payouts": [Payout(amount=1)]}, "exactly one"),
        ({"payouts": [Payout(amount=1, account="0x1234")]}, "not an address"),
        ({"payouts": [Payout(amount=1, avatar_id=-4)]}, "avatar id"),
    ],
)
def test_bad_settlement_input_is_refused_and_writes_nothing(session_factory, kwargs, message):
    args = {
        "match_id": _match(202),
        "result_hash": b"\x22" * 32,
        "payouts": [Payout(amount=1, account=ALICE)],
        **kwargs,
    }
    before = _count(session_factory)
    with pytest.raises(ChainValueError, match=message), session_factory.begin() as session:
        request_settlement(session=session, **args)
    assert _count(session_factory) == before


def test_bad_mint_input_is_refused(session_factory):
    with pytest.raises(ChainValueError, match="not an address"), session_factory.begin() as s:
        request_mint(session=s, recipients=["bob"], idempotency_key="m:bad")
    with pytest.raises(ChainValueError, match="at least one"), session_factory.begin() as s:
        request_mint(session=s, recipients=[], idempotency_key="m:empty")


def test_request_is_dropped_with_the_callers_rollback(session_factory):
    before = _count(session_factory)
    with session_factory() as session:
        request_settlement(
            session=session,
            match_id=_match(303),
            result_hash=b"\x33" * 32,
            payouts=[Payout(amount=1, account=BOB)],
        )
        session.rollback()
    assert _count(session_factory) == before


def test_concurrent_identical_requests_create_one_row(session_factory):
    """Eight transactions race to ask for the same settlement; all get the one request."""
    barrier = threading.Barrier(8)
    ids: list[int] = []
    errors: list[BaseException] = []

    def ask() -> None:
        try:
            with session_factory.begin() as session:
                barrier.wait(timeout=10)
                request = request_settlement(
                    session=session,
                    match_id=_match(404),
                    result_hash=b"\x44" * 32,
                    payouts=[Payout(amount=9, account=ALICE)],
                )
                ids.append(request.id)
        except BaseException as exc:  # surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert not errors, errors
    assert len(ids) == 8 and len(set(ids)) == 1
    with session_factory() as session:
        key = f"settle:31337:0x{_match(404).hex()}"
        rows = session.scalars(select(ChainRequest).where(ChainRequest.idempotency_key == key))
        assert [r.id for r in rows] == ids[:1]


def test_bulk_settlements_are_idempotent_per_key(session_factory):
    from backend.chain.outbox import Settlement, request_settlements

    with session_factory.begin() as session:
        (first,) = request_settlements(
            session=session,
            settlements=[Settlement(_match(501), b"\x51" * 32, [Payout(amount=1, account=BOB)])],
        )
        first_id = first.id
    with session_factory.begin() as session:
        again, fresh, dup = request_settlements(
            session=session,
            settlements=[
                Settlement(_match(501), b"\x51" * 32, [Payout(amount=1, account=BOB)]),
                Settlement(_match(502), b"\x52" * 32, [Payout(amount=2, avatar_id=9)]),
                Settlement(_match(502), b"\x52" * 32, [Payout(amount=2, avatar_id=9)]),
            ],
        )
    assert again.id == first_id
    assert fresh.id == dup.id != first_id
    assert fresh.payload["packed"].startswith("0x" + _match(502).hex())
