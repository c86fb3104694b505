"""A preloaded launcher: one process that has imported the libraries every server and worker
needs, and forks a fresh process for each one the harness starts.

A server or Celery worker started through ``subprocess`` spends about 3.5 s of CPU importing
SQLAlchemy, FastAPI, pydantic, web3 and the rest before it runs a line of ours; the test suite
starts some three hundred of them. The launcher imports those libraries once; a process it
forks sets its own environment, working directory and log, then runs the same entry point the
command names (``python -m uvicorn ...``, ``python -m celery ...``, the ``dew`` script) in the
usual way. Nothing of ``backend`` is imported before the fork, so every setting is read from
the child's own environment and prometheus-client's multiprocess directory is still set before
any metric exists (``backend.ops.multiproc``). The processes are real and separate, as with
gunicorn's ``--preload`` or Celery's prefork pool; only the interpreter's start is shared.

``Launcher.spawn`` returns a ``Forked`` handle with the part of ``subprocess.Popen`` the
harness uses (``pid``, ``poll``, ``wait``, ``returncode``, ``kill``, ``terminate``); the
launcher is the child's parent, reaps it and answers for its exit status. A command in any
other form (another executable, interpreter options) gets ``None``: the caller starts it with
``subprocess``. ``use`` makes a launcher the one ``backend.devstack.services.Service`` forks
through; without one, every service is a plain subprocess.

Run as a script (``python preload.py SOCKET``) it is the launcher itself; that file path keeps
``backend`` out of the launcher's imports.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

# The libraries imported once in the launcher: what the API server and the Celery worker
# import, without prometheus-client and OpenTelemetry (their set-up depends on the
# environment at import time) and without anything of this project.
PRELOAD = (
    "sqlalchemy",
    "sqlalchemy.orm",
    "sqlalchemy.dialects.postgresql",
    "sqlalchemy.dialects.sqlite",
    "psycopg",
    "pydantic",
    "pydantic_settings",
    "fastapi",
    "fastapi.routing",
    "starlette.middleware",
    "uvicorn",
    "uvicorn.main",
    "websockets",
    "httpx",
    "web3",
    "eth_account",
    "aiohttp",
    "structlog",
    "limits",
    "redis",
    "celery",
    "celery.app",
    "celery.bin.celery",
    "kombu",
    "typer",
    "rich",
    "alembic",
)


class Forked:
    """A process the launcher forked: the ``subprocess.Popen`` surface the harness uses."""

    def __init__(self, launcher: Launcher, pid: int, args: list[str]) -> None:
        self.launcher, self.pid, self.args = launcher, pid, args
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            self.returncode = self.launcher.status(self.pid)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        while (code := self.poll()) is None:
            if deadline is not None and time.monotonic() > deadline:
                raise subprocess.TimeoutExpired(self.args, timeout or 0)
            time.sleep(0.02)
        return code

    def send_signal(self, sig: int) -> None:
        if self.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, sig)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


class Launcher:
    """The client side: starts the launcher process and asks it to fork."""

    def __init__(self, workdir: Path) -> None:
        """The launcher process starts with the first ``spawn``: a run that starts no server
        pays nothing for it."""
        self.workdir = workdir
        self.socket_path = str(workdir / "preload.sock")
        self.process: subprocess.Popen[bytes] | None = None
        self._starting = threading.Lock()  # two threads' first spawns start one launcher

    def _start(self) -> None:
        with (self.workdir / "preload.log").open("ab") as log:
            self.process = process = subprocess.Popen(
                [sys.executable, __file__, self.socket_path],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        deadline = time.monotonic() + 120
        while not os.path.exists(self.socket_path):
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the preloaded launcher did not start: see {self.workdir}")
            time.sleep(0.05)

    def _ask(self, request: dict[str, Any]) -> dict[str, Any]:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.connect(self.socket_path)
            conn.sendall(json.dumps(request).encode() + b"\n")
            answer: dict[str, Any] = json.loads(conn.makefile("rb").readline())
        return answer

    def spawn(
        self, args: list[str], env: dict[str, str], cwd: Path, log: Path, err: Path | None = None
    ) -> Forked | None:
        """Fork ``args`` if the launcher can run it, else None (start it with subprocess).
        Its output goes to ``log``, and its errors too unless ``err`` names another file."""
        if entry_point(args) is None:
            return None
        with self._starting:
            if self.process is None:
                self._start()
        request = {
            "args": args,
            "env": env,
            "cwd": str(cwd),
            "log": str(log),
            "err": str(err or log),
        }
        answer = self._ask({"op": "spawn", **request})
        return Forked(self, int(answer["pid"]), args)

    def run(
        self, args: list[str], env: dict[str, str], cwd: Path, timeout: float
    ) -> subprocess.CompletedProcess[str] | None:
        """``subprocess.run(args, capture_output=True, text=True)`` through a fork: a command
        such as ``dew ...`` that ends by itself (None for a form the launcher does not run)."""
        import tempfile

        with tempfile.TemporaryDirectory(prefix="dew-run-") as tmp:
            out, err = Path(tmp) / "out", Path(tmp) / "err"
            process = self.spawn(args, env, cwd, out, err)
            if process is None:
                return None
            try:
                code = process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
                raise
            return subprocess.CompletedProcess(args, code, out.read_text(), err.read_text())

    def status(self, pid: int) -> int | None:
        code = self._ask({"op": "status", "pid": pid})["returncode"]
        return None if code is None else int(code)

    def stop(self) -> None:
        """Stop the launcher; the processes it forked are their callers' to stop."""
        if self.process is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)
        self.process = None
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.socket_path)


