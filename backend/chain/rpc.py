"""A small JSON-RPC client with batching and named errors, for the transaction engine.

web3.py's provider raises generic errors and hides which call of a batch failed;
the engine needs both the error message of each call (``nonce too low``,
``already known`` ...) and cheap batches of receipt lookups.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import httpx

from backend.chain.exceptions import RpcError, RpcUnavailable
from backend.ops.metrics import RPC_ERRORS


class Rpc:
    def __init__(self, url: str, *, timeout_s: float = 10.0):
        self.url = url
        self._client = httpx.Client(timeout=timeout_s)
        self._ids = itertools.count(1)

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> Rpc:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _post(self, body: Any) -> Any:
        try:
            response = self._client.post(self.url, json=body)
        except httpx.HTTPError as exc:
            RPC_ERRORS.labels("unavailable").inc()
            raise RpcUnavailable(f"{self.url}: {exc!r}") from exc
        if response.status_code != 200:
            RPC_ERRORS.labels("unavailable").inc()
            raise RpcUnavailable(f"{self.url}: HTTP {response.status_code}")
        try:
            return response.json()
        except ValueError as exc:
            raise RpcUnavailable(f"{self.url}: not JSON: {response.text[:200]!r}") from exc

    @staticmethod
    def _unwrap(method: str, reply: Any) -> Any:
        if not isinstance(reply, dict):
            raise RpcUnavailable(f"{method}: malformed reply {reply!r}")
        if reply.get("error") is not None:
            RPC_ERRORS.labels("error").inc()
            error = reply["error"]
            raise RpcError(method, error.get("code"), str(error.get("message")), error.get("data"))
        if "result" not in reply:
            raise RpcUnavailable(f"{method}: reply without result {reply!r}")
        return reply["result"]

    def call(self, method: str, *params: Any) -> Any:
        body = {"jsonrpc": "2.0", "id": next(self._ids), "method": method, "params": list(params)}
        return self._unwrap(method, self._post(body))

    def batch(self, calls: Sequence[tuple[str, Sequence[Any]]]) -> list[Any | RpcError]:
        """Results in call order; a call the node refused comes back as its ``RpcError``."""
        if not calls:
            return []
        ids = [next(self._ids) for _ in calls]
        body = [
            {"jsonrpc": "2.0", "id": i, "method": m, "params": list(p)}
            for i, (m, p) in zip(ids, calls, strict=True)
        ]
        replies = self._post(body)
        if not isinstance(replies, list):
            raise RpcUnavailable(f"batch of {len(calls)}: malformed reply {str(replies)[:200]!r}")
        by_id = {r.get("id"): r for r in replies if isinstance(r, dict)}
        out: list[Any | RpcError] = []
        for i, (method, _params) in zip(ids, calls, strict=True):
            if i not in by_id:
                raise RpcUnavailable(f"batch reply lacks {method} (id {i})")
            try:
                out.append(self._unwrap(method, by_id[i]))
            except RpcError as exc:
                out.append(exc)
        return out

    # Typed helpers for the calls the engine makes.
    def block_number(self) -> int:
        return int(self.call("eth_blockNumber"), 16)

    def nonce(self, address: str, block: str | int = "latest") -> int:
        tag = hex(block) if isinstance(block, int) else block
        return int(self.call("eth_getTransactionCount", address, tag), 16)

    def send_raw(self, raw: bytes) -> str:
        tx_hash: str = self.call("eth_sendRawTransaction", "0x" + raw.hex())
        return tx_hash
