"""Stake withdrawals end to end on anvil: a real server process (PostgreSQL) builds the deposit
the player's key signs, the indexer credits it, withdrawals are asked for over HTTP, and the
real transaction engine pays them through the vault. Balances are read from the token.

- 20 parallel withdrawals of one balance: one is accepted, the vault pays it once;
- a withdrawal over the vault's window limit waits (state ``waiting``) and is paid, once,
  after the window resets.
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest
from eth_account import Account

from backend.chain.deploy import MAX_SETTLE_MATCHES
from backend.db import create_db_engine, make_session_factory
from backend.economy import jobs
from backend.economy import ledger as service
from backend.economy.chain_reader import ChainReader
from backend.economy.models import StakeEntry
from backend.economy.stakes import index_deposits
from backend.economy.withdrawals import reconcile_withdrawals
from tests.chain.conftest import settled_events, statuses, wait_for
from tests.chain.test_engine import _admin
from tests.fixtures.database import create_migrated_pg_database, drop_pg_database
from tests.fixtures.harness import ServerProcess, api, sign_in

DEW = 10**18
DAY = 86_400


@pytest.fixture
def stack(deployment, make_engine, chain_snapshot) -> Iterator[dict[str, Any]]:
    """A fresh PostgreSQL database, ``dew serve`` on this chain, and an engine in this process
    (the chain is put back after the test by ``chain_snapshot``)."""
    url = create_migrated_pg_database()
    db = create_db_engine(url)
    sessions = make_session_factory(db)
    server = ServerProcess(
        url,
        extra_env={
            "DEW_CHAIN_MANIFEST_PATH": str(deployment.manifest_path),
            "DEW_CHAIN_RPC_URL": deployment.anvil.rpc_url,
            "DEW_CHAIN_CHAIN_ID": str(deployment.manifest.chain_id),
        },
    ).start()
    try:
        yield {
            "server": server,
            "sessions": sessions,
            "engine": make_engine(sessions, limit_retry_s=0.3),
            "reader": ChainReader(deployment.contracts, confirmations=1),
        }
    finally:
        server.stop()
        db.dispose()
        drop_pg_database(url)


def _send(w3: Any, key: str, tx: dict[str, Any]) -> None:
    """What the player's wallet does with a transaction the API built: sign, send, wait."""
    account = Account.from_key(key)
    assert tx["from"] == account.address
    base = w3.eth.get_block("latest")["baseFeePerGas"]
    signed = account.sign_transaction(
        {
            "to": tx["to"],
            "data": tx["data"],
            "value": int(tx["value"], 16),
            "chainId": int(tx["chainId"], 16),
            "gas": int(tx["gas"], 16),
            "nonce": w3.eth.get_transaction_count(account.address, "pending"),
            "maxFeePerGas": 2 * base + 10**9,
            "maxPriorityFeePerGas": 10**9,
        }
    )
    receipt = w3.eth.wait_for_transaction_receipt(
        w3.eth.send_raw_transaction(signed.raw_transaction), timeout=30
    )
    assert receipt["status"] == 1


def _funded_player(deployment, stack, key: str, amount: int) -> httpx.Client:
    """The player gets ``amount`` DEW, deposits it through the API's transaction, and is
    credited by the indexer; a signed-in client of the player."""
    token = deployment.contracts.token
    _admin(deployment, token.functions.transfer(Account.from_key(key).address, amount))
    _account, access = sign_in(stack["server"].url, Account.from_key(key))
    client = api(stack["server"].url, access)
    response = client.post("/wallet/deposit", json={"amount": str(amount)})
    assert response.status_code == 200, response.text
    [tx] = response.json()["transactions"]
    assert tx["to"] == deployment.contracts.token.address
    _send(deployment.w3, key, tx)

    def credited() -> bool:
        index_deposits(session_factory=stack["sessions"], reader=stack["reader"])
        return client.get("/wallet").json()["stake_balance"] == str(amount)

    wait_for(credited, timeout_s=30, what="the deposit credited")
    return client


def _book_until(stack, client: httpx.Client, withdrawal_id: str, state: str) -> dict[str, Any]:
    def seen() -> dict[str, Any] | None:
        stack["engine"].step()
        jobs.sync_ledger(session_factory=stack["sessions"], reader=stack["reader"])
        row = client.get(f"/wallet/withdrawals/{withdrawal_id}").json()
        return row if row["state"] == state else None

    return wait_for(seen, timeout_s=60, what=f"withdrawal {withdrawal_id} {state}")


