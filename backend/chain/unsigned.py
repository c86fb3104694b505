"""An unsigned transaction for a user's own wallet to sign, and the builder that makes and
pre-checks them: what the scholarship and the markets builders are
(``backend.economy.scholarships.transactions``, ``backend.markets.transactions``)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, ClassVar

from eth_typing import HexStr
from web3.exceptions import ContractCustomError, ContractLogicError, Web3Exception

from backend.chain.calls import _error_table, decode_revert
from backend.chain.contracts import Contracts


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
            raise self.refused(decode_revert(exc.data, self._errors)) from exc
        except (Web3Exception, OSError) as exc:
            raise self.unavailable(f"the chain node did not answer: {exc}") from exc

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
            raise self.refused(f"{description}: {decode_revert(exc.data, self._errors)}") from exc
        except (Web3Exception, OSError) as exc:
            raise self.unavailable(f"{description}: the chain node did not answer: {exc}") from exc
        return replace(tx, gas=gas)
