"""An unsigned transaction for a user's own wallet to sign, and the builder that makes and
pre-checks them: what the scholarship and the markets builders are
(``backend.economy.scholarships.transactions``, ``backend.markets.transactions``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from eth_typing import HexStr
from web3.exceptions import ContractCustomError, ContractLogicError, Web3Exception

from backend.chain.calls import _error_table, decode_revert
from backend.chain.contracts import Contracts
from backend.kit.errors import DewError


@dataclass(frozen=True)
class UnsignedTx:
    """An EIP-1193 ``eth_sendTransaction`` request (quantities as hex strings)."""

    from_: str
    to: str
    data: str
    value: int
    chain_id: int
    description: str
    gas: int | None = None

    @classmethod
    def from_json(cls, tx: dict[str, Any]) -> UnsignedTx:
        """The transaction ``to_json`` wrote (as a route returns it), for a wallet to sign."""
        return cls(
            from_=tx["from"],
            to=tx["to"],
            data=tx["data"],
            value=int(tx["value"], 16),
            chain_id=int(tx["chainId"], 16),
            description=tx["description"],
            gas=int(tx["gas"], 16) if tx.get("gas") else None,
        )

    def to_json(self) -> dict[str, Any]:
        tx: dict[str, Any] = {
            "from": self.from_,
            "to": self.to,
            "data": self.data,
            "value": hex(self.value),
            "chainId": hex(self.chain_id),
            "description": self.description,
        }
        if self.gas is not None:
            tx["gas"] = hex(self.gas)
        return tx


def sign_and_send(w3: Any, key: str, txs: Sequence[UnsignedTx], timeout_s: float = 60) -> list[str]:
    """What a wallet does with a builder's transactions: sign each with ``key`` at the next
    nonces, send them in order, and wait for every receipt; a reverted one raises
    ``ChainError`` naming it. The hashes, in order."""
    from eth_account import Account

    from backend.chain.exceptions import ChainError

    account = Account.from_key(key)
    nonce = w3.eth.get_transaction_count(account.address, "pending")
    fee = 2 * int(w3.eth.get_block("latest")["baseFeePerGas"]) + 10**9
    hashes = []
    for i, tx in enumerate(txs):
        if tx.from_.lower() != account.address.lower():
            raise ChainError(f"{tx.description} is for {tx.from_}, not the key's {account.address}")
        fields = {
            "to": tx.to,
            "data": tx.data,
            "value": tx.value,
            "chainId": tx.chain_id,
            "gas": tx.gas or 1_000_000,  # unset: built before an approval it needs was mined
            "nonce": nonce + i,
            "maxFeePerGas": fee,
            "maxPriorityFeePerGas": 10**9,
        }
        signed = account.sign_transaction(fields)
        hashes.append(w3.eth.send_raw_transaction(signed.raw_transaction).to_0x_hex())
    for tx, tx_hash in zip(txs, hashes, strict=True):
        if w3.eth.wait_for_transaction_receipt(tx_hash, timeout=timeout_s)["status"] != 1:
            raise ChainError(f"{tx.description}: transaction {tx_hash} reverted")
    return hashes


class TxBuilder:
    """Builds a user's own calls against one deployment, simulated first: a call the chain
    would revert never reaches the wallet. Subclasses name the errors their callers map to
    HTTP statuses: ``refused`` (the chain says no, with the decoded revert) and
    ``unavailable`` (the node did not answer)."""

    refused: ClassVar[type[Exception]]
    unavailable: ClassVar[type[Exception]]

    def __init__(self, contracts: Contracts) -> None:
        self.contracts = contracts
        self.w3 = contracts.w3
        self.chain_id = contracts.manifest.chain_id
        self._errors = _error_table()

    def _read(self, call: Any) -> Any:
        """A view call; a revert becomes ``refused``, an unreachable node ``unavailable``."""
        try:
            return call.call()
        except (ContractCustomError, ContractLogicError) as exc:
            raise self._refusal(decode_revert(exc.data, self._errors)) from exc
        except (Web3Exception, OSError) as exc:
            raise self.unavailable(f"the chain node did not answer: {exc}") from exc

    def _refusal(self, revert: str, description: str = "") -> Exception:
        """``refused`` for a decoded revert (``Name(arg=value, ...)``), naming the contract's
        error in its ``detail`` (``{"revert": "Name"}``): a client tells the player what to do
        by that name, which the ABI keeps stable, never by the English message."""
        error = self.refused(f"{description}: {revert}" if description else revert)
        name = revert.partition("(")[0]
        if isinstance(error, DewError) and name.isidentifier():
            error.detail = {"revert": name}
        return error

    def _block_time(self) -> int:
        """The latest block's timestamp (chain time); an unreachable node is ``unavailable``."""
        try:
            return int(self.w3.eth.get_block("latest")["timestamp"])
        except (Web3Exception, OSError) as exc:
            raise self.unavailable(f"the chain node did not answer: {exc}") from exc

    def _unsigned(
        self, sender: str, contract: Any, fn: str, args: list[Any], description: str
    ) -> UnsignedTx:
        return UnsignedTx(
            from_=sender,
            to=contract.address,
            data=contract.encode_abi(fn, args=args),
            value=0,
            chain_id=self.chain_id,
            description=description,
        )

    def _build(
        self, sender: str, contract: Any, fn: str, args: list[Any], description: str
    ) -> UnsignedTx:
        """The call, simulated from ``sender``; a revert becomes ``refused``."""
        tx = self._unsigned(sender, contract, fn, args, description)
        try:
            gas = self.w3.eth.estimate_gas({"from": sender, "to": tx.to, "data": HexStr(tx.data)})
        except (ContractCustomError, ContractLogicError) as exc:
            raise self._refusal(decode_revert(exc.data, self._errors), description) from exc
        except (Web3Exception, OSError) as exc:
            raise self.unavailable(f"{description}: the chain node did not answer: {exc}") from exc
        return replace(tx, gas=gas)

    def _pay_then(
        self, payer: str, spender: Any, amount: int, fn: str, args: list[Any], what: str
    ) -> list[UnsignedTx]:
        """A DEW ``approve`` of ``amount`` to ``spender`` if its allowance is short, then the
        call ``what`` that spends it (simulated when no approval has to be mined first); a
        wallet holding less than ``amount`` is ``refused`` before anything is built."""
        token = self.contracts.token
        have = int(self._read(token.functions.balanceOf(payer)))
        if have < amount:
            raise self.refused(f"{payer} holds {have} DEW wei, less than the {amount} to {what}")
        if int(self._read(token.functions.allowance(payer, spender.address))) >= amount:
            return [self._build(payer, spender, fn, args, what)]
        return [
            self._build(
                payer, token, "approve", [spender.address, amount], f"approve {amount} DEW wei"
            ),
            self._unsigned(payer, spender, fn, args, what),
        ]
