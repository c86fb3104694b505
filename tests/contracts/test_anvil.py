"""The Anvil wrapper: free ports, funded keys, interval mining, state dump and reload."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from eth_account import Account
from web3 import Web3

from backend.devstack.anvil import Anvil, AnvilError, find_anvil_binary


def test_two_anvils_run_side_by_side_with_funded_keys() -> None:
    with Anvil() as first, Anvil(chain_id=1337) as second:
        assert first.rpc_url != second.rpc_url
        w3 = Web3(Web3.HTTPProvider(second.rpc_url))
        assert w3.eth.chain_id == second.chain_id == 1337
        assert len(second.keys) == 10
        account = Account.from_key(second.keys[0])
        assert account.address == second.accounts[0].address
        assert w3.eth.get_balance(account.address) == 10_000 * 10**18


def test_stop_ends_the_process() -> None:
    node = Anvil().start()
    pid = node.pid
    assert pid is not None
    node.stop()
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    with pytest.raises(AnvilError, match="not running"):
        _ = node.rpc_url


def test_block_time_mines_on_an_interval() -> None:
    with Anvil(block_time=1) as node:
        w3 = Web3(Web3.HTTPProvider(node.rpc_url))
        start = w3.eth.block_number
        deadline = time.monotonic() + 10
        while w3.eth.block_number < start + 2:
            assert time.monotonic() < deadline, "no blocks mined within 10 s"
            time.sleep(0.1)


def test_state_survives_dump_and_load(tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    recipient = "0x000000000000000000000000000000000000bEEF"
    with Anvil(dump_state=state) as node:
        w3 = Web3(Web3.HTTPProvider(node.rpc_url))
        sender = Account.from_key(node.keys[0])
        tx = {
            "to": recipient,
            "value": 12345,
            "nonce": 0,
            "gas": 21000,
            "maxFeePerGas": 10**10,
            "maxPriorityFeePerGas": 1,
            "chainId": node.chain_id,
        }
        tx_hash = w3.eth.send_raw_transaction(sender.sign_transaction(tx).raw_transaction)
        w3.eth.wait_for_transaction_receipt(tx_hash)
    assert state.exists()
    with Anvil(load_state=state) as node:
        w3 = Web3(Web3.HTTPProvider(node.rpc_url))
        assert w3.eth.get_balance(recipient) == 12345


def test_bad_options_fail_with_the_nodes_output() -> None:
    with pytest.raises(AnvilError, match="exited during startup"):
        Anvil(extra_args=("--no-such-flag",)).start()


def test_missing_binary_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(AnvilError, match="npm ci"):
        find_anvil_binary(tmp_path)
