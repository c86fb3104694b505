"""The vault's outflow limits, per-match maximum and pause, seen through the engine on anvil.

A settlement the vault refuses for now is WAITING (with the contract's error as its reason),
never FAILED: it is paid, exactly once, after the admin raises the limit, the window resets
or the admin unpauses. Every outcome is read from the chain (balances, MatchSettled events).
"""

from __future__ import annotations

import secrets

import pytest
from eth_account import Account
from sqlalchemy import select

from backend.chain.deploy import MAX_SETTLE_MATCHES, MAX_SETTLE_PER_MATCH, MAX_SETTLE_PERIOD_LIMIT
from backend.chain.models import ChainRequest, ChainTx, RequestStatus, TxStatus
from backend.chain.outbox import Payout, request_settlement
from backend.chain.reconcile import reconcile
from backend.chain.sender import is_wait_reason
from tests.chain.conftest import pump_until, settled_events, statuses
from tests.chain.test_engine import _admin, manual_mining  # noqa: F401

DEW = 10**18
DAY = 86_400


@pytest.fixture
def limits(deployment, chain_snapshot):
    """Set the vault's limits for one test; the snapshot puts the chain back afterwards."""
    settlement = deployment.contracts.settlement

    def set_limits(
        period_limit: int,
        max_per_match: int,
        period_s: int = DAY,
        max_matches: int = MAX_SETTLE_MATCHES,
    ) -> None:
        _admin(
            deployment,
            settlement.functions.setLimits(period_limit, max_per_match, period_s, max_matches),
        )

    return set_limits


def _queue(sessions, player: str, amounts: list[int]) -> list[str]:
    """One settlement per amount, each one payout to ``player``; returns the match ids."""
    ids = []
    with sessions.begin() as session:
        for amount in amounts:
            match_id = secrets.token_bytes(32)
            request_settlement(
                session=session,
                match_id=match_id,
                result_hash=secrets.token_bytes(32),
                payouts=[Payout(amount=amount, account=player)],
            )
            ids.append("0x" + match_id.hex())
    return ids


def _requests(sessions) -> list[ChainRequest]:
    with sessions() as session:
        return list(session.scalars(select(ChainRequest).order_by(ChainRequest.id)))


def _paid_once(deployment, engine, ids: list[str]) -> bool:
    events = settled_events(engine.rpc, deployment.contracts.settlement.address)
    return all(events.get(i) == 1 for i in ids)


def _balance(deployment, who: str) -> int:
    return deployment.contracts.token.functions.balanceOf(who).call()


def test_is_wait_reason_names_only_the_vaults_temporary_refusals() -> None:
    assert is_wait_reason("SettlementOutflowLimit(spent=1, periodLimit=0, resetsAt=5)")
    assert is_wait_reason("SettlementMatchOverLimit(matchId=0x01, paid=2, maxPerMatch=1)")
    assert is_wait_reason("SettlementPaused()")
    assert is_wait_reason("SettlementMatchLimit(matches=3, maxMatches=2, resetsAt=5)")
    assert not is_wait_reason("ERC20InsufficientBalance(sender=0x, balance=0, needed=1)")
    assert not is_wait_reason("AccessControlUnauthorizedAccount(account=0x, neededRole=0x)")
    assert not is_wait_reason(None)


def test_over_the_window_limit_waits_then_is_paid_once_when_the_admin_raises_it(
    deployment, make_engine, fresh_db, limits
) -> None:
    limits(5 * DEW, 3 * DEW)
    engine = make_engine(fresh_db, limit_retry_s=0.3)
    player = Account.create().address
    ids = _queue(fresh_db, player, [2 * DEW] * 4)
    # Two fit the 5-DEW window; the other two wait, unpaid, with the contract's reason.
    pump_until(
        engine,
        lambda: statuses(fresh_db) == {"confirmed": 2, "waiting": 2},
        timeout_s=40,
        what="two paid, two waiting",
    )
    waiting = [r for r in _requests(fresh_db) if r.status == RequestStatus.WAITING]
    assert all(r.failure_reason.startswith("waiting: SettlementOutflowLimit(") for r in waiting)
    assert _balance(deployment, player) == 4 * DEW
    settlement = deployment.contracts.settlement
    for request in waiting:
        assert settlement.functions.isSettled(request.payload["match_id"]).call() is False
    # Still waiting after more rounds: the limit holds, and nothing failed or was lost.
    for _ in range(5):
        engine.step()
    assert statuses(fresh_db) == {"confirmed": 2, "waiting": 2}
    assert _balance(deployment, player) == 4 * DEW

    limits(100 * DEW, 3 * DEW)
    pump_until(
        engine,
        lambda: statuses(fresh_db) == {"confirmed": 4},
        timeout_s=40,
        what="waiting settlements paid",
    )
    pump_until(engine, lambda: _paid_once(deployment, engine, ids), timeout_s=10, what="events")
    for _ in range(5):  # more rounds pay nothing more
        engine.step()
    assert _balance(deployment, player) == 8 * DEW
    assert _paid_once(deployment, engine, ids)
    assert all(r.failure_reason is None for r in _requests(fresh_db))
    report = reconcile(
        session_factory=fresh_db,
        rpc=engine.rpc,
        calls=engine.calls,
        chain_id=engine.chain_id,
    )
    assert report.differences == []


