"""The process harness: the docker-compose topology as local processes, and `dew stack`.

One module holds the pieces every multi-process run needs (``dew demo``, ``dew stack``,
``scripts/chaos.py``): a ``Service`` (one subprocess in its own process group, its output in
a log file), a private PostgreSQL (``initdb``/``pg_ctl`` on a temporary data directory) and
Redis (``redis-server`` on a free port), a gate in front of the chain's RPC that can be cut,
and ``Stack``, which starts what ``docker-compose.yml`` describes:

    anvil (1 s blocks) -> deploy -> migrate -> api-1, api-2 -> worker-1, worker-2 -> beat

Every child is stopped when the stack stops, on errors too. Nothing here touches the
machine's own PostgreSQL or Redis unless ``db_url``/``redis_url`` point at them.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Annotated, Any

import typer

from backend.cli.app import app

REPO_ROOT = Path(__file__).resolve().parents[2]
BLOCK_TIME_S = 1

Out = Callable[[str], None]


class StackFailed(RuntimeError):
    """A process did not start, died, or a step did not reach its state in time."""


def wait_for(what: str, check: Callable[[], Any], timeout_s: float = 60, every_s: float = 0.2):
    """Poll ``check`` until it returns something truthy; StackFailed after ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise StackFailed(f"timed out after {timeout_s:.0f}s waiting for {what}")
        time.sleep(every_s)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def dew_command() -> list[str]:
    script = Path(sys.executable).parent / "dew"
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "from backend.cli import app; app()"]


