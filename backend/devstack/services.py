"""The pieces of the process harness that ``backend.devstack.stack`` assembles.

A ``Service`` is one subprocess in its own process group with its output in a log file; a
``LocalPostgres`` (``initdb``/``pg_ctl`` on a temporary data directory) and a ``LocalRedis``
(``redis-server`` on a free port) are private stores; an ``RpcGate`` sits in front of the
chain's RPC and can be cut. ``wait_for`` polls a condition with a deadline. Nothing here
decides a topology: ``Stack`` does, and every name is importable from ``backend.devstack.stack``.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Self, TypeVar

from backend.devstack import preload

REPO_ROOT = Path(__file__).resolve().parents[2]

T = TypeVar("T")


class StackFailed(RuntimeError):
    """A process did not start, died, or a step did not reach its state in time."""


def wait_for(
    what: str, check: Callable[[], T | None], timeout_s: float = 60, every_s: float = 0.2
) -> T:
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


class Service:
    """One subprocess (server, worker, beat) in its own process group, output in a log file;
    forked by the preloaded launcher when one is in use (``backend.devstack.preload``)."""

    def __init__(self, name: str, args: list[str], env: dict[str, str], log: Path) -> None:
        self.name, self.args, self.env, self.log = name, args, env, log
        self._log_file = log.open("ab")
        launcher = preload.current()
        forked = launcher.spawn(args, env, REPO_ROOT, log) if launcher else None
        self.process: subprocess.Popen[bytes] | preload.Forked = forked or subprocess.Popen(
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

    def respawn(
        self, env: dict[str, str] | None = None, name: str | None = None, log: Path | None = None
    ) -> Service:
        """A fresh process with the same command (what systemd/k8s would do after a crash)."""
        return Service(name or self.name, self.args, env or self.env, log or self.log)


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
        pid_file = self.data / "postmaster.pid"
        if pid_file.exists():
            with contextlib.suppress(StackFailed, subprocess.TimeoutExpired):
                self._run(_postgres_bin("pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop")
        if pid_file.exists():
            # pg_ctl did not stop it (seen under load, output lost): SIGQUIT is the immediate
            # shutdown itself, sent to the postmaster named in its own pid file.
            with contextlib.suppress(OSError, ValueError, IndexError):
                os.kill(int(pid_file.read_text().split()[0]), signal.SIGQUIT)
            with contextlib.suppress(StackFailed):
                wait_for("postgres to stop", lambda: not pid_file.exists(), timeout_s=20)


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
    until ``restore()``. Subclasses change what happens to a request by overriding
    ``answer`` (the tests' flaky proxy fails or delays a share of them)."""

    def __init__(self, upstream: str) -> None:
        self.upstream = upstream
        self._open = threading.Event()
        self._open.set()
        self.dropped = 0
        self.forwarded = 0
        self._server: ThreadingHTTPServer | None = None
        self._client: Any = None

    def forward(self, body: bytes) -> tuple[int, bytes]:
        """Send ``body`` to the node; its status and answer."""
        answer = self._client.post(
            self.upstream, content=body, headers={"Content-Type": "application/json"}
        )
        return answer.status_code, answer.content

    def answer(self, body: bytes) -> tuple[int, bytes] | None:
        """The status and body to answer ``body`` with, or None to close the connection
        unanswered."""
        import httpx

        if not self._open.is_set():
            self.dropped += 1
            return None
        try:
            status, content = self.forward(body)
        except httpx.HTTPError:
            return 502, b"gate: the node did not answer"
        self.forwarded += 1
        return status, content

    def start(self) -> Self:
        import httpx

        gate = self
        self._client = httpx.Client(timeout=30)

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                reply = gate.answer(body)
                if reply is None:
                    self.close_connection = True
                    return
                status, content = reply
                self.send_response(status)
                kind = "application/json" if status == 200 else "text/plain"
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(content)))
                self.end_headers()
                self.wfile.write(content)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, name="rpc-gate", daemon=True).start()
        return self

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

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
