"""The process harness: the docker-compose topology as local processes.

The one place that starts the processes of a multi-process run (``dew demo``, ``dew stack``,
``scripts/chaos.py``, the tests). Its pieces live in ``backend.devstack.services`` and are
importable from here: a ``Service`` (one subprocess in its own process group, its output in a
log file), a private PostgreSQL and Redis, and a gate in front of the chain's RPC that can be
cut; anvil itself starts through ``backend.devstack.anvil``.
``Stack`` starts what ``docker-compose.yml`` describes:

    anvil (1 s blocks) -> deploy -> migrate -> api-1, api-2 -> worker-1, worker-2 -> beat

Its steps (``start_stores``, ``start_chain``, ``migrate``, ``start_services``) can also be
called one by one, as the demo does to tell its story between them. Every child is stopped
when the stack stops, on errors too. Nothing here touches the machine's own PostgreSQL or
Redis unless ``db_url``/``redis_url`` (or ``broker_url``/``pubsub_url``) point at them.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from backend.devstack.services import REPO_ROOT as REPO_ROOT
from backend.devstack.services import LocalPostgres as LocalPostgres
from backend.devstack.services import LocalRedis as LocalRedis
from backend.devstack.services import RpcGate as RpcGate
from backend.devstack.services import Service as Service
from backend.devstack.services import StackFailed as StackFailed
from backend.devstack.services import free_port as free_port
from backend.devstack.services import wait_for as wait_for

if TYPE_CHECKING:
    from backend.devstack.anvil import Anvil

BLOCK_TIME_S = 1

Out = Callable[[str], None]

# How often the services poll, pump and plan: fast, as a test or a demo wants, not as
# production does. A run that wants other values passes its own ``StackConfig.timings``.
STACK_TIMINGS = {
    "DEW_BROKER_PUMP_EVERY_S": "1",
    "DEW_CHAIN_POLL_INTERVAL_S": "0.2",
    "DEW_CHAIN_REBROADCAST_AFTER_S": "3",
    "DEW_ECONOMY_SETTLE_EVERY_S": "1",
    "DEW_ECONOMY_INDEX_EVERY_S": "1",
    "DEW_COMPETITIONS_ADVANCE_EVERY_S": "1",
    "DEW_SERVER_ADOPT_STARTED_EVERY_S": "0.5",
}


# The terms a stack's wallets accept (as production must have some: backend/config.py refuses
# to run without them outside development); a stand-in document for a local run.
STACK_TERMS = {"DEW_TERMS_VERSION": "stack-1", "DEW_TERMS_URI": "https://dew.example/terms"}


def dew_command() -> list[str]:
    script = Path(sys.executable).parent / "dew"
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "from backend.cli import app; app()"]


@dataclass
class StackConfig:
    workdir: Path
    apis: int = 2
    workers: int = 2
    beat: bool = True
    db_url: str | None = None  # None: a private PostgreSQL in workdir
    redis_url: str | None = None  # redis://host:port, None: a private redis-server (if needed)
    rpc_gate: bool = False  # services reach anvil through an RpcGate (chaos cuts it)
    accounts: int = 10  # anvil's funded dev accounts: deployer, operator, then players
    extra_env: dict[str, str] = field(default_factory=dict)
    out: Out = print
    broker_url: str | None = None  # None: db 0 of the stack's Redis
    pubsub: bool = True  # the API processes share live matches through Redis pub/sub
    pubsub_url: str | None = None  # None: db 1 of the stack's Redis
    channel_prefix: str | None = None  # of the pub/sub channels; None: a fresh one
    timings: dict[str, str] = field(default_factory=lambda: dict(STACK_TIMINGS))

    @property
    def needs_redis(self) -> bool:
        """Whether some URL is left to the stack's Redis (then a private one, without
        ``redis_url``)."""
        return self.broker_url is None or (self.pubsub and self.pubsub_url is None)


class Stack:
    """The compose topology as local processes; a context manager that stops everything."""

    def __init__(self, config: StackConfig) -> None:
        self.config, self.out = config, config.out
        self.postgres: LocalPostgres | None = None
        self.redis: LocalRedis | None = None
        self.gate: RpcGate | None = None
        self.anvil: Anvil | None = None
        self.services: dict[str, Service] = {}
        self.api_urls: list[str] = []
        self._cleanup = contextlib.ExitStack()

    def __enter__(self) -> Stack:
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *_exc: object) -> None:
        self.stop()

    # -- start ----------------------------------------------------------------------------
    def start(self) -> None:
        self.start_stores()
        self.start_chain()
        self.migrate()
        self.start_services()

    def start_stores(self) -> None:
        """The database and Redis: the configured ones, or private ones in the workdir."""
        config, out = self.config, self.out
        config.workdir.mkdir(parents=True, exist_ok=True)
        if config.db_url is None:
            self.postgres = LocalPostgres(config.workdir / "postgres")
            self._cleanup.callback(self.postgres.stop)
            self.postgres.start()
        self.db_url = config.db_url or (self.postgres.url if self.postgres else "")
        if config.redis_url is None and config.needs_redis:
            self.redis = LocalRedis(config.workdir)
            self._cleanup.callback(lambda: self.redis.stop() if self.redis else None)
            self.redis.start()
        redis_base = (config.redis_url or (self.redis.url if self.redis else "")).rstrip("/")
        self.broker_url = config.broker_url or f"{redis_base}/0"
        self.pubsub_url = (config.pubsub_url or f"{redis_base}/1") if config.pubsub else None
        stores = f"database {self.db_url.split('@')[-1]}, broker {self.broker_url.split('@')[-1]}"
        out(f"  {stores}" + (f", pub/sub {self.pubsub_url}" if self.pubsub_url else ""))

    def start_chain(self) -> None:
        """Anvil, the contracts deployed on instant mining, then a block every second."""
        from eth_account import Account
        from web3 import Web3
        from web3.types import RPCEndpoint

        from backend.chain.contracts import Contracts, save_manifest
        from backend.chain.deploy import deploy_all
        from backend.devstack.anvil import Anvil

        self.anvil = anvil = Anvil(accounts=self.config.accounts)
        self._cleanup.callback(anvil.stop)
        anvil.start()
        self.w3 = w3 = Web3(Web3.HTTPProvider(anvil.rpc_url, request_kwargs={"timeout": 10}))
        self.deployer_key, self.operator_key, *self.player_keys = anvil.keys
        self.operator = Account.from_key(self.operator_key).address
        self.manifest = deploy_all(w3, self.deployer_key, operator=self.operator)
        self.manifest_path = save_manifest(self.manifest, self.config.workdir / "deployment.json")
        self.contracts = Contracts(w3, self.manifest)
        w3.provider.make_request(RPCEndpoint("evm_setIntervalMining"), [BLOCK_TIME_S])
        self.node_url = self.rpc_url = anvil.rpc_url  # node_url: never through the gate
        if self.config.rpc_gate:
            self.gate = RpcGate(anvil.rpc_url).start()
            self._cleanup.callback(self.gate.stop)
            self.rpc_url = self.gate.url
        self.out(
            f"  anvil {anvil.rpc_url} ({BLOCK_TIME_S} s blocks), services use {self.rpc_url};"
            f" manifest {self.manifest_path}"
        )

    def migrate(self) -> None:
        from backend.db import migrate

        migrate(self.db_url)
        self.out("  migrated the database")

    def _env(self) -> dict[str, str]:
        config, suffix = self.config, secrets.token_hex(4)
        env = {k: v for k, v in os.environ.items() if not k.startswith("DEW_")}
        env.update(
            {
                "DEW_DB_URL": self.db_url,
                "DEW_BROKER_URL": self.broker_url,
                "DEW_BROKER_PAYOUTS_QUEUE": f"payouts-{suffix}",
                "DEW_BROKER_DEFAULT_QUEUE": f"dew-{suffix}",
                "DEW_CHAIN_RPC_URL": self.rpc_url,
                "DEW_CHAIN_MANIFEST_PATH": str(self.manifest_path),
                "DEW_CHAIN_OPERATOR_KEY": self.operator_key,
                # Every API process signs and checks tokens with the same secret.
                "DEW_AUTH_JWT_SECRET": secrets.token_hex(32),
            }
        )
        if self.pubsub_url:
            env["DEW_SERVER_REDIS_URL"] = self.pubsub_url
            env["DEW_SERVER_REDIS_CHANNEL_PREFIX"] = config.channel_prefix or f"dew-stack-{suffix}"
        env.update(STACK_TERMS)
        env.update(config.timings)
        env.update(config.extra_env)
        return env

    def start_services(self) -> None:
        """The API processes, the workers and beat; returns once every API answers."""
        config, dew, logs = self.config, dew_command(), self.config.workdir
        self.env = self._env()
        ports = [free_port() for _ in range(config.apis)]
        # One SIWE domain for every replica (behind nginx they share one public address).
        self.env.setdefault("DEW_AUTH_DOMAIN", f"127.0.0.1:{ports[0]}")
        self.env.setdefault("DEW_AUTH_URI", f"http://127.0.0.1:{ports[0]}")
        for i, port in enumerate(ports, 1):
            args = [*dew, "serve", "--no-migrate", "--port", str(port), "--log-level", "warning"]
            self._add(Service(f"api-{i}", args, self.env, logs / f"api-{i}.log"))
            self.api_urls.append(f"http://127.0.0.1:{port}")
        queues = f"{self.env['DEW_BROKER_PAYOUTS_QUEUE']},{self.env['DEW_BROKER_DEFAULT_QUEUE']}"
        celery = [sys.executable, "-m", "celery", "-A", "worker.celery_app"]
        for i in range(1, config.workers + 1):
            args = [*celery, "worker", "--pool=solo", "--concurrency=1", "--loglevel=WARNING"]
            args += ["-n", f"worker-{i}@%h", "-Q", queues]
            self._add(Service(f"worker-{i}", args, self.env, logs / f"worker-{i}.log"))
        if config.beat:
            args = [*celery, "beat", "--loglevel=WARNING", "-s", str(logs / "beat-schedule")]
            self._add(Service("beat", args, self.env, logs / "beat.log"))
        wait_for("the API processes", self._apis_up, timeout_s=120, every_s=0.3)

    def _add(self, service: Service) -> None:
        self.services[service.name] = service

    def _apis_up(self) -> bool:
        for service in self.services.values():
            service.check_alive()
        return all(self.api_up(url) for url in self.api_urls)

    # -- faults and supervision -------------------------------------------------------------
    def kill(self, name: str) -> None:
        self.services[name].kill()

    def restart(
        self, name: str, env: dict[str, str] | None = None, *, log_as: str | None = None
    ) -> Service:
        """Stop ``name`` (if it still runs) and start it afresh, with ``env`` if given; with
        ``log_as`` the new process is called that and logs to ``<log_as>.log`` (spaces as
        dashes), so each incarnation keeps its own log."""
        old = self.services[name]
        old.stop()  # a dead one too: what is left of its group goes, its log is closed
        log = self.config.workdir / f"{log_as.replace(' ', '-')}.log" if log_as else None
        self.services[name] = old.respawn(env, name=log_as, log=log)
        return self.services[name]

    def api_up(self, url: str) -> bool:
        import httpx

        try:
            return httpx.get(f"{url}/health", timeout=2).status_code == 200
        except httpx.HTTPError:
            return False

    # -- stop -----------------------------------------------------------------------------
    def stop(self) -> None:
        for service in reversed(list(self.services.values())):
            with contextlib.suppress(Exception):
                service.stop()
        self.services.clear()
        self._cleanup.close()


@contextlib.contextmanager
def running_stack(config: StackConfig) -> Iterator[Stack]:
    stack = Stack(config)
    with stack:
        yield stack


# --- for tests and benchmarks (h23-harness) ---------------------------------------------------
# The same processes, one at a time: the tests' servers and workers, the benchmarks' servers.


def clean_env(**dew: str) -> dict[str, str]:
    """This process's environment without any ``DEW_*`` setting, plus ``dew`` (full names):
    a child configured by what its caller says and nothing the shell happened to export."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEW_")}
    env.update(dew)
    return env


