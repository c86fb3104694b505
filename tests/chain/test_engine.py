"""The engine against a real anvil and the real contracts, one step at a time.

Each test drives ``Engine.step`` in-process (the worker tests run the same code in
Celery processes). Every outcome is checked on chain: DEW balances, ``MatchSettled``
events and minted avatars, never only the database's word.
"""

from __future__ import annotations

import re
import secrets
import time
from collections.abc import Iterator

import pytest
from eth_account import Account
from sqlalchemy import event, select

from backend.chain.contracts import SETTLER_ROLE
from backend.chain.models import ChainRequest, ChainTx, ChainTxEvent, RequestStatus, TxStatus
from backend.chain.outbox import Payout, request_mint, request_settlement
from backend.chain.reconcile import reconcile
from backend.chain.sender import SEND_SLICE_S
from tests.chain.conftest import BLOCK_TIME_S, pump_until, settled_events, statuses, wait_for

DEW = 10**18


def _match_ids(n: int) -> list[bytes]:
    # Random high bytes keep tests sharing one chain apart; sequential low bytes are cheap.
    prefix = secrets.token_bytes(24)
    return [prefix + i.to_bytes(8, "big") for i in range(1, n + 1)]


def _queue_matches(sessions, recipients: list[str], n: int, amount: int = DEW) -> list[bytes]:
    ids = _match_ids(n)
    with sessions.begin() as session:
        for k, match_id in enumerate(ids):
            request_settlement(
                session=session,
                match_id=match_id,
                result_hash=secrets.token_bytes(32),
                payouts=[
                    Payout(amount=amount, account=recipients[(k + j) % len(recipients)])
                    for j in range(3)
                ],
            )
    return ids


def _balances(deployment, accounts: list[str]) -> list[int]:
    token = deployment.contracts.token
    return [token.functions.balanceOf(a).call() for a in accounts]


def _all_final(sessions) -> bool:
    counts = statuses(sessions)
    return not counts.get("queued") and not counts.get("submitted")


def _admin(deployment, fn) -> None:
    """Send an admin transaction from the deployer and wait for its receipt."""
    w3 = deployment.w3
    deployer = Account.from_key(deployment.deployer_key)
    tx = fn.build_transaction(
        {"from": deployer.address, "nonce": w3.eth.get_transaction_count(deployer.address)}
    )
    tx_hash = w3.eth.send_raw_transaction(deployer.sign_transaction(tx).raw_transaction)
    receipt = wait_for(
        lambda: _receipt(w3, tx_hash), timeout_s=10, what=f"admin tx {tx_hash.hex()}"
    )
    assert receipt["status"] == 1


def _receipt(w3, tx_hash):
    try:
        return w3.eth.get_transaction_receipt(tx_hash)
    except Exception:
        return None


@pytest.fixture
def manual_mining(interval_mining) -> Iterator:
    """Blocks only when the test mines them; interval mining comes back afterwards."""
    rpc = interval_mining
    rpc.call("evm_setIntervalMining", 0)
    rpc.call("evm_setAutomine", False)

    def mine(blocks: int = 1) -> None:
        for _ in range(blocks):
            rpc.call("evm_mine")

    yield mine
    rpc.call("evm_setIntervalMining", BLOCK_TIME_S)