def test_over_the_window_match_count_waits_then_is_paid_once_when_the_admin_raises_it(
    deployment, make_engine, fresh_db, limits
) -> None:
    """Issue 18 (N2): the window also counts matches; past the count, settlements wait."""
    limits(100 * DEW, 3 * DEW, DAY, 2)
    engine = make_engine(fresh_db, limit_retry_s=0.3)
    player = Account.create().address
    ids = _queue(fresh_db, player, [DEW] * 4)
    pump_until(
        engine,
        lambda: statuses(fresh_db) == {"confirmed": 2, "waiting": 2},
        timeout_s=40,
        what="two paid, two waiting",
    )
    waiting = [r for r in _requests(fresh_db) if r.status == RequestStatus.WAITING]
    assert all(r.failure_reason.startswith("waiting: SettlementMatchLimit(") for r in waiting)
    assert _balance(deployment, player) == 2 * DEW
    limits(100 * DEW, 3 * DEW, DAY, 10)
    pump_until(
        engine,
        lambda: statuses(fresh_db) == {"confirmed": 4},
        timeout_s=40,
        what="waiting settlements paid",
    )
    pump_until(engine, lambda: _paid_once(deployment, engine, ids), timeout_s=10, what="events")
    assert _balance(deployment, player) == 4 * DEW


def test_waiting_settlements_are_paid_after_the_window_resets(
    deployment, make_engine, fresh_db, limits
) -> None:
    limits(3 * DEW, 3 * DEW, DAY)
    engine = make_engine(fresh_db, limit_retry_s=0.3)
    player = Account.create().address
    ids = _queue(fresh_db, player, [2 * DEW, 2 * DEW])
    pump_until(
        engine,
        lambda: statuses(fresh_db) == {"confirmed": 1, "waiting": 1},
        timeout_s=40,
        what="one paid, one waiting",
    )
    (waiting,) = [r for r in _requests(fresh_db) if r.status == RequestStatus.WAITING]
    _window_start, spent, available = deployment.contracts.settlement.functions.outflow().call()
    assert (spent, available) == (2 * DEW, 1 * DEW)
    assert "resetsAt=" in waiting.failure_reason
    engine.rpc.call("evm_increaseTime", DAY)
    pump_until(engine, lambda: statuses(fresh_db) == {"confirmed": 2}, timeout_s=40, what="paid")
    pump_until(engine, lambda: _paid_once(deployment, engine, ids), timeout_s=10, what="events")
    assert _balance(deployment, player) == 4 * DEW


def test_a_match_over_the_per_match_maximum_waits_alone(
    deployment, make_engine, fresh_db, limits
) -> None:
    limits(100 * DEW, 3 * DEW)
    engine = make_engine(fresh_db, limit_retry_s=0.3)
    player = Account.create().address
    big, *small = _queue(fresh_db, player, [4 * DEW, 1 * DEW, 1 * DEW])
    pump_until(
        engine,
        lambda: statuses(fresh_db) == {"confirmed": 2, "waiting": 1},
        timeout_s=40,
        what="the big one waits, the others are paid",
    )
    (waiting,) = [r for r in _requests(fresh_db) if r.status == RequestStatus.WAITING]
    assert waiting.payload["match_id"] == big
    assert waiting.failure_reason.startswith("waiting: SettlementMatchOverLimit(")
    assert _balance(deployment, player) == 2 * DEW
    limits(100 * DEW, 5 * DEW)
    pump_until(engine, lambda: statuses(fresh_db) == {"confirmed": 3}, timeout_s=40, what="paid")
    assert _balance(deployment, player) == 6 * DEW
    assert _paid_once(deployment, engine, [big, *small])


