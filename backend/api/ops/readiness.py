"""Readiness: can this server serve? Each check is bounded by ``check_timeout_s``; all run
at once, so ``/ready`` answers within that (plus a little) whatever hangs.

Checks: the database (``SELECT 1``), Redis when configured (``PING``), the chain node
(``eth_blockNumber``), the manifest's contracts (code at every address), and the worker's
heartbeat (newer than ``heartbeat_stale_s``). Without a deployment manifest the chain
checks are skipped (the server then runs without the chain, like the embedded default)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine, create_engine, func, select, text
from sqlalchemy.pool import NullPool

from backend.chain.rpc import Rpc
from backend.config import Settings
from backend.db.base import aware, utcnow
from backend.ops.models import WorkerHeartbeat


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str
    seconds: float


def check_engine(settings: Settings) -> Engine:
    """A connection per check, never from (or waiting on) the server's own pool."""
    url = settings.db.url
    connect_args: dict[str, Any] = {}
    timeout = max(1, int(settings.ready.check_timeout_s))
    if url.startswith("postgresql"):
        connect_args["connect_timeout"] = timeout
    elif url.startswith("sqlite"):
        connect_args["timeout"] = timeout
    return create_engine(url, poolclass=NullPool, connect_args=connect_args)


class Readiness:
    def __init__(self, settings: Settings, engine: Engine | None = None) -> None:
        self.settings = settings
        self.engine = engine or check_engine(settings)
        self.timeout_s = settings.ready.check_timeout_s
        # Bounded: hung checks (a node that does not answer) occupy at most these threads.
        self._pool = ThreadPoolExecutor(max_workers=8, thread_name_prefix="dew-ready")
        self._lock = threading.Lock()
        self._cached: tuple[float, list[Check]] | None = None

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
        self.engine.dispose()

    # -- the checks ----------------------------------------------------------------------
    def _database(self) -> str:
        with self.engine.connect() as connection:
            connection.execute(text("SELECT 1"))
        return "ok"

    def _redis(self) -> str:
        import redis

        url = self.settings.server.redis_url
        assert url is not None
        client = redis.Redis.from_url(
            url, socket_timeout=self.timeout_s, socket_connect_timeout=self.timeout_s
        )
        try:
            client.ping()
        finally:
            client.close()
        return "ok"

    def _manifest(self) -> dict[str, Any] | None:
        try:
            manifest: dict[str, Any] = json.loads(self.settings.chain.manifest_path.read_text())
        except FileNotFoundError:
            return None
        return manifest

    def _node(self) -> str:
        with Rpc(self.settings.chain.rpc_url, timeout_s=self.timeout_s) as rpc:
            head = rpc.block_number()
            chain_id = int(rpc.call("eth_chainId"), 16)
        if chain_id != self.settings.chain.chain_id:
            raise RuntimeError(f"chain id {chain_id}, configured {self.settings.chain.chain_id}")
        return f"block {head}"

    def _contracts(self) -> str:
        manifest = self._manifest()
        assert manifest is not None
        addresses = dict(manifest.get("addresses") or {})
        if not addresses:
            raise RuntimeError("the manifest lists no contracts")
        with Rpc(self.settings.chain.rpc_url, timeout_s=self.timeout_s) as rpc:
            codes = rpc.batch([("eth_getCode", [a, "latest"]) for a in addresses.values()])
        missing = [n for n, c in zip(addresses, codes, strict=True) if c in (None, "0x", "")]
        if missing:
            raise RuntimeError(f"no code at {', '.join(sorted(missing))}")
        return f"{len(addresses)} contracts"

    def _worker(self) -> str:
        with self.engine.connect() as connection:
            newest = connection.execute(select(func.max(WorkerHeartbeat.beat_at))).scalar()
        if newest is None:
            raise RuntimeError("no worker heartbeat yet")
        if isinstance(newest, str):  # SQLite hands an aggregate back as text
            from datetime import datetime

            newest = datetime.fromisoformat(newest)
        age = (utcnow() - aware(newest)).total_seconds()
        if age > self.settings.ready.heartbeat_stale_s:
            raise RuntimeError(f"last heartbeat {age:.0f} s ago")
        return f"heartbeat {age:.1f} s ago"

    def _checks(self) -> dict[str, Callable[[], str]]:
        checks: dict[str, Callable[[], str]] = {"database": self._database}
        if self.settings.server.redis_url:
            checks["redis"] = self._redis
        if self.settings.chain.manifest_path.exists():
            checks["node"] = self._node
            checks["contracts"] = self._contracts
        if self.settings.ready.require_worker:
            checks["worker"] = self._worker
        return checks

    # -- running them --------------------------------------------------------------------
    def run(self) -> list[Check]:
        """Every check, each bounded by the timeout; cached ``cache_s`` for every caller."""
        # One caller runs the checks; the others answer from the last result rather than wait
        # on the lock, each holding a thread the routes need (a flood of /ready while a check
        # hangs on a dead node would otherwise stall the server).
        if not self._lock.acquire(blocking=False):
            if self._cached:
                return self._cached[1]
            self._lock.acquire()
        try:
            now = time.monotonic()
            if self._cached and now - self._cached[0] < self.settings.ready.cache_s:
                return self._cached[1]
            started = time.monotonic()
            futures = {
                name: self._pool.submit(self._timed, fn) for name, fn in self._checks().items()
            }
            deadline = started + self.timeout_s
            results: list[Check] = []
            for name, future in futures.items():
                try:
                    ok, detail, seconds = future.result(max(0.0, deadline - time.monotonic()))
                except FutureTimeout:
                    future.cancel()
                    ok, detail, seconds = (
                        False,
                        f"no answer within {self.timeout_s:g} s",
                        self.timeout_s,
                    )
                results.append(Check(name, ok, detail, seconds))
            self._cached = (time.monotonic(), results)
            return results
        finally:
            self._lock.release()

    @staticmethod
    def _timed(fn: Callable[[], str]) -> tuple[bool, str, float]:
        started = time.monotonic()
        try:
            return True, fn(), time.monotonic() - started
        except Exception as error:  # every failure is a failed check, with its reason
            text_ = str(error).splitlines()[0] if str(error) else type(error).__name__
            return False, f"{type(error).__name__}: {text_[:200]}", time.monotonic() - started


def as_json(checks: list[Check]) -> dict[str, Any]:
    return {
        "status": "ready" if all(c.ok for c in checks) else "not_ready",
        "failed": [c.name for c in checks if not c.ok],
        "checks": {
            c.name: {"ok": c.ok, "detail": c.detail, "seconds": round(c.seconds, 3)} for c in checks
        },
    }
