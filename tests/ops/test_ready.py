"""``/ready`` on real processes: a server, a Celery worker, PostgreSQL behind a TCP proxy
and an anvil (behind another) with the contracts deployed. It fails within 5 s of the
database, the node or the worker going away, and recovers once they are back."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from sqlalchemy.engine import make_url
from web3 import Web3

from backend.chain.contracts import save_manifest
from backend.chain.deploy import (
    MAX_SETTLE_MATCHES,
    MAX_SETTLE_PER_MATCH,
    MAX_SETTLE_PERIOD_LIMIT,
    DeployConfig,
    deploy_all,
)
from backend.devstack.anvil import Anvil
from tests.fixtures.harness import ServerProcess, free_port, wait_for
from tests.fixtures.redis import REDIS_URL
from tests.fixtures.workers import WorkerProcess
from tests.ops.serve import scrape
from tests.ops.tcp_proxy import TcpProxy

pytestmark = pytest.mark.timeout(420)
LIMIT_S = 5.0


def _ready(url: str) -> tuple[int, dict, float]:
    started = time.monotonic()
    response = httpx.get(url + "/ready", timeout=10)
    return response.status_code, response.json(), time.monotonic() - started


def _fails_within(url: str, check: str, since: float) -> float:
    """Poll /ready until it answers 503 naming ``check``; returns the seconds since ``since``.
    Every answer must itself come within the limit."""
    while True:
        status, body, took = _ready(url)
        assert took < LIMIT_S, f"/ready took {took:.1f} s"
        if status == 503 and check in body["failed"]:
            return time.monotonic() - since
        assert time.monotonic() - since < 30, f"/ready never failed on {check}: {body}"
        time.sleep(0.1)


def _recovers(url: str) -> dict:
    def ready() -> dict | None:
        status, body, _ = _ready(url)
        return body if status == 200 else None

    return wait_for(ready, timeout=60, interval=0.2, what="/ready to recover")


@pytest.fixture
def stack(pg_url: str, tmp_path: Path) -> Iterator[dict]:
    pg = make_url(pg_url)
    db_proxy = TcpProxy((pg.host or "127.0.0.1", pg.port or 5432)).start()
    db_url = pg.set(host="127.0.0.1", port=db_proxy.port).render_as_string(hide_password=False)
    state = tmp_path / "anvil-state.json"
    node = Anvil(dump_state=state).start()
    w3 = Web3(Web3.HTTPProvider(node.rpc_url))
    deployer_key, operator_key, *_ = node.keys
    manifest = deploy_all(
        w3,
        deployer_key,
        operator=w3.eth.account.from_key(operator_key).address,
        config=DeployConfig(
            settle_period_limit=MAX_SETTLE_PERIOD_LIMIT,
            settle_max_per_match=MAX_SETTLE_PER_MATCH,
            settle_max_matches=MAX_SETTLE_MATCHES,
        ),
    )
    manifest_path = save_manifest(manifest, tmp_path / "deployment.json")
    node_proxy = TcpProxy(("127.0.0.1", node.port)).start()
    suffix = uuid.uuid4().hex[:8]
    worker_metrics = free_port()
    common = {
        "DEW_DB_URL": db_url,
        "DEW_CHAIN_RPC_URL": f"http://127.0.0.1:{node_proxy.port}",
        "DEW_CHAIN_MANIFEST_PATH": str(manifest_path),
        "DEW_CHAIN_OPERATOR_KEY": operator_key,
        "DEW_BROKER_URL": REDIS_URL,
        "DEW_BROKER_PAYOUTS_QUEUE": f"payouts-{suffix}",
        "DEW_BROKER_DEFAULT_QUEUE": f"dew-{suffix}",
        "DEW_READY_HEARTBEAT_EVERY_S": "1",
        "DEW_READY_HEARTBEAT_STALE_S": "3",
        "DEW_READY_CHECK_TIMEOUT_S": "2",
        "DEW_METRICS_WORKER_PORT": str(worker_metrics),
    }
    server = ServerProcess(
        db_url,
        redis_url=REDIS_URL,
        channel_prefix=f"dewready{suffix}",
        extra_env=common,
    )
    worker = WorkerProcess(common, tmp_path / "worker.log")
    parts = {
        "server": server,
        "worker": worker,
        "db_proxy": db_proxy,
        "node_proxy": node_proxy,
        "node": node,
        "state": state,
        "worker_metrics": f"http://127.0.0.1:{worker_metrics}",
    }
    try:
        server.start()
        worker.start()
        yield parts
    finally:
        parts["worker"].stop()
        server.stop()
        db_proxy.stop()
        node_proxy.stop()
        parts["node"].stop()


def test_ready_fails_within_5_s_of_a_part_going_away_and_recovers(stack: dict) -> None:
    url = stack["server"].url
    body = _recovers(url)
    assert set(body["checks"]) == {"database", "redis", "node", "contracts", "worker"}

    # The worker reports its own metrics (Celery task outcomes) on its port.
    def pumped() -> bool:
        try:
            samples = scrape(stack["worker_metrics"])
        except httpx.HTTPError:
            return False
        return any(k.startswith("dew_celery_tasks_total{") for k in samples)

    wait_for(pumped, timeout=60, interval=0.5, what="the worker's task metrics")

    # 1. The database goes away (every connection cut, new ones refused), then comes back.
    cut = time.monotonic()
    stack["db_proxy"].cut()
    took = _fails_within(url, "database", cut)
    print(f"/ready failed on database {took:.2f} s after it went away")
    assert took <= LIMIT_S
    stack["db_proxy"].restore()
    _recovers(url)

    # 2. The node stops (its state dumped), then a new one starts from that state.
    node: Anvil = stack["node"]
    cut = time.monotonic()
    node.stop()
    took = _fails_within(url, "node", cut)
    print(f"/ready failed on node {took:.2f} s after it went away")
    assert took <= LIMIT_S
    stack["node"] = node = Anvil(load_state=stack["state"], dump_state=stack["state"]).start()
    stack["node_proxy"].restore(("127.0.0.1", node.port))
    body = _recovers(url)
    assert body["checks"]["contracts"]["ok"], "the contracts are back with the node's state"

    # 3. The worker is killed (no goodbye), then a new one starts.
    worker: WorkerProcess = stack["worker"]
    cut = time.monotonic()
    assert worker.process is not None
    worker.process.kill()
    worker.process.wait(10)
    took = _fails_within(url, "worker", cut)
    print(f"/ready failed on worker {took:.2f} s after it went away")
    assert took <= LIMIT_S
    stack["worker"] = WorkerProcess(worker.env, worker.log_path).start()
    _recovers(url)