def test_paused_settlement_waits_until_the_admin_unpauses(
    deployment, make_engine, fresh_db, limits
) -> None:
    limits(MAX_SETTLE_PERIOD_LIMIT, MAX_SETTLE_PER_MATCH)
    settlement = deployment.contracts.settlement
    guardian = Account.from_key(deployment.operator_key)  # deploy makes the operator guardian
    w3 = deployment.w3
    tx = settlement.functions.pause().build_transaction(
        {"from": guardian.address, "nonce": w3.eth.get_transaction_count(guardian.address)}
    )
    w3.eth.wait_for_transaction_receipt(
        w3.eth.send_raw_transaction(guardian.sign_transaction(tx).raw_transaction), timeout=10
    )
    assert settlement.functions.paused().call() is True
    engine = make_engine(fresh_db, limit_retry_s=0.3)
    player = Account.create().address
    ids = _queue(fresh_db, player, [DEW, DEW, DEW])
    pump_until(
        engine, lambda: statuses(fresh_db) == {"waiting": 3}, timeout_s=30, what="all waiting"
    )
    assert all(r.failure_reason == "waiting: SettlementPaused()" for r in _requests(fresh_db))
    assert _balance(deployment, player) == 0
    _admin(deployment, settlement.functions.unpause())
    pump_until(engine, lambda: statuses(fresh_db) == {"confirmed": 3}, timeout_s=40, what="paid")
    assert _balance(deployment, player) == 3 * DEW
    assert _paid_once(deployment, engine, ids)


def test_a_settle_reverted_on_chain_by_the_limit_waits_and_is_paid_later(
    deployment,
    make_engine,
    fresh_db,
    limits,
    manual_mining,  # noqa: F811
) -> None:
    """The simulation passed, then the admin lowered the limit in the same block: the mined
    transaction reverts, and its settlement waits instead of failing."""
    # ``limits`` only for its snapshot: the module's vault starts with no limit.
    engine = make_engine(fresh_db, limit_retry_s=0.3)
    player = Account.create().address
    ids = _queue(fresh_db, player, [2 * DEW])
    engine.step()  # simulated against the unlimited vault, signed and sent
    assert statuses(fresh_db) == {"submitted": 1}
    settlement = deployment.contracts.settlement
    deployer = Account.from_key(deployment.deployer_key)
    w3 = deployment.w3
    lower = settlement.functions.setLimits(DEW, DEW, DAY, MAX_SETTLE_MATCHES).build_transaction(
        {
            "from": deployer.address,
            "nonce": w3.eth.get_transaction_count(deployer.address),
            "maxPriorityFeePerGas": 50 * 10**9,  # mined ahead of the settle in the same block
            "maxFeePerGas": 100 * 10**9,
        }
    )
    w3.eth.send_raw_transaction(deployer.sign_transaction(lower).raw_transaction)
    manual_mining(3)
    pump_until(
        engine,
        lambda: statuses(fresh_db) == {"waiting": 1},
        timeout_s=20,
        what="waiting after the revert",
    )
    with fresh_db() as session:
        (tx,) = session.scalars(select(ChainTx)).all()
    assert tx.status == TxStatus.FAILED and tx.receipt_status == 0
    assert "SettlementMatchOverLimit(" in tx.failure_reason
    (request,) = _requests(fresh_db)
    assert request.failure_reason.startswith("waiting: SettlementMatchOverLimit(")
    assert _balance(deployment, player) == 0

    raise_tx = settlement.functions.setLimits(
        MAX_SETTLE_PERIOD_LIMIT, MAX_SETTLE_PER_MATCH, DAY, MAX_SETTLE_MATCHES
    ).build_transaction(
        {"from": deployer.address, "nonce": w3.eth.get_transaction_count(deployer.address)}
    )
    w3.eth.send_raw_transaction(deployer.sign_transaction(raise_tx).raw_transaction)
    manual_mining(1)

    def paid() -> bool:
        manual_mining(1)
        return statuses(fresh_db) == {"confirmed": 1}

    pump_until(engine, paid, timeout_s=30, what="paid after the raise")
    assert _balance(deployment, player) == 2 * DEW
    assert _paid_once(deployment, engine, ids)
