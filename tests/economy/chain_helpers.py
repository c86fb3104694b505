"""Signing helpers for economy tests: a test plays each user's wallet with its dev key."""

from __future__ import annotations

import time
from typing import Any

from eth_account import Account
from web3 import Web3

from backend.economy.scholarships.transactions import UnsignedTx


def send(w3: Web3, key: str, tx: UnsignedTx | Any, *, timeout_s: float = 30) -> dict[str, Any]:
    """Sign ``tx`` (an :class:`UnsignedTx` or a web3 contract call) with ``key``; wait for it."""
    account = Account.from_key(key)
    if isinstance(tx, UnsignedTx):
        assert tx.from_ == account.address, f"{tx.description} is for {tx.from_}"
        fields = {"to": tx.to, "data": tx.data, "value": tx.value, "chainId": tx.chain_id}
        fields["gas"] = tx.gas or 1_000_000
    else:
        fields = dict(tx.build_transaction({"from": account.address}))
    fields["from"] = account.address
    fields["nonce"] = w3.eth.get_transaction_count(account.address, "pending")
    fields.setdefault("chainId", w3.eth.chain_id)
    base = w3.eth.get_block("latest")["baseFeePerGas"]
    fields.setdefault("maxFeePerGas", base * 2 + 10**9)
    fields.setdefault("maxPriorityFeePerGas", 10**9)
    fields.pop("gasPrice", None)
    signed = account.sign_transaction(fields)
    tx_hash = w3.eth.send_raw_transaction(signed.raw_transaction)
    deadline = time.monotonic() + timeout_s
    while True:
        receipt = w3.eth.get_transaction_receipt(tx_hash) if _mined(w3, tx_hash) else None
        if receipt is not None:
            assert receipt["status"] == 1, f"transaction reverted: {fields}"
            return dict(receipt)
        if time.monotonic() > deadline:
            raise AssertionError(f"transaction {tx_hash.hex()} not mined in {timeout_s}s")
        time.sleep(0.05)


def _mined(w3: Web3, tx_hash: bytes) -> bool:
    try:
        w3.eth.get_transaction_receipt(tx_hash)
        return True
    except Exception:
        return False


def address(key: str) -> str:
    return Account.from_key(key).address


def mint_avatars(deployment: Any, owners: list[str]) -> list[int]:
    """Mint one avatar per owner through the operator's minter role; returns the ids."""
    avatar = deployment.contracts.avatar
    first = avatar.functions.nextTokenId().call()
    send(deployment.w3, deployment.operator_key, avatar.functions.mintBatch(owners))
    return list(range(first, first + len(owners)))


def advance_time(w3: Web3, seconds: int) -> None:
    w3.provider.make_request("evm_increaseTime", [seconds])
    w3.provider.make_request("evm_mine", [])
