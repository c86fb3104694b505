"""Chain faults around the engine: a flaky RPC endpoint, and anvil restarted from a dump."""

from __future__ import annotations

import secrets
from collections.abc import Iterator

import pytest
from eth_account import Account
from sqlalchemy import select
from web3 import Web3

from backend.chain.calls import ContractCalls
from backend.chain.contracts import Contracts
from backend.chain.engine import Engine
from backend.chain.models import ChainTx, TxStatus
from backend.chain.outbox import Payout, request_settlement
from backend.chain.rpc import Rpc
from backend.devstack.anvil import Anvil
from tests.chain.conftest import (
    engine_settings,
    pump_until,
    settled_events,
    statuses,
)
from tests.chain.rpc_proxy import FlakyRpcProxy

DEW = 10**18


@pytest.fixture(scope="module")
def anvil(tmp_path_factory) -> Iterator[Anvil]:
    """This module's anvil writes its state on exit, so a test can restart it from there."""
    dump = tmp_path_factory.mktemp("anvil") / "state.json"
    node = Anvil(dump_state=dump)
    node.start()
    yield node
    node.stop()


def _queue(sessions, players: list[str], n: int) -> list[bytes]:
    ids = [secrets.token_bytes(32) for _ in range(n)]
    with sessions.begin() as session:
        for k, match_id in enumerate(ids):
            request_settlement(
                session=session,
                match_id=match_id,
                result_hash=secrets.token_bytes(32),
                payouts=[
                    Payout(amount=DEW, account=players[(k + j) % len(players)]) for j in range(2)
                ],
            )
    return ids


def _final(sessions) -> bool:
    counts = statuses(sessions)
    return not counts.get("queued") and not counts.get("submitted")


def test_flaky_rpc_loses_and_duplicates_nothing(deployment, make_engine, fresh_db):
    players = [Account.create().address for _ in range(4)]
    # Small batches: many sends, so many broadcasts whose answers get lost.
    ids = _queue(fresh_db, players, 24)
    with FlakyRpcProxy(deployment.anvil.rpc_url) as proxy:
        engine = make_engine(fresh_db, rpc_url=proxy.url, max_gas_per_tx=250_000)
        pump_until(engine, lambda: _final(fresh_db), timeout_s=90, what="all confirmed via proxy")
    assert proxy.counts["failed_before"] > 0 and proxy.counts["failed_after"] > 0
    assert statuses(fresh_db) == {"confirmed": 24}
    token = deployment.contracts.token
    assert [token.functions.balanceOf(p).call() for p in players] == [12 * DEW] * 4
    events = settled_events(Rpc(deployment.anvil.rpc_url), deployment.contracts.settlement.address)
    assert [events["0x" + m.hex()] for m in ids] == [1] * 24


def test_nonce_gap_from_a_refused_transaction_is_filled(deployment, make_engine, fresh_db):
    """The node refuses one tx outright; later nonces wait behind the gap until a filler."""
    players = [Account.create().address for _ in range(2)]
    ids = _queue(fresh_db, players, 2)
    with FlakyRpcProxy(
        deployment.anvil.rpc_url, fail_before=0, fail_after=0, delay_share=0, refuse_sends=1
    ) as proxy:
        # One match per tx: nonce n is refused, nonce n+1 is accepted but held behind the gap.
        engine = make_engine(fresh_db, rpc_url=proxy.url, max_gas_per_tx=200_000)
        engine.step()
        pump_until(engine, lambda: _final(fresh_db), timeout_s=30, what="all confirmed")
    assert proxy.counts["refused"] == 1
    with fresh_db() as session:
        txs = session.scalars(select(ChainTx).order_by(ChainTx.id)).all()
    refused = txs[0]
    assert refused.status == TxStatus.FAILED and "rejected" in refused.failure_reason
    n = refused.nonce
    # Whether the tracker filled the gap before or after nonce n+1 was signed depends on
    # timing; what each nonce ended up holding does not.
    by_nonce = {(t.nonce - n, t.kind, t.status) for t in txs[1:]}
    assert by_nonce == {
        (0, "filler", "confirmed"),
        (1, "settle", "confirmed"),
        (2, "settle", "confirmed"),
    }
    assert statuses(fresh_db) == {"confirmed": 2}
    token = deployment.contracts.token
    assert [token.functions.balanceOf(p).call() for p in players] == [2 * DEW, 2 * DEW]
    events = settled_events(Rpc(deployment.anvil.rpc_url), deployment.contracts.settlement.address)
    assert [events["0x" + m.hex()] for m in ids] == [1, 1]


def test_anvil_restarted_from_its_dump_mid_run(deployment, fresh_db, interval_mining):
    node = deployment.anvil
    players = [Account.create().address for _ in range(3)]
    ids = _queue(fresh_db, players, 18)
    operator = Account.from_key(deployment.operator_key)
    calls = ContractCalls(deployment.contracts)

    def engine_for(url: str, **overrides) -> Engine:
        return Engine(
            session_factory=fresh_db,
            rpc=Rpc(url),
            account=operator,
            chain_id=deployment.manifest.chain_id,
            calls=calls,
            settings=engine_settings(**overrides),
        )

    # Send a first part: some transactions mined, some still pending when the node stops.
    first = engine_for(node.rpc_url, max_gas_per_tx=250_000, max_in_flight=4)
    pump_until(
        first,
        lambda: statuses(fresh_db).get("confirmed", 0) >= 4,
        timeout_s=30,
        what="a first part confirmed",
    )
    assert statuses(fresh_db).get("submitted", 0) > 0
    dump = node.dump_state
    node.stop()  # SIGTERM: anvil writes its state (mempool excluded) to the dump
    with Anvil(load_state=dump, block_time=1) as restarted:
        second = engine_for(restarted.rpc_url)
        pump_until(second, lambda: _final(fresh_db), timeout_s=60, what="all confirmed")
        w3 = Web3(Web3.HTTPProvider(restarted.rpc_url))
        contracts = Contracts(w3, deployment.manifest)
        balances = [contracts.token.functions.balanceOf(p).call() for p in players]
        events = settled_events(second.rpc, deployment.contracts.settlement.address)
    assert statuses(fresh_db) == {"confirmed": 18}
    assert balances == [12 * DEW] * 3
    assert [events.get("0x" + m.hex(), 0) for m in ids] == [1] * 18