def test_payouts_and_mints_are_confirmed_once_and_match_the_chain(
    deployment, make_engine, fresh_db
):
    engine = make_engine(fresh_db)
    owners = [Account.create().address for _ in range(2)]
    with fresh_db.begin() as session:
        mint_id = request_mint(session=session, recipients=owners, idempotency_key="mint:a").id
    pump_until(engine, lambda: _all_final(fresh_db), timeout_s=30, what="mints confirmed")
    with fresh_db() as session:
        mint = session.get(ChainRequest, mint_id)
        token_ids = mint.result["token_ids"]
    avatar = deployment.contracts.avatar
    assert [avatar.functions.ownerOf(t).call() for t in token_ids] == owners

    players = [Account.create().address for _ in range(5)]
    ids = _queue_matches(fresh_db, players, 40, amount=3 * DEW)
    with fresh_db.begin() as session:  # one avatar payout: no agreement, so all to its owner
        request_settlement(
            session=session,
            match_id=secrets.token_bytes(32),
            result_hash=b"\x01" * 32,
            payouts=[Payout(amount=5 * DEW, avatar_id=token_ids[0])],
        )
    pump_until(engine, lambda: _all_final(fresh_db), timeout_s=40, what="settlements confirmed")

    assert statuses(fresh_db) == {"confirmed": 42}
    # 40 matches x 3 payouts of 3 DEW over 5 players: each is paid 24 times.
    assert _balances(deployment, players) == [24 * 3 * DEW] * 5
    assert _balances(deployment, owners) == [5 * DEW, 0]
    events = settled_events(engine.rpc, deployment.contracts.settlement.address)
    assert all(events["0x" + m.hex()] == 1 for m in ids)
    report = reconcile(
        session_factory=fresh_db, rpc=engine.rpc, calls=engine.calls, chain_id=engine.chain_id
    )
    assert report.ok, report.differences
    assert report.checked == 42
    with fresh_db() as session:
        txs = session.scalars(select(ChainTx)).all()
        assert all(tx.status == TxStatus.CONFIRMED for tx in txs)
        assert all(tx.sent_at <= tx.mined_at <= tx.confirmed_at for tx in txs)
        history = session.scalars(
            select(ChainTxEvent.status)
            .where(ChainTxEvent.tx_id == txs[-1].id)
            .order_by(ChainTxEvent.id)
        ).all()
        assert history == ["signed", "sent", "mined", "confirmed"]


def test_same_match_under_two_keys_pays_once(deployment, make_engine, fresh_db):
    engine = make_engine(fresh_db)
    player = Account.create().address
    match_id = secrets.token_bytes(32)
    with fresh_db.begin() as session:
        for key in ("economy:1", "economy:retry"):
            request_settlement(
                session=session,
                match_id=match_id,
                result_hash=b"\x02" * 32,
                payouts=[Payout(amount=DEW, account=player)],
                idempotency_key=key,
            )
    pump_until(engine, lambda: _all_final(fresh_db), timeout_s=30, what="both confirmed")
    with fresh_db() as session:
        outcomes = sorted(r.result["outcome"] for r in session.scalars(select(ChainRequest)))
    assert outcomes == ["already_settled", "settled"]
    assert _balances(deployment, [player]) == [DEW]


def test_dropped_transaction_is_broadcast_again(deployment, make_engine, fresh_db, manual_mining):
    engine = make_engine(fresh_db, rebroadcast_after_s=0.3)
    player = Account.create().address
    _queue_matches(fresh_db, [player], 2)
    engine.step()
    with fresh_db() as session:
        (tx,) = session.scalars(select(ChainTx)).all()
    assert tx.status == TxStatus.SENT
    engine.rpc.call("anvil_dropTransaction", tx.tx_hash)
    assert engine.rpc.call("eth_getTransactionByHash", tx.tx_hash) is None
    time.sleep(0.4)  # let the re-broadcast interval pass; the condition is checked below
    engine.step()
    assert engine.rpc.call("eth_getTransactionByHash", tx.tx_hash) is not None
    manual_mining(2)
    pump_until(engine, lambda: _all_final(fresh_db), timeout_s=10, what="confirmation")
    assert statuses(fresh_db) == {"confirmed": 2}
    assert _balances(deployment, [player]) == [6 * DEW]


def test_a_step_on_a_slow_database_still_sends(deployment, make_engine, fresh_db, manual_mining):
    """A step whose queries outlast the send slice (a loaded machine, a slow database) still
    signs and sends its first batch. Before, such a step sent nothing, and the tests here that
    drive single steps (a reorg, a dropped transaction) failed now and then under load."""
    engine = make_engine(fresh_db)
    player = Account.create().address
    _queue_matches(fresh_db, [player], 1)
    database = fresh_db.kw["bind"]

    def slow_query(*_: object) -> None:
        time.sleep(SEND_SLICE_S)  # every statement as slow as a whole send slice

    event.listen(database, "before_cursor_execute", slow_query)
    try:
        engine.step()
    finally:
        event.remove(database, "before_cursor_execute", slow_query)
    with fresh_db() as session:
        (tx,) = session.scalars(select(ChainTx)).all()
    assert tx.status == TxStatus.SENT
    manual_mining(2)
    pump_until(engine, lambda: _all_final(fresh_db), timeout_s=10, what="confirmation")
    assert _balances(deployment, [player]) == [3 * DEW]


