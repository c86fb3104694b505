"""The worker's heartbeat: a thread in each Celery worker that rewrites its row every
``DEW_READY_HEARTBEAT_EVERY_S``, with the chain head and the vault's window as it last read
them (a node that is down leaves those as they were; the beat itself goes on)."""

from __future__ import annotations

import logging
import os
import threading
from pathlib import Path
from typing import Any

from eth_utils.crypto import keccak
from sqlalchemy import Engine, update
from sqlalchemy.orm import sessionmaker

from backend.chain.rpc import Rpc
from backend.config import Settings
from backend.db.base import utcnow
from backend.ops.models import WorkerHeartbeat

log = logging.getLogger(__name__)

OUTFLOW = "0x" + keccak(text="outflow()")[:4].hex()
LIMITS = "0x" + keccak(text="limits()")[:4].hex()


def vault_address(manifest_path: Path) -> str | None:
    """MatchSettlement's address from the manifest, or None without a deployment."""
    import json

    try:
        data = json.loads(manifest_path.read_text())
        address = data["addresses"]["MatchSettlement"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return address if isinstance(address, str) else None


def read_chain(rpc: Rpc, vault: str | None) -> dict[str, Any]:
    """The head block and, with a vault, its window: available and limit (wei)."""
    calls: list[tuple[str, list[Any]]] = [("eth_blockNumber", [])]
    if vault:
        calls += [
            ("eth_call", [{"to": vault, "data": OUTFLOW}, "latest"]),
            ("eth_call", [{"to": vault, "data": LIMITS}, "latest"]),
        ]
    results = rpc.batch(calls)
    out: dict[str, Any] = {}
    if isinstance(results[0], str):
        out["chain_head"] = int(results[0], 16)
    outflow = results[1] if vault else None
    if isinstance(outflow, str) and len(outflow) >= 2 + 64 * 3:
        words = outflow[2:]
        out["vault_available"] = str(int(words[128:192], 16))
        limits = results[2]
        if isinstance(limits, str) and len(limits) >= 2 + 64:
            out["vault_limit"] = str(int(limits[2:66], 16))
    return out


def beat(sessions: sessionmaker[Any], worker: str, chain: dict[str, Any]) -> None:
    now = utcnow()
    values: dict[str, Any] = {"pid": os.getpid(), "beat_at": now}
    if chain:
        values.update(chain, chain_read_at=now)
    with sessions.begin() as session:
        updated = session.execute(
            update(WorkerHeartbeat).where(WorkerHeartbeat.worker == worker).values(**values)
        ).rowcount
        if not updated:
            session.add(WorkerHeartbeat(worker=worker, **values))


class Heartbeat:
    """Runs :func:`beat` every ``every_s`` in a daemon thread until :meth:`stop`."""

    def __init__(self, settings: Settings, engine: Engine, worker: str) -> None:
        from backend.db import make_session_factory

        self.settings = settings
        self.sessions = make_session_factory(engine)
        self.worker = worker[:200]
        self.every_s = settings.ready.heartbeat_every_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="dew-heartbeat", daemon=True)
        self._rpc = Rpc(settings.chain.rpc_url, timeout_s=min(2.0, self.every_s))

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self._rpc.close()

    def _run(self) -> None:
        while not self._stop.is_set():
            chain: dict[str, Any] = {}
            vault = vault_address(self.settings.chain.manifest_path)
            try:
                chain = read_chain(self._rpc, vault)
            except Exception as error:  # the node may be down: the worker is still alive
                log.debug("heartbeat could not read the chain: %r", error)
            try:
                beat(self.sessions, self.worker, chain)
            except Exception:
                log.warning("heartbeat not written", exc_info=True)
            self._stop.wait(self.every_s)
