"""A minimal real contract for engine-mechanics tests: it logs its calldata (LOG0) and stops.

The engine's nonce, crash, drop and reorg handling does not depend on what the
call does, so these tests run against this 8-byte contract on a real anvil; the
contract-specific tests use the real MatchSettlement and AvatarNFT.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from backend.chain.models import RequestKind
from backend.chain.rpc import Rpc

# init: CODECOPY the 8-byte runtime to memory and RETURN it.
# runtime: CALLDATACOPY(0, 0, size); LOG0(0, size); STOP
ECHO_INIT = bytes.fromhex("6008600a5f3960085ff3" + "365f5f37365fa000")


def deploy_echo(rpc: Rpc, sender: str) -> str:
    tx_hash = rpc.call("eth_sendTransaction", {"from": sender, "data": "0x" + ECHO_INIT.hex()})
    rpc.call("evm_mine")
    receipt = rpc.call("eth_getTransactionReceipt", tx_hash)
    return receipt["contractAddress"]


class EchoCalls:
    """Each request is a JSON payload; the receipt's LOG0 data gives it back."""

    def __init__(self, address: str):
        self.address = address

    def to_address(self, kind: RequestKind) -> str:
        return self.address

    def base_gas(self, kind: RequestKind) -> int:
        return 40_000

    def gas_for(self, kind: RequestKind, payload: dict[str, Any]) -> int:
        return 2_000 + 30 * len(json.dumps(payload))

    def encode(self, kind: RequestKind, payloads: Sequence[dict[str, Any]]) -> bytes:
        return json.dumps({"kind": str(kind), "payloads": list(payloads)}).encode()

    def effects(
        self, kind: RequestKind, receipt: dict[str, Any], payloads: Sequence[dict[str, Any]]
    ) -> list[dict[str, Any]]:
        (log,) = receipt["logs"]
        echoed = json.loads(bytes.fromhex(log["data"][2:]))
        assert echoed["payloads"] == list(payloads)
        return [{"echoed": True} for _ in payloads]

    def decode_error(self, data: Any) -> str:
        return f"revert data {data!r}"