_current: Launcher | None = None


def use(launcher: Launcher | None) -> None:
    """Make ``launcher`` the one ``Service`` forks through (None: plain subprocesses)."""
    global _current
    _current = launcher


def current() -> Launcher | None:
    return _current


def entry_point(args: list[str]) -> tuple[str, str] | None:
    """What a command runs, as ``("module", name)`` or ``("dew", "")``; None for a form the
    launcher does not run (another interpreter, interpreter options, another program)."""
    if len(args) >= 3 and args[0] == sys.executable and args[1] == "-m":
        return ("module", args[2])
    if args and Path(args[0]) == Path(sys.executable).parent / "dew":
        return ("dew", "dew")
    return None


# --- the launcher process ----------------------------------------------------------------------


def _run_child(request: dict[str, Any]) -> int:
    """In the forked child: become the command's process and run it; its exit status."""
    args: list[str] = request["args"]
    os.environ.clear()
    os.environ.update(request["env"])
    os.chdir(request["cwd"])
    sys.path.insert(0, request["cwd"])  # as ``python -m`` puts the working directory first
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    for fd, path in ((1, request["log"]), (2, request["err"])):
        opened = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        os.dup2(opened, fd)
        os.close(opened)
    kind, module = entry_point(args) or ("", "")
    try:
        if kind == "module":
            import runpy

            sys.argv = [module, *args[3:]]
            runpy.run_module(module, run_name="__main__", alter_sys=True)
        else:  # the console script: its entry point, as the script calls it
            from importlib.metadata import entry_points

            sys.argv = [args[0], *args[1:]]
            [script] = entry_points(group="console_scripts", name=module)
            script.load()()
        code = 0
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
    except BaseException:
        import traceback

        traceback.print_exc()
        code = 1
    return code


def _serve(socket_path: str) -> None:
    for name in PRELOAD:
        with contextlib.suppress(ImportError):
            importlib.import_module(name)
    finished: dict[int, int] = {}

    def reap(_signum: int, _frame: object) -> None:
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            finished[pid] = os.waitstatus_to_exitcode(status)

    signal.signal(signal.SIGCHLD, reap)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(socket_path + ".tmp")
    server.listen(64)
    os.rename(socket_path + ".tmp", socket_path)  # the client waits for this name
    parent = os.getppid()
    server.settimeout(2)
    while True:
        try:
            conn, _ = server.accept()
        except TimeoutError:
            if os.getppid() != parent:  # the caller is gone: so is the launcher
                return
            continue
        conn.settimeout(None)
        with conn:
            request = json.loads(conn.makefile("rb").readline())
            if request["op"] == "status":
                answer = {"returncode": finished.get(int(request["pid"]))}
            else:
                sys.stdout.flush()
                sys.stderr.flush()
                pid = os.fork()
                if pid == 0:  # the child: nothing of the launcher's may run on
                    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                    server.close()
                    conn.close()
                    os.setsid()
                    code = 1
                    try:
                        code = _run_child(request)
                    finally:
                        with contextlib.suppress(BaseException):
                            import atexit

                            atexit._run_exitfuncs()
                            sys.stdout.flush()
                            sys.stderr.flush()
                        os._exit(code)
                answer = {"pid": pid}
            conn.sendall(json.dumps(answer).encode() + b"\n")


if __name__ == "__main__":
    del sys.path[0]  # this file's folder: nothing of it is a top-level module
    _serve(sys.argv[1])
