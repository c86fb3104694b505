"""Real server processes and WebSocket players for the live-play tests.

``ServerProcess`` runs ``uvicorn backend.api.app:create_app`` on a free port against the
given database (and Redis), exactly as ``dew serve`` would; ``Player`` is a WebSocket
client that records every message it receives.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
from eth_account import Account
from websockets.asyncio.client import ClientConnection, connect

from tests.accounts.signing import sign

REPO = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(predicate, timeout: float = 20.0, interval: float = 0.05, what: str = "condition"):  # type: ignore[no-untyped-def]
    """Poll ``predicate`` until it returns a truthy value or the deadline passes."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise TimeoutError(f"timed out after {timeout}s waiting for {what}")


class ServerProcess:
    def __init__(
        self,
        db_url: str,
        *,
        redis_url: str | None = None,
        extra_env: dict[str, str] | None = None,
        **server: Any,
    ) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.ws_url = f"ws://127.0.0.1:{self.port}"
        env = {k: v for k, v in os.environ.items() if not k.startswith("DEW_")}
        env["DEW_DB_URL"] = db_url
        env["DEW_CHAIN_MANIFEST_PATH"] = str(REPO / "var" / "no-such-manifest.json")
        if redis_url:
            env["DEW_SERVER_REDIS_URL"] = redis_url
            env["DEW_SERVER_REDIS_CHANNEL_PREFIX"] = server.pop("channel_prefix", "dewtest")
        for key, value in server.items():
            env[f"DEW_SERVER_{key.upper()}"] = str(value)
        # Settings of other concerns, by their full DEW_* name (e.g. DEW_AUTH_JWT_SECRET).
        env.update(extra_env or {})
        self.env = env
        self.log_path = Path(f"/tmp/dew-server-{self.port}.log")
        self.proc: subprocess.Popen[bytes] | None = None

    def command(self) -> list[str]:
        """How the server is launched: ``uvicorn`` on the app factory, as ``dew serve`` runs
        it. Tests that need another launcher (``dew serve`` itself, another log level)
        override this and nothing else."""
        command = [sys.executable, "-m", "uvicorn", "backend.api.app:create_app", "--factory"]
        return [*command, "--host", "127.0.0.1", "--port", str(self.port), "--log-level", "warning"]

    def start(self) -> ServerProcess:
        if self.proc is not None:
            raise RuntimeError("already started")
        with self.log_path.open("wb") as log:
            self.proc = subprocess.Popen(
                self.command(), cwd=REPO, env=self.env, stdout=log, stderr=subprocess.STDOUT
            )

        def up() -> bool:
            assert self.proc is not None
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited: {self.log_path.read_text()[-3000:]}")
            try:
                return httpx.get(self.url + "/health", timeout=1).status_code == 200
            except httpx.HTTPError:
                return False

        try:
            wait_for(up, timeout=90, what="server start")
        except BaseException:
            self.stop()  # ``with`` calls no __exit__ when __enter__ raises
            raise
        return self

    def kill(self) -> None:
        """SIGKILL: no shutdown handlers, no flushing: a crash."""
        if self.proc and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()

    def __enter__(self) -> ServerProcess:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def sign_in(base_url: str, account: Any | None = None) -> tuple[Any, str]:
    account = account or Account.create()
    with httpx.Client(base_url=base_url, timeout=10) as client:
        grant = client.post("/auth/nonce", json={"address": account.address}).json()
        message = grant["message"]
        tokens = client.post(
            "/auth/signin", json={"message": message, "signature": sign(account, message)}
        )
        tokens.raise_for_status()
        return account, tokens.json()["access_token"]


def api(base_url: str, token: str | None = None) -> httpx.Client:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx.Client(base_url=base_url, headers=headers, timeout=10)


class Player:
    """A WebSocket client for one seat (or a spectator) that keeps every message."""

    def __init__(self, ws_url: str, table_id: str, token: str | None) -> None:
        self.url = f"{ws_url}/ws/tables/{table_id}" + (f"?token={token}" if token else "")
        self.messages: list[dict[str, Any]] = []
        self.raw: list[str] = []
        self.ws: ClientConnection | None = None
        self.seat: int | None = None
        self.view: dict[str, Any] | None = None
        self.ply = 0
        self.over: dict[str, Any] | None = None
        self.acked: list[int] = []

    async def connect(self) -> Player:
        self.ws = await connect(self.url, max_size=2**22)
        first = await self.recv()
        assert first["type"] == "snapshot", first
        return self

    async def recv(self, timeout: float = 20.0) -> dict[str, Any]:
        assert self.ws is not None
        raw = await asyncio.wait_for(self.ws.recv(), timeout)
        assert isinstance(raw, str)
        self.raw.append(raw)
        message = json.loads(raw)
        self.messages.append(message)
        kind = message["type"]
        if kind == "snapshot":
            self.seat = message["you"]
            self.view = message["view"]
            self.ply = message["ply"]
            if message.get("final"):
                self.over = message["final"]
        elif kind == "moved":
            self.view = message["view"]
            self.ply = message["ply"]
        elif kind == "match_over":
            self.over = message
        return message

    async def send(self, message: dict[str, Any]) -> None:
        assert self.ws is not None
        await self.ws.send(json.dumps({"v": 1, **message}))

    async def send_raw(self, text: str | bytes) -> None:
        assert self.ws is not None
        await self.ws.send(text)

    def my_turn(self) -> bool:
        return bool(
            self.view
            and not self.over
            and self.view.get("turn") == self.seat
            and self.view.get("legal_moves")
        )

    async def play_until_over(self, *, stop_after_ply: int | None = None) -> None:
        """Answer every turn with the first legal move until the match ends (or the match
        reaches ``stop_after_ply``). Acknowledged plies are kept in ``self.acked``."""
        while not self.over:
            if stop_after_ply is not None and self.ply >= stop_after_ply:
                return
            if self.my_turn():
                assert self.view is not None
                await self.send(
                    {"type": "move", "move": self.view["legal_moves"][0], "ply": self.ply}
                )
                while True:
                    reply = await self.recv()
                    if reply["type"] in ("ack", "error"):
                        break
                if reply["type"] == "ack":
                    self.acked.append(reply["ply"])
                    # Our own move comes back as "moved" with the new view: wait for it.
                    while self.ply < reply["ply"] and not self.over:
                        await self.recv()
                    continue
                if reply["type"] == "error":
                    if reply["error"]["code"] == "stale_ply":
                        await self.send({"type": "resync"})
                        continue
                    tail = [
                        (m["type"], m.get("ply"), (m.get("view") or {}).get("turn"))
                        for m in self.messages[-6:]
                    ]
                    raise AssertionError(f"move refused: {reply} after {tail}")
            else:
                await self.recv()

    async def close(self) -> None:
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await self.ws.close()