class Service:
    """One subprocess (server, worker, beat) in its own process group, output in a log file."""

    def __init__(self, name: str, args: list[str], env: dict[str, str], log: Path) -> None:
        self.name, self.args, self.env, self.log = name, args, env, log
        self._log_file = log.open("ab")
        self.process = subprocess.Popen(
            args,
            cwd=REPO_ROOT,
            env=env,
            stdout=self._log_file,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )

    @property
    def pid(self) -> int:
        return self.process.pid

    def check_alive(self) -> None:
        if self.process.poll() is not None:
            tail = self.log.read_text(errors="replace")[-2000:]
            raise StackFailed(f"{self.name} exited with {self.process.returncode}:\n{tail}")

    def exited(self) -> int | None:
        return self.process.poll()

    def kill(self) -> None:
        """SIGKILL the whole process group (a crash: no shutdown code runs)."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)
        self._log_file.close()

    def stop(self) -> None:
        if self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=15)
        # Whatever is left of the group (uvicorn/celery children) goes too.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=10)
        self._log_file.close()

    def respawn(self, env: dict[str, str] | None = None, name: str | None = None) -> Service:
        """A fresh process with the same command (what systemd/k8s would do after a crash)."""
        return Service(name or self.name, self.args, env or self.env, self.log)


# --- a private PostgreSQL and Redis ----------------------------------------------------------


def _postgres_bin(name: str) -> str:
    found = sorted(Path("/usr/lib/postgresql").glob(f"*/bin/{name}"), reverse=True)
    if found:
        return str(found[0])
    on_path = shutil.which(name)
    if on_path:
        return on_path
    raise StackFailed(f"{name} not found under /usr/lib/postgresql/*/bin nor on PATH")


class LocalPostgres:
    """A throwaway PostgreSQL cluster on a free port (trust auth, user ``postgres``).

    initdb refuses to run as root: then the cluster belongs to the ``postgres`` system user
    and every command runs through ``runuser``."""

    def __init__(self, root: Path, port: int | None = None) -> None:
        self.root = root
        self.data = root / "pgdata"
        self.port = port or free_port()
        self._as: list[str] = []
        if os.geteuid() == 0:
            self._as = ["runuser", "-u", "postgres", "--"]

    @property
    def url(self) -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/dew"

    def _run(self, *args: str) -> None:
        done = subprocess.run(
            [*self._as, *args], capture_output=True, text=True, cwd="/", timeout=120
        )
        if done.returncode != 0:
            raise StackFailed(f"{args[0]} failed: {done.stdout[-1000:]}{done.stderr[-1000:]}")

    def start(self) -> LocalPostgres:
        self.root.mkdir(parents=True, exist_ok=True)
        if self._as:
            # The postgres user must reach its directory: open the path down to it for traversal.
            for parent in [self.root.parent, *self.root.parent.parents]:
                if parent.stat().st_mode & 0o001 == 0:
                    parent.chmod(parent.stat().st_mode | 0o111)
            entry = pwd.getpwnam("postgres")
            os.chown(self.root, entry.pw_uid, entry.pw_gid)
        if not self.data.exists():
            initdb = _postgres_bin("initdb")
            self._run(initdb, "-D", str(self.data), "-A", "trust", "-U", "postgres", "-E", "UTF8")
        self.pg_ctl_start()
        self._run(
            _postgres_bin("psql"),
            "-h",
            "127.0.0.1",
            "-p",
            str(self.port),
            "-U",
            "postgres",
            "-c",
            "CREATE DATABASE dew",
        )
        return self

    def pg_ctl_start(self) -> None:
        options = (
            f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.root} -c max_connections=200"
        )
        self._run(
            _postgres_bin("pg_ctl"),
            "-D",
            str(self.data),
            "-l",
            str(self.root / "postgres.log"),
            "-o",
            options,
            "-w",
            "start",
        )

    def stop(self) -> None:
        if (self.data / "postmaster.pid").exists():
            with contextlib.suppress(StackFailed, subprocess.TimeoutExpired):
                self._run(_postgres_bin("pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop")


class LocalRedis:
    """``redis-server`` on a free port with no persistence: a restart loses everything in it
    (the broker's queued messages too), which is what the chaos run wants to survive."""

    def __init__(self, workdir: Path, port: int | None = None) -> None:
        self.workdir = workdir
        self.port = port or free_port()
        self.service: Service | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}"

    def start(self) -> LocalRedis:
        binary = shutil.which("redis-server")
        if binary is None:
            raise StackFailed("redis-server not found on PATH")
        args = [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", ""]
        args += ["--appendonly", "no", "--dir", str(self.workdir)]
        self.service = Service("redis", args, dict(os.environ), self.workdir / "redis.log")
        wait_for("redis", self._answers, timeout_s=20, every_s=0.1)
        return self

    def _answers(self) -> bool:
        assert self.service is not None
        self.service.check_alive()
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1) as s:
                s.sendall(b"PING\r\n")
                return s.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def stop(self) -> None:
        if self.service is not None:
            self.service.stop()
            self.service = None

    def restart(self, down_s: float = 1.0) -> None:
        """Stop it hard (SIGKILL) and start it again on the same port, empty."""
        if self.service is not None:
            self.service.kill()
            self.service = None
        time.sleep(down_s)  # the outage itself, not a wait for a condition
        self.start()


# --- the chain's RPC behind a gate that can be cut --------------------------------------------


class RpcGate:
    """A JSON-RPC forwarder in front of the node. ``cut()`` drops every request (the
    connection is closed without an answer, as a network partition looks to the client)
    until ``restore()``."""

    def __init__(self, upstream: str) -> None:
        self.upstream = upstream
        self._open = threading.Event()
        self._open.set()
        self.dropped = 0
        self.forwarded = 0
        self._server: ThreadingHTTPServer | None = None

    def start(self) -> RpcGate:
        import httpx

        gate = self
        client = httpx.Client(timeout=30)

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                if not gate._open.is_set():
                    gate.dropped += 1
                    self.close_connection = True
                    return
                try:
                    answer = client.post(
                        gate.upstream, content=body, headers={"Content-Type": "application/json"}
                    )
                except httpx.HTTPError:
                    self.send_error(502, "gate: the node did not answer")
                    return
                gate.forwarded += 1
                self.send_response(answer.status_code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(answer.content)))
                self.end_headers()
                self.wfile.write(answer.content)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, name="rpc-gate", daemon=True).start()
        return self

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def cut(self) -> None:
        self._open.clear()

    def restore(self) -> None:
        self._open.set()

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None


