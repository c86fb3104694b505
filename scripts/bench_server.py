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

Baseline in the same run: ``baseline_commit_ms``, the time of one bare INSERT+COMMIT on
the same database, i.e. the floor under any acknowledged move.
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import os
import random
import resource
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
from eth_account import Account
from eth_account.messages import encode_defunct
from sqlalchemy import create_engine, text
from websockets.asyncio.client import connect

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from backend.db import migrate  # noqa: E402

PG_ADMIN_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def create_database(admin_url: str) -> str:
    name = f"dew_bench_{uuid.uuid4().hex[:10]}"
    admin = create_engine(admin_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    admin.dispose()
    return admin_url.rsplit("/", 1)[0] + f"/{name}"


def drop_database(admin_url: str, url: str) -> None:
    admin = create_engine(admin_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{url.rsplit("/", 1)[1]}" WITH (FORCE)'))
    admin.dispose()


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


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


class Server:
    def __init__(self, db_url: str, workers: int) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.ws_url = f"ws://127.0.0.1:{self.port}"
        env = {k: v for k, v in os.environ.items() if not k.startswith("DEW_")}
        env.update(
            {
                "DEW_DB_URL": db_url,
                "DEW_CHAIN_MANIFEST_PATH": "/nonexistent/deployment.json",
                "DEW_SERVER_TURN_TIMEOUT_S": "120",
                "DEW_SERVER_BOT_MOVE_DELAY_S": "1.0",
                "DEW_SERVER_DB_POOL_SIZE": "20",
                "DEW_SERVER_ORPHAN_GRACE_S": "600",
            }
        )
        self.log = open(f"/tmp/dew-bench-server-{self.port}.log", "wb")  # noqa: SIM115
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "uvicorn",
                "backend.api.app:create_app",
                "--factory",
                "--port",
                str(self.port),
                "--log-level",
                "warning",
                "--no-access-log",
                "--backlog",
                "8192",
                # Moves are ~1 KB of JSON: compressing them costs more CPU than it saves.
                "--ws-per-message-deflate",
                "false",
                "--timeout-graceful-shutdown",
                "20",
                *(["--workers", str(workers)] if workers > 1 else []),
            ],
            cwd=REPO,
            env=env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("server exited at start")
            try:
                if httpx.get(self.url + "/health", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.2)
        raise RuntimeError("server did not start")

    def pids(self) -> list[int]:
        children = subprocess.run(
            ["pgrep", "-P", str(self.proc.pid)], capture_output=True, text=True
        ).stdout.split()
        return [self.proc.pid, *map(int, children)]

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(60)
        except subprocess.TimeoutExpired:
            self.proc.kill()


class Http:
    """A keep-alive HTTP/1.1 connection per load-generator thread (httpx's async pool costs
    more CPU than the server it measures)."""

    def __init__(self, base_url: str) -> None:
        host, port = base_url.removeprefix("http://").split(":")
        self.conn = http.client.HTTPConnection(host, int(port), timeout=60)

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


def sign_in(http: Http, account: Any) -> str:
    message = http.post("/auth/nonce", {"address": account.address})["message"]
    signature = account.sign_message(encode_defunct(text=message)).signature.hex()
    tokens = http.post(
        "/auth/signin", {"message": message, "signature": "0x" + signature.removeprefix("0x")}
    )
    return tokens["access_token"]


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


def sign_in_all(base_url: str, accounts: list[Any], threads: int) -> tuple[list[str], float]:
    started = time.perf_counter()
    tokens = parallel(base_url, accounts, sign_in, threads)
    return tokens, time.perf_counter() - started


def seat_tables(base_url: str, tokens: list[str], matches: int, threads: int) -> list[str]:
    def one(http: Http, seats: list[str]) -> str:
        table = http.post("/tables", {"preset": "dew200", "turn_timeout_s": 120}, seats[0])
        for token in seats[1:]:
            http.post(f"/tables/{table['id']}/join", {}, token)
        return table["id"]

    return parallel(base_url, [tokens[4 * m : 4 * m + 4] for m in range(matches)], one, threads)


class Stats:
    def __init__(self) -> None:
        self.latencies: list[float] = []
        self.errors = 0
        self.error_samples: list[str] = []
        self.moves = 0
        self.measuring = False
        self.finished_matches = 0
        self.connected = 0

    def error(self, what: str) -> None:
        self.errors += 1
        if len(self.error_samples) < 5:
            self.error_samples.append(what[:300])


async def bot_client(
    ws_url: str, table_id: str, token: str, think_s: float, stats: Stats, stop: asyncio.Event
) -> None:
    try:
        ws = await connect(
            f"{ws_url}/ws/tables/{table_id}?token={token}",
            max_size=2**22,
            open_timeout=60,
            compression=None,
        )
    except Exception as error:
        stats.error(f"connect: {error!r}")
        return
    stats.connected += 1
    rng = random.Random(token)
    pending: dict[str, float] = {}
    seat = None
    view: dict[str, Any] | None = None
    ply = 0
    turn_task: asyncio.Task[None] | None = None

    async def move_after_think(at_ply: int, legal: list[str]) -> None:
        await asyncio.sleep(think_s * rng.uniform(0.9, 1.1))
        if stop.is_set():
            return
        ref = f"{at_ply}"
        pending[ref] = time.perf_counter()
        await ws.send(
            json.dumps({"v": 1, "type": "move", "move": legal[0], "ply": at_ply, "ref": ref})
        )

    try:
        while not stop.is_set():
            try:
                raw = await asyncio.wait_for(ws.recv(), timeout=5.0)
            except TimeoutError:
                continue
            message = json.loads(raw)
            kind = message["type"]
            if kind == "ack":
                sent = pending.pop(str(message.get("ref")), None)
                if sent is not None and stats.measuring:
                    stats.latencies.append(time.perf_counter() - sent)
                    stats.moves += 1
                continue
            if kind == "error":
                stats.error(f"server error: {message['error']}")
                continue
            if kind == "match_over":
                stats.finished_matches += 1 if seat == 0 else 0
                break
            if kind == "snapshot":
                seat = message["you"]
            if kind in ("snapshot", "moved") and message.get("view"):
                view = message["view"]
                ply = message["ply"]
                if view["turn"] == seat and view["legal_moves"] and not view["match_over"]:
                    turn_task = asyncio.create_task(move_after_think(ply, view["legal_moves"]))
    except Exception as error:
        if not stop.is_set():
            stats.error(f"socket: {error!r}")
    finally:
        if turn_task:
            turn_task.cancel()
        await ws.close()


async def run_matches(
    ws_url: str,
    tables: list[str],
    tokens: list[str],
    think_s: float,
    warmup_s: float,
    measure_s: float,
) -> tuple[Stats, float]:
    stats = Stats()
    stop = asyncio.Event()
    tasks = []
    for m, table_id in enumerate(tables):
        for s in range(4):
            tasks.append(
                asyncio.create_task(
                    bot_client(ws_url, table_id, tokens[4 * m + s], think_s, stats, stop)
                )
            )
        if m % 50 == 49:
            await asyncio.sleep(0.05)  # let the accepts keep up
    await asyncio.sleep(warmup_s)
    stats.measuring = True
    started = time.perf_counter()
    await asyncio.sleep(measure_s)
    stats.measuring = False
    elapsed = time.perf_counter() - started
    stop.set()
    await asyncio.wait(tasks, timeout=15)
    return stats, elapsed


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
    parser.add_argument("--threads", type=int, default=32, help="HTTP load-generator threads")
    parser.add_argument(
        "--signin-workers",
        type=int,
        default=1,
        help="uvicorn workers of a separate server used for the sign-in phase (sign-ins are "
        "stateless between processes, so they scale out without Redis)",
    )
    parser.add_argument("--quick", action="store_true", help="20 matches, 15 s: a smoke run")
    parser.add_argument("--pg-admin-url", default=PG_ADMIN_URL)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    if args.quick:
        args.matches, args.warmup, args.duration, args.signins = 20, 3.0, 15.0, 300
    if args.workers > 1:
        parser.error("match play over several workers needs Redis; use --signin-workers")

    db_url = create_database(args.pg_admin_url)
    server = None
    try:
        migrate(db_url)
        baseline = baseline_commit_ms(db_url)
        server = Server(db_url, args.workers)
        pids = server.pids()
        say = (lambda *a: None) if args.json else (lambda *a: print(*a, flush=True))
        players = max(args.signins, 4 * args.matches)
        say(f"creating {players} wallets ...")
        accounts = [Account.create() for _ in range(players)]
        ru0 = resource.getrusage(resource.RUSAGE_SELF)
        say(f"signing in {players} wallets ...")
        signin_server = Server(db_url, args.signin_workers) if args.signin_workers > 1 else server
        signin_pids = signin_server.pids()
        signin_cpu0 = sum(cpu_seconds(p) for p in signin_pids)
        tokens, elapsed = sign_in_all(signin_server.url, accounts, threads=args.threads)
        signin_cpu = sum(cpu_seconds(p) for p in signin_pids) - signin_cpu0
        if signin_server is not server:
            signin_server.stop()
        signins_per_s = players / elapsed
        say(f"  {signins_per_s:.0f} sign-ins/s")
        say(f"seating {args.matches} tables ...")
        tables = seat_tables(server.url, tokens, args.matches, threads=args.threads)
        say(
            f"playing {args.matches} matches ({4 * args.matches} sockets) for "
            f"{args.warmup:g}+{args.duration:g} s ..."
        )
        ru1 = resource.getrusage(resource.RUSAGE_SELF)
        server_cpu1 = sum(cpu_seconds(p) for p in pids)
        wall1 = time.perf_counter()
        stats, measured = asyncio.run(
            run_matches(server.ws_url, tables, tokens, args.think, args.warmup, args.duration)
        )
        wall2 = time.perf_counter()
        ru2 = resource.getrusage(resource.RUSAGE_SELF)
        server_cpu2 = sum(cpu_seconds(p) for p in pids)
        rss = sum(peak_rss_mb(p) for p in pids)
    finally:
        if server:
            server.stop()
        drop_database(args.pg_admin_url, db_url)

    lat = sorted(stats.latencies)
    play_wall = wall2 - wall1
    figures = {
        "concurrent_matches": min(args.matches, stats.connected // 4),
        "sockets": stats.connected,
        "moves_per_s": round(stats.moves / measured, 1),
        "p50_move_ms": round(statistics.median(lat) * 1000, 2) if lat else None,
        "p99_move_ms": round(lat[int(len(lat) * 0.99)] * 1000, 2) if lat else None,
        "max_move_ms": round(lat[-1] * 1000, 2) if lat else None,
        "errors": stats.errors,
        "server_rss_mb": round(rss, 1),
        "signins_per_s": round(signins_per_s, 1),
        "server_cpu_pct": round((server_cpu2 - server_cpu1) / play_wall * 100, 1),
        "loadgen_cpu_pct": round(
            (ru2.ru_utime + ru2.ru_stime - ru1.ru_utime - ru1.ru_stime) / play_wall * 100, 1
        ),
        "signin_server_cpu_pct": round(signin_cpu / max(elapsed, 1e-9) * 100, 1),
        "signin_workers": args.signin_workers,
        "signin_loadgen_cpu_s": round(ru1.ru_utime + ru1.ru_stime - ru0.ru_utime - ru0.ru_stime, 1),
        "baseline_commit_ms": round(baseline, 2),
        "think_s": args.think,
        "measured_s": round(measured, 1),
        "cores": os.cpu_count(),
        "error_samples": stats.error_samples,
    }
    if args.json:
        print(json.dumps(figures))
    else:
        for key, value in figures.items():
            print(f"{key:>24}: {value}")


if __name__ == "__main__":
    main()