def uvicorn_command(port: int, *options: str, python: tuple[str, ...] = ()) -> list[str]:
    """``uvicorn`` on the app factory, as ``dew serve`` runs it; ``python`` goes between the
    interpreter and ``-m uvicorn`` (e.g. ``("-m", "cProfile", "-o", path)``)."""
    app_factory = ["-m", "uvicorn", "backend.api.app:create_app", "--factory"]
    where = ["--host", "127.0.0.1", "--port", str(port)]
    return [sys.executable, *python, *app_factory, *where, *options]


def serve_command(port: int, *options: str) -> list[str]:
    """``dew serve`` on ``port`` (``--workers``, ``--log-level``, ``--no-migrate`` as given)."""
    return [*dew_command(), "serve", "--host", "127.0.0.1", "--port", str(port), *options]


def celery_command(*args: str) -> list[str]:
    """``celery -A worker.celery_app`` with ``args`` (``worker ...`` or ``beat ...``)."""
    return [sys.executable, "-m", "celery", "-A", "worker.celery_app", *args]


def healthy(url: str, timeout_s: float = 2) -> bool:
    """Whether ``url``/health answers 200 now (plain ``http.client``: a poll costs the caller
    next to no CPU, which a benchmark sharing the machine would count)."""
    import http.client
    from urllib.parse import urlsplit

    where = urlsplit(url)
    connection = http.client.HTTPConnection(where.hostname or "", where.port, timeout=timeout_s)
    try:
        connection.request("GET", f"{where.path.rstrip('/')}/health")
        return connection.getresponse().status == 200
    except (OSError, http.client.HTTPException):
        return False
    finally:
        connection.close()


def start_api(
    name: str,
    args: list[str],
    env: dict[str, str],
    log: Path,
    url: str,
    timeout_s: float = 90,
    every_s: float = 0.1,
) -> Service:
    """Start an API process and wait until ``url``/health answers; if it dies or does not
    answer in time, it is stopped and StackFailed (with its log's tail) raised."""
    service = Service(name, args, env, log)

    def up() -> bool:
        service.check_alive()
        return healthy(url, timeout_s=1)

    try:
        wait_for(f"{name} at {url}", up, timeout_s=timeout_s, every_s=every_s)
    except BaseException:
        service.stop()
        raise
    return service


def stop_service(service: Service, sig: int = signal.SIGTERM, timeout_s: float = 15) -> None:
    """Send ``sig`` to the service's own process (not its group: ``dew serve --workers`` and
    uvicorn stop their children themselves), give it ``timeout_s``, then SIGKILL the group:
    whatever is left of it goes too."""
    if service.exited() is None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(service.pid, sig)
        try:
            service.process.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            service.kill()
    service.stop()  # the group's leftovers, and the log file
