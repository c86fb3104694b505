"""A JSON-RPC proxy that fails or delays a share of requests, in front of a real node.

Failures come in two kinds: the request never reaches the node, or it does and the
answer is lost (the worst case for ``eth_sendRawTransaction``: sent, but the sender
cannot know). A seeded RNG makes a run reproducible.
"""

from __future__ import annotations

import json
import random
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx


class FlakyRpcProxy:
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
        self.upstream = upstream
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
        self._server: ThreadingHTTPServer | None = None

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

    def start(self) -> FlakyRpcProxy:
        proxy = self
        client = httpx.Client(timeout=30)

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                refusal = proxy._refusal(body)
                if refusal is not None:
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(refusal)))
                    self.end_headers()
                    self.wfile.write(refusal)
                    return
                if proxy._roll() < proxy.fail_before:
                    proxy._count("failed_before")
                    self.send_error(502, "proxy: dropped before the node")
                    return
                if proxy._roll() < proxy.delay_share:
                    proxy._count("delayed")
                    time.sleep(proxy.delay_s)
                answer = client.post(
                    proxy.upstream, content=body, headers={"Content-Type": "application/json"}
                )
                proxy._count("forwarded")
                if proxy._roll() < proxy.fail_after:
                    proxy._count("failed_after")
                    self.send_error(502, "proxy: the node's answer was lost")
                    return
                self.send_response(answer.status_code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(answer.content)))
                self.end_headers()
                self.wfile.write(answer.content)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def __enter__(self) -> FlakyRpcProxy:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