# --- the stack ---------------------------------------------------------------------------


@dataclass
class StackConfig:
    workdir: Path
    apis: int = 2
    workers: int = 2
    beat: bool = True
    db_url: str | None = None  # None: a private PostgreSQL in workdir
    redis_url: str | None = None  # redis://host:port, None: a private redis-server
    rpc_gate: bool = False  # services reach anvil through an RpcGate (chaos cuts it)
    accounts: int = 10  # anvil's funded dev accounts: deployer, operator, then players
    extra_env: dict[str, str] = field(default_factory=dict)
    out: Out = print


class Stack:
    """The compose topology as local processes; a context manager that stops everything."""

    def __init__(self, config: StackConfig) -> None:
        self.config, self.out = config, config.out
        self.postgres: LocalPostgres | None = None
        self.redis: LocalRedis | None = None
        self.gate: RpcGate | None = None
        self.anvil: Any = None
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
        config, out = self.config, self.out
        config.workdir.mkdir(parents=True, exist_ok=True)
        if config.db_url is None:
            self.postgres = LocalPostgres(config.workdir / "postgres")
            self._cleanup.callback(self.postgres.stop)
            self.postgres.start()
        self.db_url = config.db_url or (self.postgres.url if self.postgres else "")
        if config.redis_url is None:
            self.redis = LocalRedis(config.workdir)
            self._cleanup.callback(lambda: self.redis.stop() if self.redis else None)
            self.redis.start()
        redis_base = (config.redis_url or (self.redis.url if self.redis else "")).rstrip("/")
        self.broker_url, self.pubsub_url = f"{redis_base}/0", f"{redis_base}/1"
        out(f"  postgres {self.db_url.split('@')[-1]}, redis {redis_base}")

        self._start_chain()
        from backend.db import migrate

        migrate(self.db_url)
        out("  migrated the database")
        self.env = self._env()
        self._start_services()

    def _start_chain(self) -> None:
        from eth_account import Account
        from web3 import Web3

        from backend.chain.anvil import Anvil
        from backend.chain.contracts import Contracts, save_manifest
        from backend.chain.deploy import deploy_all

        self.anvil = Anvil(accounts=self.config.accounts)
        self._cleanup.callback(self.anvil.stop)
        self.anvil.start()
        self.w3 = w3 = Web3(Web3.HTTPProvider(self.anvil.rpc_url, request_kwargs={"timeout": 10}))
        self.deployer_key, self.operator_key, *self.player_keys = self.anvil.keys
        self.operator = Account.from_key(self.operator_key).address
        # Deploy on instant mining, then a block every second as on a real chain.
        self.manifest = deploy_all(w3, self.deployer_key, operator=self.operator)
        self.manifest_path = save_manifest(self.manifest, self.config.workdir / "deployment.json")
        self.contracts = Contracts(w3, self.manifest)
        w3.provider.make_request("evm_setIntervalMining", [BLOCK_TIME_S])
        self.rpc_url = self.anvil.rpc_url
        if self.config.rpc_gate:
            self.gate = RpcGate(self.anvil.rpc_url).start()
            self._cleanup.callback(self.gate.stop)
            self.rpc_url = self.gate.url
        self.out(
            f"  anvil {self.anvil.rpc_url} ({BLOCK_TIME_S} s blocks), services use {self.rpc_url};"
            f" manifest {self.manifest_path}"
        )

    def _env(self) -> dict[str, str]:
        suffix = secrets.token_hex(4)
        env = {k: v for k, v in os.environ.items() if not k.startswith("DEW_")}
        env.update(
            {
                "DEW_DB_URL": self.db_url,
                "DEW_BROKER_URL": self.broker_url,
                "DEW_BROKER_PAYOUTS_QUEUE": f"payouts-{suffix}",
                "DEW_BROKER_DEFAULT_QUEUE": f"dew-{suffix}",
                "DEW_BROKER_PUMP_EVERY_S": "1",
                "DEW_SERVER_REDIS_URL": self.pubsub_url,
                "DEW_SERVER_REDIS_CHANNEL_PREFIX": f"dew-stack-{suffix}",
                "DEW_CHAIN_RPC_URL": self.rpc_url,
                "DEW_CHAIN_MANIFEST_PATH": str(self.manifest_path),
                "DEW_CHAIN_OPERATOR_KEY": self.operator_key,
                "DEW_CHAIN_POLL_INTERVAL_S": "0.2",
                "DEW_CHAIN_REBROADCAST_AFTER_S": "3",
                # Every API process signs and checks tokens with the same secret.
                "DEW_AUTH_JWT_SECRET": secrets.token_hex(32),
                "DEW_ECONOMY_SETTLE_EVERY_S": "1",
                "DEW_ECONOMY_INDEX_EVERY_S": "1",
                "DEW_COMPETITIONS_ADVANCE_EVERY_S": "1",
                "DEW_SERVER_ADOPT_STARTED_EVERY_S": "0.5",
            }
        )
        env.update(self.config.extra_env)
        return env

    def _start_services(self) -> None:
        config, dew, logs = self.config, dew_command(), self.config.workdir
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
        import httpx

        for service in self.services.values():
            service.check_alive()
        try:
            return all(
                httpx.get(f"{u}/health", timeout=2).status_code == 200 for u in self.api_urls
            )
        except httpx.HTTPError:
            return False

    # -- faults and supervision -------------------------------------------------------------
    def kill(self, name: str) -> None:
        self.services[name].kill()

    def restart(self, name: str, env: dict[str, str] | None = None) -> Service:
        old = self.services[name]
        if old.exited() is None:
            old.stop()
        self.services[name] = old.respawn(env)
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


