"""VIP pass requests: ``VIPPass.issue``/``revoke`` encoded by the contracts' ABI, one per
transaction, sent by the real engine on anvil, their results read from the receipt."""

from __future__ import annotations

import pytest
from eth_account import Account
from sqlalchemy import func, select

from backend.chain.calls import ContractCalls
from backend.chain.exceptions import ChainError, ChainValueError, IdempotencyConflict
from backend.chain.models import ChainRequest, ChainTx, RequestKind, RequestStatus
from backend.chain.outbox import request_vip_issue, request_vip_revoke
from tests.chain.conftest import pump_until

WEEK = 7 * 24 * 3600


def _status(sessions, request_id: int) -> ChainRequest:
    with sessions() as session:
        request = session.get(ChainRequest, request_id)
        assert request is not None
        session.expunge(request)
        return request


def test_issue_and_revoke_encode_the_contracts_own_calls(deployment):
    calls = ContractCalls(deployment.contracts)
    vip = deployment.contracts.vip
    holder = Account.create().address
    issue = calls.encode(RequestKind.VIP_ISSUE, [{"holder": holder.lower(), "expires_at": 99}])
    function, args = vip.decode_function_input(issue)
    assert function.fn_name == "issue"
    assert args == {"holder": holder, "expiresAt_": 99}
    revoke = calls.encode(RequestKind.VIP_REVOKE, [{"holder": holder}])
    function, args = vip.decode_function_input(revoke)
    assert (function.fn_name, args) == ("revoke", {"holder": holder})
    assert calls.to_address(RequestKind.VIP_ISSUE) == vip.address
    assert calls.to_address(RequestKind.VIP_REVOKE) == vip.address
    with pytest.raises(ChainError, match="one request"):
        calls.encode(RequestKind.VIP_REVOKE, [{"holder": holder}, {"holder": holder}])


def test_a_receipt_without_the_pass_event_is_an_error(deployment):
    calls = ContractCalls(deployment.contracts)
    holder = Account.create().address
    other = Account.create().address
    receipt = {"transactionHash": "0xab", "logs": []}
    with pytest.raises(ChainError, match="lacks"):
        calls.effects(RequestKind.VIP_REVOKE, receipt, [{"holder": holder}])
    # The right event for another holder is not this request's.
    from backend.chain.calls import PASS_REVOKED

    log = {
        "address": deployment.contracts.vip.address,
        "topics": [PASS_REVOKED, "0x" + "00" * 12 + other[2:].lower()],
        "data": "0x",
    }
    with pytest.raises(ChainError, match="lacks"):
        calls.effects(RequestKind.VIP_REVOKE, {**receipt, "logs": [log]}, [{"holder": holder}])
    mine = {**log, "topics": [PASS_REVOKED, "0x" + "00" * 12 + holder[2:].lower()]}
    assert calls.effects(
        RequestKind.VIP_REVOKE, {**receipt, "logs": [mine]}, [{"holder": holder}]
    ) == [{"revoked": True}]


def test_bad_vip_input_is_refused_and_writes_nothing(session_factory):
    holder = Account.create().address
    with session_factory.begin() as session:
        for bad, message in (
            ({"holder": "0x1234"}, "address"),
            ({"expires_at": 0}, "1..2"),
            ({"expires_at": 2**64}, "1..2"),
            ({"expires_at": "99"}, "unix seconds"),
            ({"expires_at": True}, "unix seconds"),
        ):
            kwargs = {"holder": holder, "expires_at": 10**10, "idempotency_key": "vip-bad"} | bad
            with pytest.raises(ChainValueError, match=message):
                request_vip_issue(session=session, **kwargs)
        with pytest.raises(ChainValueError, match="address"):
            request_vip_revoke(session=session, holder="nobody", idempotency_key="vip-bad")
        assert session.scalar(select(func.count()).select_from(ChainRequest)) == 0


def test_same_key_same_pass_is_one_request_and_another_body_is_refused(session_factory):
    holder = Account.create().address
    with session_factory.begin() as session:
        first = request_vip_issue(
            session=session, holder=holder, expires_at=10**10, idempotency_key="vip-k"
        ).id
    with session_factory.begin() as session:
        again = request_vip_issue(
            session=session, holder=holder.lower(), expires_at=10**10, idempotency_key="vip-k"
        )
        assert again.id == first
        with pytest.raises(IdempotencyConflict):
            request_vip_issue(
                session=session, holder=holder, expires_at=10**10 + 1, idempotency_key="vip-k"
            )
    with session_factory.begin() as session, pytest.raises(IdempotencyConflict):
        request_vip_revoke(session=session, holder=holder, idempotency_key="vip-k")


def test_engine_issues_then_revokes_a_pass_each_alone(deployment, make_engine, fresh_db):
    engine = make_engine(fresh_db)
    vip = deployment.contracts.vip.functions
    w3 = deployment.contracts.vip.w3
    alice, bob = Account.create().address, Account.create().address
    expires = w3.eth.get_block("latest")["timestamp"] + WEEK
    with fresh_db.begin() as session:
        ids = [
            request_vip_issue(
                session=session, holder=h, expires_at=expires, idempotency_key=f"vip-{h}"
            ).id
            for h in (alice, bob)
        ]
    pump_until(
        engine,
        lambda: all(_status(fresh_db, i).status == RequestStatus.CONFIRMED for i in ids),
        timeout_s=60,
        what="both passes issued",
    )
    for request_id, holder in zip(ids, (alice, bob), strict=True):
        assert _status(fresh_db, request_id).result == {"expires_at": expires}
        assert vip.isValid(holder).call()
        assert vip.expiresAt(holder).call() == expires
    with fresh_db() as session:
        # Never packed: one transaction per pass.
        txs = session.scalar(
            select(func.count()).select_from(ChainTx).where(ChainTx.kind == "vip_issue")
        )
        assert txs == 2
    with fresh_db.begin() as session:
        revoke = request_vip_revoke(session=session, holder=alice, idempotency_key="vip-r").id
        # Revoking a holder without a pass would revert: it fails before sending.
        nobody = Account.create().address
        refused = request_vip_revoke(session=session, holder=nobody, idempotency_key="vip-n").id
    pump_until(
        engine,
        lambda: (
            _status(fresh_db, revoke).status == RequestStatus.CONFIRMED
            and _status(fresh_db, refused).status == RequestStatus.FAILED
        ),
        timeout_s=60,
        what="the revoke confirmed and the refused one failed",
    )
    assert _status(fresh_db, revoke).result == {"revoked": True}
    assert "VIPPassNotHeld" in (_status(fresh_db, refused).failure_reason or "")
    assert not vip.isValid(alice).call()
    assert vip.expiresAt(alice).call() == 0
    assert vip.isValid(bob).call()