def test_reorg_before_confirmation_is_detected_and_resent(
    deployment, make_engine, fresh_db, manual_mining
):
    engine = make_engine(fresh_db, confirmations=3)
    player = Account.create().address
    ids = _queue_matches(fresh_db, [player], 3)
    snapshot = engine.rpc.call("evm_snapshot")
    engine.step()
    manual_mining(1)
    engine.step()
    with fresh_db() as session:
        (tx,) = session.scalars(select(ChainTx)).all()
    assert tx.status == TxStatus.MINED
    mined_in = tx.block_hash

    assert engine.rpc.call("evm_revert", snapshot) is True
    manual_mining(1)  # a new head without our transaction
    engine.step()
    with fresh_db() as session:
        tx = session.get(ChainTx, tx.id)
        assert tx.reorgs == 1
        assert tx.status in (TxStatus.SENT, TxStatus.MINED)
    manual_mining(3)
    pump_until(engine, lambda: _all_final(fresh_db), timeout_s=10, what="confirmation")
    with fresh_db() as session:
        tx = session.get(ChainTx, tx.id)
        assert tx.status == TxStatus.CONFIRMED and tx.block_hash != mined_in
        details = session.scalars(
            select(ChainTxEvent.detail).where(ChainTxEvent.tx_id == tx.id)
        ).all()
    assert any(d and d.startswith("reorg") for d in details)
    assert _balances(deployment, [player]) == [9 * DEW]
    events = settled_events(engine.rpc, deployment.contracts.settlement.address)
    assert [events["0x" + m.hex()] for m in ids] == [1, 1, 1]


def test_stuck_transaction_is_replaced_with_higher_fees(
    deployment, make_engine, fresh_db, manual_mining
):
    engine = make_engine(fresh_db, stuck_after_s=0.3)
    player = Account.create().address
    _queue_matches(fresh_db, [player], 2)
    engine.step()
    time.sleep(0.4)  # older than stuck_after_s; the replacement is checked below
    engine.step()
    with fresh_db() as session:
        first, second = session.scalars(select(ChainTx).order_by(ChainTx.id)).all()
    assert (first.nonce, first.status) == (second.nonce, TxStatus.REPLACED)
    assert second.replaces_id == first.id
    assert second.max_fee_per_gas * 100 >= first.max_fee_per_gas * 110
    assert second.max_priority_fee_per_gas * 100 >= first.max_priority_fee_per_gas * 110
    manual_mining(2)
    pump_until(engine, lambda: _all_final(fresh_db), timeout_s=10, what="confirmation")
    with fresh_db() as session:
        assert session.get(ChainTx, second.id).status == TxStatus.CONFIRMED
        assert session.get(ChainTx, first.id).status == TxStatus.REPLACED
    assert _balances(deployment, [player]) == [6 * DEW]


def test_fee_bumps_stop_at_the_cap(deployment, make_engine, fresh_db, manual_mining):
    engine = make_engine(fresh_db, stuck_after_s=0.2)
    _queue_matches(fresh_db, [Account.create().address], 1)
    engine.step()
    with fresh_db() as session:
        (first,) = session.scalars(select(ChainTx)).all()
    capped = make_engine(fresh_db, stuck_after_s=0.2, max_fee_cap_wei=first.max_fee_per_gas)
    time.sleep(0.3)
    capped.step()
    capped.step()
    with fresh_db() as session:
        assert len(session.scalars(select(ChainTx)).all()) == 1
    manual_mining(2)
    pump_until(engine, lambda: _all_final(fresh_db), timeout_s=10, what="confirmation")


def test_nonce_spent_by_a_foreign_transaction_frees_the_requests(
    deployment, make_engine, fresh_db, interval_mining
):
    engine = make_engine(fresh_db)
    player = Account.create().address
    _queue_matches(fresh_db, [player], 2)
    view = engine.view()  # the engine's picture of the chain goes stale ...
    operator = Account.from_key(deployment.operator_key)
    foreign = operator.sign_transaction(  # ... while someone else spends the operator's nonce
        {
            "type": 2,
            "chainId": deployment.manifest.chain_id,
            "nonce": view.nonce,
            "to": operator.address,
            "value": 0,
            "gas": 21_000,
            "maxFeePerGas": 10**11,
            "maxPriorityFeePerGas": 10**9,
        }
    )
    engine.rpc.send_raw(bytes(foreign.raw_transaction))
    wait_for(
        lambda: engine.rpc.nonce(operator.address) > view.nonce, timeout_s=10, what="foreign tx"
    )
    from backend.chain.engine import PumpReport

    engine.send(view, PumpReport())  # signs at the spent nonce: the node says "nonce too low"
    pump_until(engine, lambda: _all_final(fresh_db), timeout_s=30, what="requests re-sent")
    with fresh_db() as session:
        txs = session.scalars(select(ChainTx).order_by(ChainTx.id)).all()
    assert txs[0].nonce == view.nonce and txs[0].status == TxStatus.FAILED
    assert "did not sign" in txs[0].failure_reason
    assert txs[-1].status == TxStatus.CONFIRMED and txs[-1].nonce > view.nonce
    assert statuses(fresh_db) == {"confirmed": 2}
    assert _balances(deployment, [player]) == [6 * DEW]


