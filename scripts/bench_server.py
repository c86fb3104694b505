#!/usr/bin/env python
"""Benchmark the match server: sign-ins per second, then N concurrent 4-seat matches of bot
clients over real WebSockets, each client answering its turn after a think time.

It starts everything itself: a fresh PostgreSQL database on the local server, migrations,
and a uvicorn process running ``backend.api.app:create_app``. Figures (``--json`` prints one
JSON object):

    concurrent_matches  matches with all four sockets connected and playing
    moves_per_s         moves acknowledged per second during the measured window
    p50_move_ms/p99     from sending a move to receiving its acknowledgement (committed)
    errors              error messages, failed connections, timeouts, unexpected closes
    server_rss_mb       the server process's peak resident memory (VmHWM)
    signins_per_s       full sign-ins (nonce + EIP-4361 signature + verification) per second
    server_cpu_pct / loadgen_cpu_pct   CPU used by each side (100 = one core)

Baselines in the same run: ``baseline_commit_ms``, the time of one bare INSERT+COMMIT on
the same database, i.e. the floor under any acknowledged move; ``baseline_health_rps``,
bare HTTP round trips per second (GET /health) by the same load generator on the sign-in
server, i.e. the ceiling of its HTTP stack on this machine now; a sign-in is two requests,
so ``signins_vs_health`` (signins_per_s / baseline_health_rps) compares runs made under
different loads. ``--signins-only`` stops after the sign-in figures.

The servers run with the HTTP rate limits at their production settings (``--no-rate-limits``
turns them off, to compare). Players come from many addresses, as real ones do: every
``--wallets-per-address`` wallets (two tables' players) share one loopback source address
(127.1.x.y), and any refusal (a 429 included) stops the run as an error.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import hashlib
import http.client
import json
import os
import random
import resource
import signal
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import orjson
from eth_account import Account
from sqlalchemy import create_engine, text

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from backend.db import migrate  # noqa: E402
from backend.devstack import stack  # noqa: E402
from backend.protocol import messages as protocol  # noqa: E402
from backend.protocol.client import SeatState, Wallet, sign_in_with_async  # noqa: E402
from tests.fixtures.database import create_pg_database, drop_pg_database  # noqa: E402

PG_ADMIN_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"


def baseline_commit_ms(url: str, rounds: int = 200) -> float:
    engine = create_engine(url)
    with engine.connect() as conn:
        conn.execute(text("CREATE TABLE bench_baseline (n int)"))
        conn.commit()
        started = time.perf_counter()
        for n in range(rounds):
            conn.execute(text("INSERT INTO bench_baseline VALUES (:n)"), {"n": n})
            conn.commit()
        elapsed = time.perf_counter() - started
        conn.execute(text("DROP TABLE bench_baseline"))
        conn.commit()
    engine.dispose()
    return elapsed / rounds * 1000


def cpu_seconds(pid: int, thread: int | None = None) -> float:
    """CPU time of a process (or of one of its threads: the main thread's id is the pid)."""
    path = f"/proc/{pid}/task/{thread}/stat" if thread else f"/proc/{pid}/stat"
    fields = Path(path).read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _own_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def client_address(wallet: int, per_address: int) -> str:
    """The loopback source address of a wallet's connections (all of 127/8 is local)."""
    n = wallet // per_address
    return f"127.1.{n // 250}.{n % 250 + 1}"


class Server:
    """The match server under test: uvicorn on the app factory, started (and stopped) through
    the process harness (``backend.devstack.stack``)."""

    def __init__(
        self,
        db_url: str,
        workers: int,
        profile: str | None = None,
        rate_limits: bool = True,
        metrics: bool | None = None,
    ) -> None:
        self.port = stack.free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.ws_url = f"ws://127.0.0.1:{self.port}"
        env = stack.clean_env(
            DEW_DB_URL=db_url,
            DEW_CHAIN_MANIFEST_PATH="/nonexistent/deployment.json",
            DEW_SERVER_TURN_TIMEOUT_S="120",
            DEW_SERVER_BOT_MOVE_DELAY_S="1.0",
            DEW_SERVER_DB_POOL_SIZE="20",
            DEW_SERVER_ORPHAN_GRACE_S="600",
            DEW_HTTP_RATE_LIMITS="true" if rate_limits else "false",
        )
        self.metrics_dir: str | None = None
        if metrics is not None:
            env["DEW_METRICS_ENABLED"] = "true" if metrics else "false"
            env.pop("PROMETHEUS_MULTIPROC_DIR", None)
            if metrics:
                # As `dew serve` runs it: prometheus-client's multiprocess mode (mmap files).
                import tempfile

                self.metrics_dir = tempfile.mkdtemp(prefix="dew-bench-metrics-")
                env["PROMETHEUS_MULTIPROC_DIR"] = self.metrics_dir
        # uvicorn re-raises the signal it stopped on; SIGINT then unwinds as KeyboardInterrupt,
        # which lets cProfile write its stats.
        self.stop_signal = signal.SIGINT if profile else signal.SIGTERM
        args = stack.uvicorn_command(
            self.port,
            *("--log-level", "warning", "--no-access-log", "--backlog", "8192"),
            # Moves are ~1 KB of JSON: compressing them costs more CPU than it saves.
            *("--ws-per-message-deflate", "false", "--timeout-graceful-shutdown", "20"),
            *(["--workers", str(workers)] if workers > 1 else []),
            python=("-m", "cProfile", "-o", profile) if profile else (),
        )
        log = Path(f"/tmp/dew-bench-server-{self.port}.log")
        # Generous: on a busy machine importing the app alone can take a minute.
        self.service = stack.start_api("server", args, env, log, self.url, timeout_s=180)

    def pids(self) -> list[int]:
        children = subprocess.run(
            ["pgrep", "-P", str(self.service.pid)], capture_output=True, text=True
        ).stdout.split()
        return [self.service.pid, *map(int, children)]

    def stop(self) -> None:
        stack.stop_service(self.service, self.stop_signal, timeout_s=60)
        if self.metrics_dir:
            import shutil

            shutil.rmtree(self.metrics_dir, ignore_errors=True)


class Http:
    """A keep-alive HTTP/1.1 connection per load-generator thread (httpx's async pool costs
    more CPU than the server it measures)."""

    def __init__(self, base_url: str, source: str | None = None) -> None:
        host, port = base_url.removeprefix("http://").split(":")
        self.conn = http.client.HTTPConnection(
            host, int(port), timeout=60, source_address=(source, 0) if source else None
        )

    def close(self) -> None:
        self.conn.close()

    def post(self, path: str, body: dict[str, Any] | None = None, token: str | None = None) -> Any:
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        self.conn.request("POST", path, body=json.dumps(body or {}), headers=headers)
        response = self.conn.getresponse()
        data = response.read()
        if response.status >= 300:
            raise RuntimeError(f"POST {path}: {response.status} {data[:200]!r}")
        return json.loads(data)


def parallel(base_url: str, jobs: list[Any], work: Any, threads: int) -> list[Any]:
    results: list[Any] = [None] * len(jobs)
    queue = list(enumerate(jobs))
    lock = threading.Lock()

    def worker() -> None:
        http = Http(base_url)
        while True:
            with lock:
                if not queue:
                    return
                index, job = queue.pop()
            results[index] = work(http, job)

    pool = [threading.Thread(target=worker) for _ in range(threads)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    if any(r is None for r in results):
        raise RuntimeError("some requests failed (see the traceback above)")
    return results


class AsyncHttp:
    """One keep-alive HTTP/1.1 connection on the event loop: requests are pre-encoded bytes,
    answers parsed by their Content-Length. The sign-in phase's load generator: threads
    with http.client cost it ~0.6 ms of CPU per sign-in on the machine the server shares."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer

    @classmethod
    async def open(cls, base_url: str, source: str | None = None) -> AsyncHttp:
        host, port = base_url.removeprefix("http://").split(":")
        local = (source, 0) if source else None
        return cls(*await asyncio.open_connection(host, int(port), local_addr=local))

    async def request(self, method: bytes, path: bytes, body: bytes = b"") -> bytes:
        self.writer.write(
            method
            + b" "
            + path
            + b" HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\n"
            + b"Content-Length: %d\r\n\r\n" % len(body)
            + body
        )
        head = await self.reader.readuntil(b"\r\n\r\n")
        status = int(head[9:12])
        at = head.lower().find(b"\r\ncontent-length:")
        if at < 0:
            raise RuntimeError(f"{method!r} {path!r}: no Content-Length in {head[:200]!r}")
        length = int(head[at + 17 : head.index(b"\r\n", at + 2)])
        data = await self.reader.readexactly(length)
        if status >= 300:
            raise RuntimeError(f"{method.decode()} {path.decode()}: {status} {data[:200]!r}")
        return data

    def close(self) -> None:
        self.writer.close()


async def _each(base_url: str, jobs: list[Any], work: Any, connections: int) -> list[Any]:
    """Run ``work(http, job)`` for every job over ``connections`` keep-alive connections."""
    results: list[Any] = [None] * len(jobs)
    todo = list(enumerate(jobs))

    async def worker() -> None:
        http = await AsyncHttp.open(base_url)
        try:
            while todo:
                index, job = todo.pop()
                results[index] = await work(http, job)
        finally:
            http.close()

    await asyncio.gather(*(worker() for _ in range(connections)))
    return results


async def _each_address(
    base_url: str, groups: list[tuple[str, list[Any]]], work: Any, connections: int
) -> list[Any]:
    """Like ``_each``, with each group of jobs on one keep-alive connection from the
    group's source address (``connections`` groups at a time); results in job order."""
    results: list[list[Any]] = [[] for _ in groups]
    todo = list(enumerate(groups))

    async def worker() -> None:
        while todo:
            index, (source, jobs) = todo.pop()
            http = await AsyncHttp.open(base_url, source)
            try:
                results[index] = [await work(http, job) for job in jobs]
            finally:
                http.close()

    await asyncio.gather(*(worker() for _ in range(connections)))
    return [result for group in results for result in group]


async def _health(http: AsyncHttp, _: int) -> bool:
    await http.request(b"GET", b"/health")
    return True


# The sign-in's routes as this load generator sends them: (method, path) in bytes.
SIGN_IN_ROUTES = {
    route: tuple(part.encode() for part in protocol.ROUTES[route]) for route in ("nonce", "signin")
}


async def _sign_in(http: AsyncHttp, wallet: Wallet) -> str:
    """The client's sign-in (its wallet signs, its steps say what to send) over this load
    generator's lean connection."""

    async def send(route: str, body: dict[str, Any]) -> dict[str, Any]:
        method, path = SIGN_IN_ROUTES[route]
        return orjson.loads(await http.request(method, path, orjson.dumps(body)))

    tokens = await sign_in_with_async(wallet, send)
    return str(tokens["access_token"])


def health_rps(base_url: str, requests: int, connections: int) -> float:
    """Bare HTTP round trips per second through the same load generator (the baseline)."""
    started = time.perf_counter()
    run_loop(_each(base_url, list(range(requests)), _health, connections))
    return requests / (time.perf_counter() - started)


def sign_in_all(
    base_url: str, accounts: list[Any], connections: int, per_address: int
) -> tuple[list[str], float]:
    """Full sign-ins (nonce, EIP-191 signature, verification) over keep-alive connections,
    one per source address."""
    wallets = [Wallet(bytes(a.key), a.address) for a in accounts]
    groups = [
        (client_address(i, per_address), wallets[i : i + per_address])
        for i in range(0, len(wallets), per_address)
    ]
    started = time.perf_counter()
    tokens = run_loop(_each_address(base_url, groups, _sign_in, connections))
    return tokens, time.perf_counter() - started


def seat_tables(
    base_url: str, tokens: list[str], matches: int, threads: int, per_address: int
) -> list[str]:
    def one(_: Http, job: tuple[int, list[str]]) -> str:
        m, seats = job
        # The players' own address (a table's four wallets share one).
        http = Http(base_url, client_address(4 * m, per_address))
        try:
            table = http.post("/tables", {"preset": "dew200", "turn_timeout_s": 120}, seats[0])
            for token in seats[1:]:
                http.post(f"/tables/{table['id']}/join", {}, token)
        finally:
            http.close()
        return table["id"]

    jobs = [(m, tokens[4 * m : 4 * m + 4]) for m in range(matches)]
    return parallel(base_url, jobs, one, threads)


class Stats:
    def __init__(self) -> None:
        self.latencies: list[float] = []
        self.acked_at: list[float] = []  # perf_counter of each measured acknowledgement
        self.errors = 0
        self.error_samples: list[str] = []
        self.moves = 0
        self.measuring = False
        self.finished_matches = 0
        self.connected = 0
        self.cpu_at_start = (0.0, 0.0)  # (server, load generator) CPU seconds
        self.cpu_at_end = (0.0, 0.0)
        self.loop_cpu = 0.0  # the server's main thread (event loop) in the window
        self.snapshots = 0  # sockets that have received their first snapshot
        self.all_seated_s: float | None = None  # from the first connect to the last snapshot

    def error(self, what: str) -> None:
        self.errors += 1
        if len(self.error_samples) < 5:
            self.error_samples.append(what[:300])


WS_GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

try:  # websockets' C helper; the pure-Python fallback below is only slower
    from websockets.speedups import apply_mask
except ImportError:  # pragma: no cover

    def apply_mask(data: bytes, mask: bytes) -> bytes:
        size = len(data)
        pad = (mask * (size // 4 + 1))[:size]
        return (int.from_bytes(data, "big") ^ int.from_bytes(pad, "big")).to_bytes(size, "big")


class BotClient(asyncio.Protocol):
    """One seat's client: a minimal RFC 6455 client straight on an asyncio transport.

    The load generator shares the machine with the server, so it is lean: frames are parsed
    here (the server sends unfragmented, unmasked frames; fragments, pings and close are
    handled anyway), messages with orjson, and a turn is a timer, not a task.
    """

    def __init__(self, host: str, path: str, think_s: float, stats: Stats) -> None:
        self.host = host
        self.path = path
        self.think_s = think_s
        self.stats = stats
        self.rng = random.Random(path)
        self.loop = asyncio.get_running_loop()
        self.opened: asyncio.Future[None] = self.loop.create_future()
        self.closed: asyncio.Future[None] = self.loop.create_future()
        self.transport: asyncio.Transport | None = None
        self.buffer = bytearray()
        self.fragments = bytearray()
        self.handshaken = False
        self.stopping = False
        self.state = SeatState()  # the client's view of this seat
        self.pending: dict[str, float] = {}
        self.turn: asyncio.TimerHandle | None = None
        self.key = base64.b64encode(os.urandom(16))
        self.accept = base64.b64encode(hashlib.sha1(self.key + WS_GUID).digest())

    # -- transport events ----------------------------------------------------------------
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        transport.write(
            b"GET "
            + self.path.encode()
            + b" HTTP/1.1\r\nHost: "
            + self.host.encode()
            + b"\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: "
            + self.key
            + b"\r\nSec-WebSocket-Version: 13\r\n\r\n"
        )

    def connection_lost(self, exc: Exception | None) -> None:
        if self.turn:
            self.turn.cancel()
        if not self.opened.done():
            self.opened.set_exception(ConnectionError(f"closed during the handshake: {exc!r}"))
        elif not self.stopping:
            self.stats.error(f"socket closed by the server: {exc!r}")
        if not self.closed.done():
            self.closed.set_result(None)

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        if not self.handshaken:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            head = bytes(self.buffer[:end])
            del self.buffer[: end + 4]
            if not head.startswith(b"HTTP/1.1 101") or self.accept not in head:
                self.opened.set_exception(ConnectionError(head.split(b"\r\n")[0].decode()))
                self.stopping = True
                assert self.transport is not None
                self.transport.close()
                return
            self.handshaken = True
            self.opened.set_result(None)
        self._frames()

    def _frames(self) -> None:
        buf = self.buffer
        pos = 0
        size = len(buf)
        while size - pos >= 2:
            first, second = buf[pos], buf[pos + 1]
            length = second & 0x7F
            head = 2
            if length == 126:
                if size - pos < 4:
                    break
                length = int.from_bytes(buf[pos + 2 : pos + 4], "big")
                head = 4
            elif length == 127:
                if size - pos < 10:
                    break
                length = int.from_bytes(buf[pos + 2 : pos + 10], "big")
                head = 10
            if second & 0x80:
                self.stats.error("the server sent a masked frame")
                head += 4
            if size - pos < head + length:
                break
            payload = bytes(buf[pos + head : pos + head + length])
            pos += head + length
            opcode, fin = first & 0x0F, first & 0x80
            if opcode == 0:
                self.fragments += payload
                if fin:
                    self._message(bytes(self.fragments))
            elif opcode in (1, 2):
                if fin:
                    self._message(payload)
                else:
                    self.fragments = bytearray(payload)
            elif opcode == 8:
                self._close(payload[:2] or b"\x03\xe8")
            elif opcode == 9:
                self._send(0xA, payload)
        del buf[:pos]

    def _send(self, opcode: int, payload: bytes) -> None:
        if self.transport is None or self.transport.is_closing():
            return
        size = len(payload)
        if size < 126:
            header = bytes((0x80 | opcode, 0x80 | size))
        elif size < 65536:
            header = bytes((0x80 | opcode, 0x80 | 126)) + size.to_bytes(2, "big")
        else:
            header = bytes((0x80 | opcode, 0x80 | 127)) + size.to_bytes(8, "big")
        mask = self.rng.getrandbits(32).to_bytes(4, "big")
        self.transport.write(header + mask + apply_mask(payload, mask))

    def _close(self, code: bytes = b"\x03\xe8") -> None:
        self.stopping = True
        if self.turn:
            self.turn.cancel()
        self._send(0x8, code)
        if self.transport is not None:
            self.transport.close()

    def stop(self) -> None:
        self._close()

    # -- the protocol ----------------------------------------------------------------------
    def _message(self, raw: bytes) -> None:
        message = orjson.loads(raw)
        kind = message["type"]
        stats = self.stats
        if kind == "ack":
            sent = self.pending.pop(str(message.get("ref")), None)
            if sent is not None and stats.measuring:
                now = time.perf_counter()
                stats.latencies.append(now - sent)
                stats.acked_at.append(now)
                stats.moves += 1
            return
        if kind == "error":
            stats.error(f"server error: {message['error']}")
            return
        state = self.state
        if kind == "match_over":
            stats.finished_matches += 1 if state.you == 0 else 0
            self._close()
            return
        if kind == "snapshot" and state.you is None:
            stats.snapshots += 1
        if kind in ("snapshot", "moved"):
            state.apply(message)
            if state.my_turn():
                if self.turn:
                    self.turn.cancel()
                delay = self.think_s * self.rng.uniform(0.9, 1.1)
                move = state.move(ref=str(state.ply))
                self.turn = self.loop.call_later(delay, self._move, move)

    def _move(self, move: dict[str, Any]) -> None:
        self.turn = None
        if self.stopping:
            return
        self.pending[move["ref"]] = time.perf_counter()
        self._send(0x1, orjson.dumps(move))


async def open_client(
    host: str, port: int, table_id: str, token: str, think_s: float, stats: Stats, source: str
) -> BotClient | None:
    loop = asyncio.get_running_loop()
    path = f"/ws/tables/{table_id}?token={token}"
    try:
        _, client = await loop.create_connection(
            lambda: BotClient(f"{host}:{port}", path, think_s, stats),
            host,
            port,
            local_addr=(source, 0),
        )
        await asyncio.wait_for(client.opened, timeout=60)
    except Exception as error:
        stats.error(f"connect: {error!r}")
        return None
    stats.connected += 1
    return client


async def run_matches(
    ws_url: str,
    tables: list[str],
    tokens: list[str],
    think_s: float,
    warmup_s: float,
    measure_s: float,
    server_pids: list[int],
    per_address: int,
) -> tuple[Stats, float]:
    stats = Stats()
    host, port = ws_url.removeprefix("ws://").split(":")
    connect_started = time.perf_counter()
    opening = []
    for m, table_id in enumerate(tables):
        for s in range(4):
            opening.append(
                asyncio.create_task(
                    open_client(
                        host,
                        int(port),
                        table_id,
                        tokens[4 * m + s],
                        think_s,
                        stats,
                        client_address(4 * m + s, per_address),
                    )
                )
            )
        if m % 50 == 49:
            await asyncio.sleep(0.05)  # let the accepts keep up
    # Measure steady play: every socket connected and resynced (the connection storm of
    # thousands of sockets is a phase of its own), then the warm-up.
    deadline = time.perf_counter() + 120
    while stats.snapshots < 4 * len(tables) and time.perf_counter() < deadline:
        if all(task.done() for task in opening) and stats.snapshots >= stats.connected:
            break
        await asyncio.sleep(0.1)
    stats.all_seated_s = time.perf_counter() - connect_started
    await asyncio.sleep(warmup_s)
    stats.measuring = True
    started = time.perf_counter()
    stats.cpu_at_start = (sum(cpu_seconds(p) for p in server_pids), _own_cpu())
    loop_cpu0 = cpu_seconds(server_pids[0], server_pids[0])
    await asyncio.sleep(measure_s)
    stats.cpu_at_end = (sum(cpu_seconds(p) for p in server_pids), _own_cpu())
    stats.loop_cpu = cpu_seconds(server_pids[0], server_pids[0]) - loop_cpu0
    stats.measuring = False
    elapsed = time.perf_counter() - started
    clients = [c for c in await asyncio.gather(*opening) if c is not None]
    for client in clients:
        client.stop()
    if clients:
        await asyncio.wait([asyncio.ensure_future(c.closed) for c in clients], timeout=15)
    return stats, elapsed


def run_loop(coro: Any) -> Any:
    """uvloop when installed (uvicorn[standard] brings it): a leaner load generator."""
    try:
        import uvloop
    except ImportError:  # pragma: no cover
        return asyncio.run(coro)
    return uvloop.run(coro)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--matches", type=int, default=1000)
    parser.add_argument("--think", type=float, default=1.0, help="seconds before each move")
    parser.add_argument("--warmup", type=float, default=10.0)
    parser.add_argument("--duration", type=float, default=60.0, help="measured seconds")
    parser.add_argument("--signins", type=int, default=2000, help="sign-ins for signins_per_s")
    parser.add_argument("--workers", type=int, default=1, help="uvicorn worker processes")
    # More threads only fight over the load generator's GIL (measured: 8-16 beat 32).
    parser.add_argument(
        "--threads",
        type=int,
        default=16,
        help="HTTP load-generator threads (seating) and connections (sign-ins)",
    )
    parser.add_argument(
        "--signin-workers",
        type=int,
        default=2,
        help="uvicorn workers of a separate server used for the sign-in phase (sign-ins are "
        "stateless between processes, so they scale out without Redis)",
    )
    parser.add_argument("--quick", action="store_true", help="20 matches, 15 s: a smoke run")
    parser.add_argument(
        "--signins-only", action="store_true", help="measure sign-ins (and the baseline) only"
    )
    parser.add_argument(
        "--wallets-per-address",
        type=int,
        default=8,
        help="wallets sharing one loopback source address (a multiple of 4: a table's "
        "players share one)",
    )
    parser.add_argument(
        "--no-rate-limits",
        action="store_true",
        help="run the servers with DEW_HTTP_RATE_LIMITS=false (to compare)",
    )
    parser.add_argument("--pg-admin-url", default=PG_ADMIN_URL)
    parser.add_argument(
        "--profile-server",
        metavar="PATH",
        help="run the match server under cProfile and write its stats to PATH (slower)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--metrics-compare",
        action="store_true",
        help="run twice in this run, metrics off then on (multiprocess mode, as `dew serve`), "
        "and print both figures with the on/off ratios",
    )
    parser.add_argument(
        "--latency-log",
        metavar="PATH",
        help="write 'seconds-into-the-window latency-ms' per measured move (to see stalls)",
    )
    args = parser.parse_args()
    if args.quick:
        args.matches, args.warmup, args.duration, args.signins = 20, 3.0, 15.0, 300
    if args.workers > 1:
        parser.error("match play over several workers needs Redis; use --signin-workers")
    if args.metrics_compare:
        compare_metrics(args)
        return
    figures = measure(args)
    if figures is not None:
        report(figures, args.json)


# Figures compared by --metrics-compare: throughput (higher is better) and cost per unit.
COMPARED = (
    "moves_per_s",
    "signins_per_s",
    "signins_vs_health",
    "baseline_health_rps",
    "server_cpu_ms_per_move",
    "server_cpu_ms_per_signin",
    "p50_move_ms",
    "p99_move_ms",
)


def _mean(runs: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key in (*COMPARED, "errors"):
        values = [r[key] for r in runs if isinstance(r.get(key), int | float)]
        out[key] = round(sum(values) / len(values), 3) if values else None
    return out


def compare_metrics(args: argparse.Namespace) -> None:
    """Off, on, on, off (ABBA): the first run of a process pays for cold caches, and the
    machine's load drifts; each side gets one early and one late run, averaged."""
    say = (lambda *a: None) if args.json else (lambda *a: print(*a, flush=True))
    runs: dict[bool, list[dict[str, Any]]] = {False: [], True: []}
    for metrics in (False, True, True, False):
        say(f"== metrics {'on' if metrics else 'off'} ==")
        figures = measure(args, metrics=metrics)
        assert figures is not None
        runs[metrics].append(figures)
    off, on = _mean(runs[False]), _mean(runs[True])
    ratios = {
        f"{key}_on_vs_off": round(on[key] / off[key], 3)
        for key in COMPARED
        if isinstance(on.get(key), int | float) and off.get(key)
    }
    report(
        {
            **{f"off_{k}": off.get(k) for k in COMPARED},
            **{f"on_{k}": on.get(k) for k in COMPARED},
            "off_errors": off.get("errors"),
            "on_errors": on.get("errors"),
            **ratios,
        },
        args.json,
    )


def measure(args: argparse.Namespace, metrics: bool | None = None) -> dict[str, Any] | None:
    """One whole run (its own database and servers); the figures, or None if it reported
    (``--signins-only``)."""
    db_url = create_pg_database(args.pg_admin_url, prefix="dew_bench")
    server = None
    try:
        migrate(db_url)
        baseline = baseline_commit_ms(db_url)
        limits_on = not args.no_rate_limits
        per_address = args.wallets_per_address
        server = Server(
            db_url, args.workers, args.profile_server, rate_limits=limits_on, metrics=metrics
        )
        pids = server.pids()
        say = (lambda *a: None) if args.json else (lambda *a: print(*a, flush=True))
        players = args.signins if args.signins_only else max(args.signins, 4 * args.matches)
        say(f"creating {players} wallets ...")
        accounts = [Account.create() for _ in range(players)]
        ru0 = resource.getrusage(resource.RUSAGE_SELF)
        say(f"signing in {players} wallets ...")
        signin_server = (
            Server(db_url, args.signin_workers, rate_limits=limits_on, metrics=metrics)
            if args.signin_workers > 1
            else server
        )
        signin_pids = signin_server.pids()
        signin_cpu0 = sum(cpu_seconds(p) for p in signin_pids)
        loadgen_cpu0 = _own_cpu()
        tokens, elapsed = sign_in_all(
            signin_server.url, accounts, connections=args.threads, per_address=per_address
        )
        loadgen_signin_cpu = _own_cpu() - loadgen_cpu0
        signin_cpu = sum(cpu_seconds(p) for p in signin_pids) - signin_cpu0
        # The baseline after the sign-ins, on the warmed-up server (its first requests pay
        # for imports and pool connections).
        health = health_rps(signin_server.url, players, connections=args.threads)
        if signin_server is not server:
            signin_server.stop()
        signins_per_s = players / elapsed
        say(f"  {signins_per_s:.0f} sign-ins/s ({health:.0f} bare requests/s)")
        signin_figures = {
            "signins_per_s": round(signins_per_s, 1),
            "baseline_health_rps": round(health, 1),
            "signins_vs_health": round(signins_per_s / health, 3),
            "signin_server_cpu_pct": round(signin_cpu / max(elapsed, 1e-9) * 100, 1),
            "server_cpu_ms_per_signin": round(signin_cpu / players * 1000, 3),
            "loadgen_cpu_ms_per_signin": round(loadgen_signin_cpu / players * 1000, 3),
            "signin_workers": args.signin_workers,
            "rate_limits": limits_on,
            "client_addresses": -(-players // per_address),
        }
        if args.signins_only:
            if metrics is not None:
                return signin_figures
            report(signin_figures, args.json)
            return None
        say(f"seating {args.matches} tables ...")
        tables = seat_tables(
            server.url, tokens, args.matches, threads=args.threads, per_address=per_address
        )
        say(
            f"playing {args.matches} matches ({4 * args.matches} sockets) for "
            f"{args.warmup:g}+{args.duration:g} s ..."
        )
        ru1 = resource.getrusage(resource.RUSAGE_SELF)
        server_cpu1 = sum(cpu_seconds(p) for p in pids)
        wall1 = time.perf_counter()
        stats, measured = run_loop(
            run_matches(
                server.ws_url,
                tables,
                tokens,
                args.think,
                args.warmup,
                args.duration,
                pids,
                per_address,
            )
        )
        wall2 = time.perf_counter()
        ru2 = resource.getrusage(resource.RUSAGE_SELF)
        server_cpu2 = sum(cpu_seconds(p) for p in pids)
        rss = sum(peak_rss_mb(p) for p in pids)
    finally:
        if server:
            server.stop()
        drop_pg_database(db_url, args.pg_admin_url)

    if args.latency_log and stats.acked_at:
        origin = stats.acked_at[0]
        with open(args.latency_log, "w") as out:
            for at, latency in zip(stats.acked_at, stats.latencies, strict=True):
                out.write(f"{at - origin:.3f} {latency * 1000:.2f}\n")
    lat = sorted(stats.latencies)
    play_wall = wall2 - wall1
    figures = {
        "concurrent_matches": min(args.matches, stats.connected // 4),
        "sockets": stats.connected,
        "connect_all_s": round(stats.all_seated_s or 0.0, 1),
        "moves_per_s": round(stats.moves / measured, 1),
        "p50_move_ms": round(statistics.median(lat) * 1000, 2) if lat else None,
        "p99_move_ms": round(lat[int(len(lat) * 0.99)] * 1000, 2) if lat else None,
        "max_move_ms": round(lat[-1] * 1000, 2) if lat else None,
        "errors": stats.errors,
        "server_rss_mb": round(rss, 1),
        "signins_per_s": round(signins_per_s, 1),
        "baseline_health_rps": signin_figures["baseline_health_rps"],
        "signins_vs_health": signin_figures["signins_vs_health"],
        "server_cpu_pct": round((server_cpu2 - server_cpu1) / play_wall * 100, 1),
        "loadgen_cpu_pct": round(
            (ru2.ru_utime + ru2.ru_stime - ru1.ru_utime - ru1.ru_stime) / play_wall * 100, 1
        ),
        # CPU per acknowledged move inside the measured window (bot seats' moves and
        # broadcasts included): the figure to compare between versions on a busy machine.
        "server_cpu_ms_per_move": round(
            (stats.cpu_at_end[0] - stats.cpu_at_start[0]) / max(stats.moves, 1) * 1000, 3
        ),
        # Of which the event loop's thread (the rest: the move writer and worker threads).
        "server_loop_cpu_ms_per_move": round(stats.loop_cpu / max(stats.moves, 1) * 1000, 3),
        "loadgen_cpu_ms_per_move": round(
            (stats.cpu_at_end[1] - stats.cpu_at_start[1]) / max(stats.moves, 1) * 1000, 3
        ),
        "signin_server_cpu_pct": round(signin_cpu / max(elapsed, 1e-9) * 100, 1),
        "server_cpu_ms_per_signin": signin_figures["server_cpu_ms_per_signin"],
        "loadgen_cpu_ms_per_signin": signin_figures["loadgen_cpu_ms_per_signin"],
        "signin_workers": args.signin_workers,
        "rate_limits": limits_on,
        "client_addresses": signin_figures["client_addresses"],
        "signin_loadgen_cpu_s": round(ru1.ru_utime + ru1.ru_stime - ru0.ru_utime - ru0.ru_stime, 1),
        "baseline_commit_ms": round(baseline, 2),
        "think_s": args.think,
        "measured_s": round(measured, 1),
        "cores": os.cpu_count(),
        "error_samples": stats.error_samples,
    }
    return figures


def report(figures: dict[str, Any], as_json: bool) -> None:
    if as_json:
        print(json.dumps(figures))
    else:
        for key, value in figures.items():
            print(f"{key:>26}: {value}")


if __name__ == "__main__":
    main()