def _books_agree(stack) -> int:
    with stack["sessions"]() as session:
        ledger = service.reconcile_ledger(session=session, reader=stack["reader"])
        found = reconcile_withdrawals(session=session, reader=stack["reader"])
    assert ledger.ok, ledger.differences
    assert found.differences == []
    return found.paid_total


def test_twenty_parallel_withdrawals_of_one_balance_pay_once(deployment, stack) -> None:
    key = deployment.player_keys[0]
    player = Account.from_key(key).address
    client = _funded_player(deployment, stack, key, 7 * DEW)
    # More than the wallet holds: refused by the simulation, nothing to sign.
    response = client.post("/wallet/deposit", json={"amount": str(10**25)})
    assert response.status_code == 409 and response.json()["error"]["code"] == "refused"
    token = deployment.contracts.token.functions
    before = token.balanceOf(player).call()
    vault_before = token.balanceOf(deployment.contracts.settlement.address).call()

    def withdraw(i: int) -> httpx.Response:
        body = {"amount": str(7 * DEW), "idempotency_key": f"all-of-it-{i}"}
        return client.post("/wallet/withdrawals", json=body)

    with ThreadPoolExecutor(20) as pool:
        responses = list(pool.map(withdraw, range(20)))
    assert sorted(r.status_code for r in responses) == [201] + [409] * 19
    [accepted] = [r.json() for r in responses if r.status_code == 201]
    paid = _book_until(stack, client, accepted["id"], "paid")
    assert paid["tx_hash"] and paid["amount"] == str(7 * DEW)
    for _ in range(5):  # more rounds pay nothing more
        stack["engine"].step()
    assert statuses(stack["sessions"]) == {"confirmed": 1}
    assert token.balanceOf(player).call() - before == 7 * DEW
    vault = deployment.contracts.settlement.address
    assert vault_before - token.balanceOf(vault).call() == 7 * DEW
    events = settled_events(stack["engine"].rpc, vault)
    assert events[paid["chain_match_id"].lower()] == 1
    assert _books_agree(stack) == 7 * DEW
    money = client.get("/wallet").json()
    assert money["dew_balance"] == str(token.balanceOf(player).call())
    assert money["stake_balance"] == "0"
    assert [(h["kind"], h["state"]) for h in money["history"]] == [
        ("withdrawal", "paid"),
        ("deposit", "done"),
    ]
    assert all(h["tx_hash"] for h in money["history"])


def test_a_withdrawal_held_by_the_window_limit_is_paid_after_the_window(deployment, stack) -> None:
    settlement = deployment.contracts.settlement
    _admin(deployment, settlement.functions.setLimits(3 * DEW, 3 * DEW, DAY, MAX_SETTLE_MATCHES))
    key = deployment.player_keys[1]
    player = Account.from_key(key).address
    client = _funded_player(deployment, stack, key, 5 * DEW)
    token = deployment.contracts.token.functions
    before = token.balanceOf(player).call()

    first = client.post("/wallet/withdrawals", json={"amount": str(2 * DEW)}).json()
    _book_until(stack, client, first["id"], "paid")
    second = client.post("/wallet/withdrawals", json={"amount": str(2 * DEW)}).json()
    waiting = _book_until(stack, client, second["id"], "waiting")
    assert waiting["reason"].startswith("waiting: SettlementOutflowLimit(")
    for _ in range(5):  # the limit holds: still waiting, nothing more paid
        stack["engine"].step()
    assert client.get(f"/wallet/withdrawals/{second['id']}").json()["state"] == "waiting"
    assert token.balanceOf(player).call() - before == 2 * DEW
    assert client.get("/wallet").json()["stake_balance"] == str(DEW)

    stack["engine"].rpc.call("evm_increaseTime", DAY)
    paid = _book_until(stack, client, second["id"], "paid")
    assert paid["reason"] is None
    for _ in range(5):
        stack["engine"].step()
    assert token.balanceOf(player).call() - before == 4 * DEW
    events = settled_events(stack["engine"].rpc, settlement.address)
    assert events[paid["chain_match_id"].lower()] == 1
    assert _books_agree(stack) == 4 * DEW
    # A withdrawal credited back although it was paid is a difference the books report.
    with stack["sessions"].begin() as session:
        session.add(
            StakeEntry(
                address=player, kind="reversal", amount=str(2 * DEW), match_id=paid["id"], seat=0
            )
        )
    with stack["sessions"]() as session:
        found = reconcile_withdrawals(session=session, reader=stack["reader"])
    assert found.differences == [f"withdrawal {paid['id']}: paid and credited back"]
