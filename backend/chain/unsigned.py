"""An unsigned transaction for a user's own wallet to sign: what the scholarship and the
markets builders return (``backend.economy.transactions``, ``backend.markets.transactions``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


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