@app.command("stack")
def stack_command(
    workdir: Annotated[
        Path | None, typer.Option(help="State and logs (default: a fresh one under var/stack)")
    ] = None,
    apis: Annotated[int, typer.Option(min=1, max=8, help="API processes")] = 2,
    workers: Annotated[int, typer.Option(min=0, max=8, help="Celery workers")] = 2,
    db_url: Annotated[
        str | None, typer.Option(help="PostgreSQL URL (default: a private cluster on a free port)")
    ] = None,
    redis_url: Annotated[
        str | None, typer.Option(help="redis://host:port (default: a private redis-server)")
    ] = None,
) -> None:
    """Run the docker-compose topology as local processes until Ctrl-C or SIGTERM: PostgreSQL,
    Redis, anvil (1 s blocks), migrate, deploy, the API processes, the workers and beat."""
    import logging

    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s %(message)s")
    if workdir is None:
        (REPO_ROOT / "var" / "stack").mkdir(parents=True, exist_ok=True)
        workdir = Path(tempfile.mkdtemp(prefix="run-", dir=REPO_ROOT / "var" / "stack"))
    stop = threading.Event()
    previous = signal.signal(signal.SIGTERM, lambda *_: stop.set())
    out = lambda text: typer.echo(text, nl=True)  # noqa: E731
    config = StackConfig(
        workdir=workdir, apis=apis, workers=workers, db_url=db_url, redis_url=redis_url, out=out
    )
    try:
        with running_stack(config) as stack:
            for url in stack.api_urls:
                out(f"api {url}")
            out(f"chain {stack.anvil.rpc_url}")
            out(f"database {stack.db_url}")
            out(f"broker {stack.broker_url}")
            out(f"workers {workers}, beat 1; logs in {workdir}")
            out("ready (Ctrl-C to stop)")
            try:
                while not stop.wait(1.0):
                    for service in stack.services.values():
                        service.check_alive()
            except KeyboardInterrupt:
                pass
            out("stopping")
    except StackFailed as error:
        typer.echo(f"STACK FAILED: {error}\n(logs in {workdir})", err=True)
        raise typer.Exit(1) from None
    finally:
        signal.signal(signal.SIGTERM, previous)
    out("stopped")


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