def test_cancelled_transaction_frees_its_requests_through_a_filler(
    deployment, make_engine, fresh_db, manual_mining
):
    engine = make_engine(fresh_db)
    player = Account.create().address
    _queue_matches(fresh_db, [player], 2)
    engine.step()
    with fresh_db() as session:
        (tx,) = session.scalars(select(ChainTx)).all()
    filler = engine.cancel_tx(tx.tx_hash)
    assert filler is not None and filler.nonce == tx.nonce and filler.kind == "filler"
    manual_mining(3)
    pump_until(engine, lambda: statuses(fresh_db) == {"submitted": 2}, timeout_s=10, what="resend")
    manual_mining(3)
    pump_until(engine, lambda: _all_final(fresh_db), timeout_s=10, what="confirmation")
    with fresh_db() as session:
        assert session.get(ChainTx, filler.id).status == TxStatus.CONFIRMED
        assert session.get(ChainTx, tx.id).status == TxStatus.REPLACED
    assert _balances(deployment, [player]) == [6 * DEW]


def test_underfunded_vault_fails_only_that_match(deployment, make_engine, fresh_db):
    engine = make_engine(fresh_db)
    players = [Account.create().address for _ in range(3)]
    _queue_matches(fresh_db, players, 4)
    with fresh_db.begin() as session:
        greedy = request_settlement(
            session=session,
            match_id=secrets.token_bytes(32),
            result_hash=b"\x03" * 32,
            # More than the vault holds (10M DEW), within the per-match maximum (2**24 - 1 DEW).
            payouts=[Payout(amount=15_000_000 * DEW, account=players[0])],
        ).id
    _queue_matches(fresh_db, players, 4)
    pump_until(engine, lambda: _all_final(fresh_db), timeout_s=40, what="all final")
    with fresh_db() as session:
        request = session.get(ChainRequest, greedy)
    assert request.status == RequestStatus.FAILED
    assert re.search(r"Insufficient(Vault|Balance)\(", request.failure_reason)
    assert statuses(fresh_db) == {"confirmed": 8, "failed": 1}
    assert sum(_balances(deployment, players)) == 8 * 3 * DEW


def test_revert_on_chain_is_recorded_with_its_custom_error(
    deployment, make_engine, fresh_db, manual_mining
):
    engine = make_engine(fresh_db)
    player = Account.create().address
    _queue_matches(fresh_db, [player], 2)
    engine.step()  # signed and sent while the vault is still funded
    settlement = deployment.contracts.settlement
    vault = deployment.contracts.token.functions.balanceOf(settlement.address).call()
    sink = Account.create().address
    deployer = Account.from_key(deployment.deployer_key)
    w3 = deployment.w3
    withdraw = settlement.functions.withdraw(sink, vault).build_transaction(
        {
            "from": deployer.address,
            "nonce": w3.eth.get_transaction_count(deployer.address),
            "maxPriorityFeePerGas": 50 * 10**9,  # mined ahead of the settle in the same block
            "maxFeePerGas": 100 * 10**9,
        }
    )
    w3.eth.send_raw_transaction(deployer.sign_transaction(withdraw).raw_transaction)
    manual_mining(3)
    try:
        pump_until(engine, lambda: _all_final(fresh_db), timeout_s=20, what="failure")
        with fresh_db() as session:
            (tx,) = session.scalars(select(ChainTx)).all()
            requests = session.scalars(select(ChainRequest)).all()
        assert tx.status == TxStatus.FAILED and tx.receipt_status == 0
        assert re.search(r"Insufficient(Vault|Balance)\(", tx.failure_reason)
        assert {r.status for r in requests} == {RequestStatus.FAILED}
        assert all(re.search(r"Insufficient(Vault|Balance)\(", r.failure_reason) for r in requests)
        assert _balances(deployment, [player]) == [0]
    finally:  # put the money back for the other tests
        _refund_vault(deployment, vault, manual_mining)


