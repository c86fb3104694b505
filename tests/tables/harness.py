"""Real server processes and WebSocket players for the live-play tests.

``ServerProcess`` runs ``uvicorn backend.api.app:create_app`` on a free port against the
given database (and Redis), exactly as ``dew serve`` would, through the process harness
(``backend.devstack.stack``); ``sign_in`` and ``Player`` are the shared client's
(``backend.protocol.client``): a wallet's sign-in and an asyncio seat that records every
message it receives.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from eth_account import Account

from backend.devstack import stack
from backend.protocol.client import AsyncSeat, DewClient, DewClientError
from tests.accounts.signing import wallet_of

REPO = stack.REPO_ROOT
free_port = stack.free_port


def wait_for(
    predicate: Callable[[], Any],
    timeout: float = 20.0,
    interval: float = 0.05,
    what: str = "condition",
) -> Any:
    """Poll ``predicate`` until it returns a truthy value; TimeoutError at the deadline."""
    try:
        return stack.wait_for(what, predicate, timeout_s=timeout, every_s=interval)
    except stack.StackFailed as error:
        raise TimeoutError(str(error)) from None


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
        env = stack.clean_env(
            DEW_DB_URL=db_url,
            DEW_CHAIN_MANIFEST_PATH=str(REPO / "var" / "no-such-manifest.json"),
        )
        if redis_url:
            env["DEW_SERVER_REDIS_URL"] = redis_url
            env["DEW_SERVER_REDIS_CHANNEL_PREFIX"] = server.pop("channel_prefix", "dewtest")
        for key, value in server.items():
            env[f"DEW_SERVER_{key.upper()}"] = str(value)
        # Settings of other concerns, by their full DEW_* name (e.g. DEW_AUTH_JWT_SECRET).
        env.update(extra_env or {})
        self.env = env
        self.log_path = Path(f"/tmp/dew-server-{self.port}.log")
        self.service: stack.Service | None = None

    @property
    def proc(self) -> subprocess.Popen[bytes] | None:
        return self.service.process if self.service else None

    def command(self) -> list[str]:
        """How the server is launched: ``uvicorn`` on the app factory, as ``dew serve`` runs
        it. Tests that need another launcher (``dew serve`` itself, another log level)
        override this and nothing else."""
        return stack.uvicorn_command(self.port, "--log-level", "warning")

    def start(self) -> ServerProcess:
        if self.service is not None:
            raise RuntimeError("already started")
        self.log_path.write_bytes(b"")  # this run's log only (the service appends)
        self.service = stack.start_api(
            "server", self.command(), self.env, self.log_path, self.url, timeout_s=90
        )
        return self

    def kill(self) -> None:
        """SIGKILL: no shutdown handlers, no flushing: a crash."""
        if self.service and self.service.exited() is None:
            self.service.kill()

    def stop(self, timeout_s: float = 10) -> None:
        if self.service:
            stack.stop_service(self.service, timeout_s=timeout_s)

    def __enter__(self) -> ServerProcess:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def sign_in(base_url: str, account: Any | None = None) -> tuple[Any, str]:
    """Sign a wallet (a new one by default) in through the client: (account, access token)."""
    account = account or Account.create()
    with DewClient(base_url, timeout_s=10) as client:
        client.sign_in(wallet_of(account))
        assert client.token is not None
        return account, client.token


def api(base_url: str, token: str | None = None) -> httpx.Client:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx.Client(base_url=base_url, headers=headers, timeout=10)


class Player(AsyncSeat):
    """The client's asyncio seat for one seat (or a spectator), keeping every message, under
    the names these tests use: ``seat``, ``over``, ``messages``; ``send`` takes a whole
    message (hostile tests send what the protocol would refuse)."""

    def __init__(self, ws_url: str, table_id: str, token: str | None) -> None:
        super().__init__(f"{ws_url}/ws/tables/{table_id}" + (f"?token={token}" if token else ""))

    @property
    def seat(self) -> int | None:
        return self.you

    @property
    def over(self) -> dict[str, Any] | None:
        return self.final

    @property
    def messages(self) -> list[dict[str, Any]]:
        return self.received

    async def connect(self) -> Player:
        try:
            await self.open()
        except DewClientError as error:
            raise AssertionError(str(error)) from None
        return self

    async def recv(self, timeout: float = 20.0) -> dict[str, Any]:  # type: ignore[override]
        return await super().recv(timeout)

    async def send(self, message: dict[str, Any]) -> None:  # type: ignore[override]
        await self.send_message(message)

    async def play_until_over(self, *, stop_after_ply: int | None = None) -> None:  # type: ignore[override]
        """Answer every turn with the first legal move until the match ends (or the match
        reaches ``stop_after_ply``). Acknowledged plies are kept in ``self.acked``."""
        try:
            await super().play_until_over(stop_after_ply=stop_after_ply)
        except DewClientError as error:
            raise AssertionError(error.message) from None
