"""A JSON-RPC proxy that fails or delays a share of requests, in front of a real node.

Failures come in two kinds: the request never reaches the node, or it does and the
answer is lost (the worst case for ``eth_sendRawTransaction``: sent, but the sender
cannot know). A seeded RNG makes a run reproducible. The forwarding itself is the stack's
``RpcGate``; this proxy only decides what becomes of each request.
"""

from __future__ import annotations

import json
import random
import threading
import time

from backend.devstack.services import RpcGate


class FlakyRpcProxy(RpcGate):
    def __init__(
        self,
        upstream: str,
        *,
        fail_before: float = 0.1,
        fail_after: float = 0.1,
        delay_share: float = 0.2,
        delay_s: float = 0.3,
        seed: int = 7,
        refuse_sends: int = 0,
    ):
        super().__init__(upstream)
        self.fail_before = fail_before
        self.fail_after = fail_after
        self.delay_share = delay_share
        self.delay_s = delay_s
        self.random = random.Random(seed)
        # The first ``refuse_sends`` eth_sendRawTransaction calls get a node-style refusal.
        self.refuse_sends = refuse_sends
        self.lock = threading.Lock()
        self.counts = {
            "forwarded": 0,
            "failed_before": 0,
            "failed_after": 0,
            "delayed": 0,
            "refused": 0,
        }

    def _roll(self) -> float:
        with self.lock:
            return self.random.random()

    def _count(self, what: str) -> None:
        with self.lock:
            self.counts[what] += 1

    def _refusal(self, body: bytes) -> bytes | None:
        try:
            request = json.loads(body)
        except ValueError:
            return None
        if not isinstance(request, dict) or request.get("method") != "eth_sendRawTransaction":
            return None
        with self.lock:
            if self.counts["refused"] >= self.refuse_sends:
                return None
            self.counts["refused"] += 1
        error = {"code": -32003, "message": "transaction rejected: sender policy"}
        return json.dumps({"jsonrpc": "2.0", "id": request.get("id"), "error": error}).encode()

    def answer(self, body: bytes) -> tuple[int, bytes] | None:
        refusal = self._refusal(body)
        if refusal is not None:
            return 200, refusal
        if self._roll() < self.fail_before:
            self._count("failed_before")
            return 502, b"proxy: dropped before the node"
        if self._roll() < self.delay_share:
            self._count("delayed")
            time.sleep(self.delay_s)  # the injected latency itself, not a wait for a condition
        status, content = self.forward(body)
        self._count("forwarded")
        if self._roll() < self.fail_after:
            self._count("failed_after")
            return 502, b"proxy: the node's answer was lost"
        return status, content