def _refund_vault(deployment, amount, mine) -> None:
    token = deployment.contracts.token
    w3 = deployment.w3
    deployer = Account.from_key(deployment.deployer_key)  # holds the treasury
    tx = token.functions.transfer(
        deployment.contracts.settlement.address, amount
    ).build_transaction(
        {"from": deployer.address, "nonce": w3.eth.get_transaction_count(deployer.address)}
    )
    tx_hash = w3.eth.send_raw_transaction(deployer.sign_transaction(tx).raw_transaction)
    mine(1)
    assert _receipt(w3, tx_hash)["status"] == 1


def test_missing_role_fails_settlements_but_not_mints(deployment, make_engine, fresh_db):
    engine = make_engine(fresh_db)
    settlement = deployment.contracts.settlement
    operator = Account.from_key(deployment.operator_key).address
    _admin(deployment, settlement.functions.revokeRole(SETTLER_ROLE, operator))
    try:
        _queue_matches(fresh_db, [Account.create().address], 3)
        owner = Account.create().address
        with fresh_db.begin() as session:
            request_mint(session=session, recipients=[owner], idempotency_key="mint:role")
        pump_until(engine, lambda: _all_final(fresh_db), timeout_s=30, what="all final")
        with fresh_db() as session:
            requests = session.scalars(select(ChainRequest).order_by(ChainRequest.id)).all()
        assert [r.status for r in requests] == ["failed"] * 3 + ["confirmed"]
        assert all("AccessControlUnauthorizedAccount" in r.failure_reason for r in requests[:3])
        assert deployment.contracts.avatar.functions.balanceOf(owner).call() == 1
    finally:
        _admin(deployment, settlement.functions.grantRole(SETTLER_ROLE, operator))


def test_unfunded_operator_waits_for_a_refill_then_sends_the_same_bytes(
    deployment, make_engine, fresh_db
):
    engine = make_engine(fresh_db, rebroadcast_after_s=0.2)
    operator = Account.from_key(deployment.operator_key).address
    funds = engine.rpc.call("eth_getBalance", operator, "latest")
    player = Account.create().address
    _queue_matches(fresh_db, [player], 2)
    engine.rpc.call("anvil_setBalance", operator, "0x0")
    try:

        def refused_twice():
            with fresh_db() as session:
                txs = session.scalars(select(ChainTx)).all()
            return txs[0] if txs and txs[0].broadcasts >= 2 else None

        tx = pump_until(engine, refused_twice, timeout_s=10, what="two refused broadcasts")
        assert tx.status == TxStatus.SIGNED
        assert statuses(fresh_db) == {"submitted": 2}  # waiting, not failed
    finally:
        engine.rpc.call("anvil_setBalance", operator, funds)  # the refill
    pump_until(engine, lambda: _all_final(fresh_db), timeout_s=20, what="confirmation")
    with fresh_db() as session:
        txs = session.scalars(select(ChainTx)).all()
    assert [t.tx_hash for t in txs] == [tx.tx_hash]
    assert statuses(fresh_db) == {"confirmed": 2}
    assert _balances(deployment, [player]) == [6 * DEW]


def test_request_too_big_for_any_block_fails_clearly(deployment, make_engine, fresh_db):
    engine = make_engine(fresh_db, max_gas_per_tx=10**9)
    owners = [Account.create().address for _ in range(500)]  # 500 new holders: > 27M gas
    with fresh_db.begin() as session:
        big = request_mint(session=session, recipients=owners, idempotency_key="mint:big").id
        small = request_mint(session=session, recipients=owners[:1], idempotency_key="m:s").id
    pump_until(engine, lambda: _all_final(fresh_db), timeout_s=30, what="both final")
    with fresh_db() as session:
        assert session.get(ChainRequest, small).status == RequestStatus.CONFIRMED
        request = session.get(ChainRequest, big)
    assert request.status == RequestStatus.FAILED
    assert re.match(r"needs \d+ gas; a transaction may use \d+", request.failure_reason)
    assert deployment.contracts.avatar.functions.balanceOf(owners[1]).call() == 0
