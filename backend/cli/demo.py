"""`dew demo`: the main job. One command plays a short season and pays it on chain.

It starts a real anvil and deploys the contracts, starts the match server (``dew serve``), a
Celery worker (``dew worker``) and beat as subprocesses on the embedded defaults (SQLite
database and SQLite broker in a fresh directory), then plays the season as real clients:
every wallet signs in with SIWE over HTTP, signs the transactions the API hands it with its
own key, and plays its seats over the WebSocket. The operator's side (season, mint request,
VIP pass, the economy's periodic jobs) runs in this process. It ends with a table per wallet
and the reconciliation of the ledger against the chain; the exit code is 0 only if they agree
to the unit and every wallet's DEW balance moved by exactly what the ledger says it was paid.

The same scenario runs on PostgreSQL + Redis (``--db-url``, ``--redis-url``): the e2e tests
in ``tests/e2e`` run it both ways and check the balances with their own arithmetic.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

from backend.cli.app import app
from backend.cli.stack import (
    BLOCK_TIME_S,
    REPO_ROOT,
    Service,
    StackFailed,
    dew_command,
    free_port,
    wait_for,
)

DEW = 10**18
EMISSION_PER_SEAT = 10 * DEW
SEASON_BUDGET = 10_000 * DEW
FIXED_RENT = 25 * DEW
RENT_FAUCET = 100 * DEW
RD_OWNER_BPS = 3_000  # Rewards Division: the owner keeps 30%, the scholar 70%
# The Campeonato after the season (docs/competitions.md): 4 wallets and 4 bots.
ENTRY_FEE = 5 * DEW
ADDED_PRIZE = 20 * DEW
CAMPEONATO_FEE_BPS = 500
CAMPEONATO_PRIZE_BPS = [5000, 3000, 2000]
# After the season vera withdraws part of what she deposited besides her entry fee.
SAVINGS = 8 * DEW
WITHDRAWAL = 3 * DEW
THINK_TIME_S = 0.08  # between one client's moves: the server allows 20 messages/s


ZERO_ADDRESS = "0x0000000000000000000000000000000000000000"


# The demo's failures are the harness's: a step that did not reach its state in time.
DemoFailed = StackFailed

Out = Callable[[str], None]


def dew_amount(wei: int) -> str:
    return f"{Decimal(wei) / DEW:,.2f}"


# --- configuration and the processes -------------------------------------------------------


@dataclass
class DemoConfig:
    """Where the demo keeps its state; ``None`` means the embedded default in ``workdir``."""

    workdir: Path
    db_url: str | None = None
    broker_url: str | None = None
    redis_url: str | None = None  # the server's pub/sub between processes
    redis_prefix: str | None = None
    # Kill the worker (SIGKILL, the TX engine's crash hook) at this step of the first
    # settlement transaction, then start a fresh one, as a supervisor would.
    crash_worker_at: str | None = None
    # After the season: early termination (pro rata refund), then an expired rental: its
    # scholar is refused at join and the owner's next match pays the owner.
    boundaries: bool = False
    # Keep chain, server and workers up after the season (until Ctrl-C or SIGTERM), so a
    # person can go on watching and playing in the web client.
    stay: bool = False
    out: Out = print

    @property
    def database(self) -> str:
        return self.db_url or f"sqlite:///{self.workdir / 'dew.sqlite3'}"

    @property
    def broker(self) -> str:
        return self.broker_url or f"sqla+sqlite:///{self.workdir / 'broker.sqlite3'}"


# --- wallets: keys held by the clients only ------------------------------------------------


@dataclass
class Wallet:
    name: str
    role: str
    key: str
    plays: bool = False
    avatar_id: int | None = None
    token: str | None = None
    address: str = ""
    tx_hashes: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        from eth_account import Account

        self.address = Account.from_key(self.key).address

    @property
    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}


class ChainClient:
    """A user's wallet: signs transactions locally with its own key and waits for them."""

    def __init__(self, w3: Any) -> None:
        self.w3 = w3
        self._lock = threading.Lock()

    def send(self, key: str, txs: list[dict[str, Any]], timeout_s: float = 60) -> list[str]:
        """Sign ``txs`` (``to``, ``data``, optional ``value``/``gas``) in order; wait for all."""
        from eth_account import Account

        account = Account.from_key(key)
        hashes = []
        with self._lock:
            nonce = self.w3.eth.get_transaction_count(account.address, "pending")
            base = self.w3.eth.get_block("latest")["baseFeePerGas"]
            for i, tx in enumerate(txs):
                fields = {
                    "from": account.address,
                    "to": tx["to"],
                    "data": tx["data"],
                    "value": int(tx.get("value") or 0),
                    "gas": int(tx.get("gas") or 1_000_000),
                    "nonce": nonce + i,
                    "chainId": self.w3.eth.chain_id,
                    "maxFeePerGas": base * 2 + 10**9,
                    "maxPriorityFeePerGas": 10**9,
                }
                signed = account.sign_transaction(fields)
                hashes.append(self.w3.eth.send_raw_transaction(signed.raw_transaction).to_0x_hex())
        for tx_hash in hashes:
            receipt = wait_for(
                f"transaction {tx_hash}", lambda h=tx_hash: self._receipt(h), timeout_s
            )
            if receipt["status"] != 1:
                raise DemoFailed(f"transaction {tx_hash} reverted")
        return hashes

    def call(self, key: str, function: Any) -> list[str]:
        """Sign a contract call of our own (the operator's and deployer's side)."""
        from eth_account import Account

        built = function.build_transaction({"from": Account.from_key(key).address})
        return self.send(key, [{"to": built["to"], "data": built["data"], "gas": 500_000}])

    def _receipt(self, tx_hash: str) -> Any:
        from web3.exceptions import TransactionNotFound

        try:
            return self.w3.eth.get_transaction_receipt(tx_hash)
        except TransactionNotFound:
            return None


def api_txs(response: Any) -> list[dict[str, Any]]:
    """The unsigned transactions an economy write route returned, ready for ``send``."""
    if response.status_code != 200:
        raise DemoFailed(f"{response.request.url} answered {response.status_code}: {response.text}")
    return [
        {
            "to": tx["to"],
            "data": tx["data"],
            "value": int(tx["value"], 16),
            "gas": int(tx["gas"], 16) if tx.get("gas") else None,
        }
        for tx in response.json()["transactions"]
    ]


def ok(response: Any) -> Any:
    if response.status_code >= 400:
        raise DemoFailed(
            f"{response.request.method} {response.request.url.path} answered "
            f"{response.status_code}: {response.text}"
        )
    return response.json() if response.content else None


def sign_in(http: Any, wallet: Wallet) -> None:
    """EIP-4361: the server composes the message, the wallet signs it with personal_sign."""
    from eth_account import Account
    from eth_account.messages import encode_defunct

    grant = ok(http.post("/auth/nonce", json={"address": wallet.address}))
    signature = Account.from_key(wallet.key).sign_message(encode_defunct(text=grant["message"]))
    tokens = ok(
        http.post(
            "/auth/signin",
            json={"message": grant["message"], "signature": signature.signature.to_0x_hex()},
        )
    )
    wallet.token = tokens["access_token"]


# --- playing over the WebSocket --------------------------------------------------------------


def choose_move(view: dict[str, Any]) -> str:
    """A client's own choice from its view: the heaviest legal tile (shed pips), else draw/pass."""

    def weight(move: str) -> int:
        if ":" not in move:
            return -1
        high, low = move[:-1].split(":")
        return int(high) + int(low)

    return max(view["legal_moves"], key=weight)


T = TypeVar("T")
R = TypeVar("R")


def in_threads(target: Callable[[T], R], items: Iterable[T]) -> list[R]:
    """``target(item)`` for every item, each in its own thread (the wallets act at once);
    the results in the order they finished; the first error is raised here."""
    results: list[R] = []
    errors: list[BaseException] = []

    def run(item: T) -> None:
        try:
            results.append(target(item))
        except BaseException as error:  # re-raised below, in the caller's thread
            errors.append(error)

    threads = [threading.Thread(target=run, args=(item,)) for item in items]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]
    return results


def play_seat(ws_url: str, wallet: Wallet, timeout_s: float = 90) -> dict[str, Any]:
    """Play this wallet's seat until the match is over; returns the ``match_over`` message."""
    from websockets.sync.client import connect

    deadline = time.monotonic() + timeout_s
    sent_at_ply, last_sent = -1, 0.0
    last: dict[str, Any] = {}
    with connect(f"{ws_url}?token={wallet.token}", open_timeout=10) as ws:
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise DemoFailed(
                    f"{wallet.name}'s match did not end in {timeout_s:.0f}s; last message: "
                    f"{json.dumps(last)[:600]}"
                )
            message = last = json.loads(ws.recv(timeout=remaining))
            kind = message["type"]
            if kind == "match_over":
                return message
            if kind == "error":
                # A move that raced a timer or a resync: look again from a full snapshot.
                if message["error"]["code"] in ("stale_ply", "not_your_turn", "rate_limited"):
                    sent_at_ply = -1  # the snapshot will show whether it is still our turn
                    ws.send(json.dumps({"v": 1, "type": "resync"}))
                    continue
                raise DemoFailed(f"{wallet.name}: server error {message['error']}")
            if kind == "snapshot" and message.get("final"):
                return message["final"]
            if kind not in ("snapshot", "moved"):
                continue
            view, ply = message["view"], message["ply"]
            my_turn = view and view.get("turn") == view.get("seat") and view.get("legal_moves")
            if my_turn and ply != sent_at_ply:
                sent_at_ply = ply
                # A player's think time: the server allows 20 messages/s per socket.
                time.sleep(max(0.0, last_sent + THINK_TIME_S - time.monotonic()))
                last_sent = time.monotonic()
                ws.send(json.dumps({"v": 1, "type": "move", "move": choose_move(view), "ply": ply}))


@dataclass
class PlannedTable:
    """One earning table: who creates it, who joins which seat, and its rules."""

    title: str
    preset: str
    seats: int
    creator: Wallet
    joiners: list[tuple[Wallet, int]]
    options: dict[str, Any] = field(default_factory=dict)


def play_table(
    http: Any, base_ws: str, plan: PlannedTable, out: Out, names: dict[str, str]
) -> dict[str, Any]:
    creator = plan.creator
    body = {
        "preset": plan.preset,
        "seats": plan.seats,
        "options": plan.options,
        "earning": True,
        "kind": "human",
        "bot_level": "easy",
        "avatar_id": creator.avatar_id,
    }
    table = ok(http.post("/tables", json=body, headers=creator.auth))
    for wallet, seat in plan.joiners:
        table = ok(
            http.post(
                f"/tables/{table['id']}/join",
                json={"seat": seat, "avatar_id": wallet.avatar_id},
                headers=wallet.auth,
            )
        )
    humans = [creator] + [w for w, _ in plan.joiners]
    if table["status"] == "open":  # empty seats left: the creator fills them with bots
        table = ok(http.post(f"/tables/{table['id']}/start", headers=creator.auth))
    seats = ", ".join(names.get(s["address"]) or f"bot ({s['bot_level']})" for s in table["seats"])
    options = f" {plan.options}" if plan.options else ""
    out(f"  {plan.title}: {plan.preset}{options}, seats [{seats}]")
    url = f"{base_ws}{table['ws_path']}"
    over = in_threads(lambda wallet: play_seat(url, wallet), humans)[0]
    match = ok(http.get(f"/matches/{over['match_id']}"))
    return {"title": plan.title, "table": table, "over": over, "match": match}


# --- the economy's periodic jobs (the operator's process) ---------------------------------


class EconomyLoop:
    """Follows the registry and the vault, plans finished matches into the chain outbox and
    books confirmed settlements, once a second, with this demo's settings."""

    def __init__(self, settings: Any, sessions: Any, reader: Any) -> None:
        self.settings, self.sessions, self.reader = settings, sessions, reader
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="economy-jobs", daemon=True)
        self.error: BaseException | None = None

    def __enter__(self) -> EconomyLoop:
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=30)

    def cycle(self) -> None:
        from backend.economy import jobs
        from backend.economy.indexer import index_registry
        from backend.economy.stakes import index_deposits

        index_registry(session_factory=self.sessions, reader=self.reader)
        index_deposits(session_factory=self.sessions, reader=self.reader)
        jobs.plan_finished_matches(
            session_factory=self.sessions,
            settings=self.settings,
            chain_clock_offset_s=self.reader.clock_offset_s(),
        )
        jobs.sync_ledger(session_factory=self.sessions, reader=self.reader)

    def _run(self) -> None:
        while not self._stop.wait(0.5):
            try:
                self.cycle()
            except Exception as error:  # a node hiccup: the next pass retries
                self.error = error


# --- the season -------------------------------------------------------------------------


@dataclass
class DemoContext:
    """What a checker (the e2e tests) can inspect while everything still runs."""

    config: DemoConfig
    settings: Any
    w3: Any
    contracts: Any
    sessions: Any
    http: Any
    wallets: dict[str, Wallet]
    treasury: str
    vault: str
    agreements: dict[str, dict[str, Any]]
    matches: list[dict[str, Any]]
    season_block: int  # the block before the first match: balances are compared from it
    balances_before: dict[str, int]
    balances_after: dict[str, int]
    statements: dict[str, dict[str, Any]]
    reconciliation: Any
    crashes: int  # workers killed by the crash hook and restarted
    boundary: dict[str, Any]  # what the boundaries epilogue saw (empty without it)
    campeonato: dict[str, Any] = field(default_factory=dict)  # the tournament after the season
    withdrawal: dict[str, Any] = field(default_factory=dict)  # vera's, after the season


@dataclass
class DemoResult:
    ok: bool
    problems: list[str]
    table: str
    seconds: float


def _settings(config: DemoConfig, rpc_url: str, manifest: Path, operator_key: str, port: int):
    from backend.config import (
        AuthSettings,
        BrokerSettings,
        ChainSettings,
        DatabaseSettings,
        EconomySettings,
        ServerSettings,
        Settings,
    )

    return Settings(
        db=DatabaseSettings(url=config.database),
        broker=BrokerSettings(url=config.broker, pump_every_s=1.0),
        chain=ChainSettings(
            rpc_url=rpc_url,
            manifest_path=manifest,
            operator_key=operator_key,
            poll_interval_s=0.1,
            rebroadcast_after_s=2.0,
        ),
        auth=AuthSettings(domain=f"127.0.0.1:{port}", uri=f"http://127.0.0.1:{port}"),
        server=ServerSettings(port=port, redis_url=config.redis_url),
        economy=EconomySettings(emission_per_seat=EMISSION_PER_SEAT),
    )


def _env(settings: Any, config: DemoConfig, suffix: str) -> dict[str, str]:
    """The DEW_* environment of the subprocesses: the same settings as this process."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEW_")}
    env.update(
        {
            "DEW_DB_URL": settings.db.url,
            "DEW_BROKER_URL": settings.broker.url,
            "DEW_BROKER_PAYOUTS_QUEUE": f"payouts-{suffix}",
            "DEW_BROKER_DEFAULT_QUEUE": f"dew-{suffix}",
            "DEW_BROKER_PUMP_EVERY_S": str(settings.broker.pump_every_s),
            "DEW_CHAIN_RPC_URL": settings.chain.rpc_url,
            "DEW_CHAIN_MANIFEST_PATH": str(settings.chain.manifest_path),
            "DEW_CHAIN_OPERATOR_KEY": settings.chain.operator_key,
            "DEW_CHAIN_POLL_INTERVAL_S": str(settings.chain.poll_interval_s),
            "DEW_CHAIN_REBROADCAST_AFTER_S": str(settings.chain.rebroadcast_after_s),
            "DEW_AUTH_DOMAIN": settings.auth.domain,
            "DEW_AUTH_URI": settings.auth.uri,
            "DEW_SERVER_PORT": str(settings.server.port),
            "DEW_SERVER_BOT_MOVE_DELAY_S": "0.02",
            "DEW_SERVER_GATE_POLL_S": "0.5",
            "DEW_ECONOMY_EMISSION_PER_SEAT": str(settings.economy.emission_per_seat),
            "DEW_COMPETITIONS_ADVANCE_EVERY_S": "0.5",
            "DEW_SERVER_ADOPT_STARTED_EVERY_S": "0.3",
        }
    )
    if config.redis_url:
        env["DEW_SERVER_REDIS_URL"] = config.redis_url
        env["DEW_SERVER_REDIS_CHANNEL_PREFIX"] = config.redis_prefix or f"dew-demo-{suffix}"
    return env


@contextmanager
def _services(settings: Any, config: DemoConfig, out: Out) -> Iterator[list[Service]]:
    suffix = uuid.uuid4().hex[:8]
    env = _env(settings, config, suffix)
    logs = config.workdir
    dew = dew_command()
    started: list[Service] = []
    try:
        started.append(
            Service(
                "server",
                [*dew, "serve", "--no-migrate", "--log-level", "warning"],
                env,
                logs / "server.log",
            )
        )
        started.append(
            Service("worker", [*dew, "worker", "--loglevel", "WARNING"], env, logs / "worker.log")
        )
        beat = [sys.executable, "-m", "celery", "-A", "worker.celery_app", "beat"]
        beat += ["--loglevel", "WARNING", "-s", str(logs / "beat-schedule")]
        started.append(Service("beat", beat, env, logs / "beat.log"))
        out(f"  server, worker and beat started (logs in {logs})")
        yield started
    finally:
        for service in reversed(started):
            service.stop()


def run_demo(config: DemoConfig, check: Callable[[DemoContext], None] | None = None) -> DemoResult:
    """Play the season; ``check`` (the tests) runs with everything still up, before teardown."""
    config.workdir.mkdir(parents=True, exist_ok=True)
    with ExitStack() as stack:
        season = Season(config, stack)
        season.start()
        season.sign_in()
        season.mint_avatars()
        season.scholarships()
        season.vip_pass()
        season.entry_deposits()
        season.deposit_savings()
        season.play()
        season.settle()
        season.campeonato()
        season.withdrawal()
        result = season.report()
        if config.boundaries:
            result = season.boundaries(result)
        if check is not None:
            check(season.context())
        if config.stay:
            season.stay()
        season.step("stopping")
    return result


class Season:
    """The demo's steps, in order, over one chain, one database and one set of services."""

    def __init__(self, config: DemoConfig, stack: ExitStack) -> None:
        self.config, self.stack, self.out = config, stack, config.out
        self.started = time.monotonic()
        self.agreements: dict[str, dict[str, Any]] = {}
        self.matches: list[dict[str, Any]] = []
        self.crashes = 0

    def step(self, text: str) -> None:
        self.out(f"[{time.monotonic() - self.started:5.1f}s] {text}")

    # -- 1. chain, database and services -------------------------------------------------------
    def start(self) -> None:
        self.step("starting anvil and deploying the contracts")
        import httpx
        from eth_account import Account
        from web3 import Web3

        from backend.chain.anvil import Anvil
        from backend.chain.contracts import Contracts, save_manifest
        from backend.chain.deploy import deploy_all
        from backend.db import create_db_engine, make_session_factory, migrate
        from backend.economy import jobs

        config, out = self.config, self.out
        node = self.stack.enter_context(Anvil())
        self.w3 = w3 = Web3(Web3.HTTPProvider(node.rpc_url, request_kwargs={"timeout": 10}))
        self.deployer_key, self.operator_key, *self.player_keys = node.keys
        self.operator = Account.from_key(self.operator_key).address
        self.manifest = deploy_all(w3, self.deployer_key, operator=self.operator)
        manifest_path = save_manifest(self.manifest, config.workdir / "deployment.json")
        self.contracts = Contracts(w3, self.manifest)
        # From now on a block every second, as on a real chain: confirmations keep coming.
        w3.provider.make_request("evm_setIntervalMining", [BLOCK_TIME_S])
        out(f"  anvil {node.rpc_url} (chain {self.manifest.chain_id}); manifest {manifest_path}")
        for name, address in self.manifest.addresses.items():
            out(f"    {name:<20} {address}")

        port = free_port()
        self.settings = _settings(config, node.rpc_url, manifest_path, self.operator_key, port)
        self.step(
            f"database {self.settings.db.url.split('@')[-1]} (migrating), "
            f"broker {self.settings.broker.url.split('@')[-1]}"
        )
        migrate(self.settings.db.url)
        db = create_db_engine(self.settings.db.url)
        self.stack.callback(db.dispose)
        self.sessions = make_session_factory(db)

        self.step("starting the API server (dew serve), a Celery worker (dew worker) and beat")
        self.services = services = self.stack.enter_context(_services(self.settings, config, out))
        self.base = f"http://127.0.0.1:{port}"
        self.http = http = self.stack.enter_context(httpx.Client(base_url=self.base, timeout=30))

        def server_up() -> bool:
            for process in services:
                process.check_alive()
            try:
                return http.get("/health").status_code == 200
            except httpx.HTTPError:
                return False

        wait_for("the API server", server_up, timeout_s=120, every_s=0.5)
        out(f"  API {self.base} (OpenAPI docs at {self.base}/docs)")
        out(f"  watch the season's tables live: {self.base}/#/lobby")
        self.reader = jobs.chain_reader(self.settings)
        self.stack.enter_context(EconomyLoop(self.settings, self.sessions, self.reader))
        self.chain = ChainClient(w3)
        self.treasury = self.settings.economy.treasury
        self.vault = self.manifest.address("MatchSettlement")

    # -- 2. wallets ------------------------------------------------------------------------
    def sign_in(self) -> None:
        keys = self.player_keys
        self.olivia = Wallet("olivia", "owner (Fixed Rent) + player", keys[0], plays=True)
        self.oscar = Wallet("oscar", "owner (Rewards Division)", keys[1])
        self.sam = Wallet("sam", "scholar, Fixed Rent", keys[2], plays=True)
        self.rita = Wallet("rita", "scholar, Rewards Division", keys[3], plays=True)
        self.vera = Wallet("vera", "VIP pass holder", keys[4], plays=True)
        self.wallets = {
            w.name: w for w in (self.olivia, self.oscar, self.sam, self.rita, self.vera)
        }
        self.step("signing in five wallets with Sign-In with Ethereum (EIP-4361)")
        for wallet in self.wallets.values():
            sign_in(self.http, wallet)
            self.out(f"  {wallet.name:<7} {wallet.address}  {wallet.role}")

    # -- 3. the operator: season and mints ---------------------------------------------------
    def mint_avatars(self) -> None:
        from backend.chain.models import ChainRequest
        from backend.chain.outbox import request_mint
        from backend.db.base import utcnow
        from backend.economy import seasons as service

        self.step("operator opens the season (emission budget) and requests avatar mints")
        olivia, oscar = self.olivia, self.oscar
        with self.sessions.begin() as session:
            season = service.create_season(
                session=session,
                name=f"Demo season {time.strftime('%Y-%m-%d %H:%M:%S')}",
                starts_at=utcnow() - timedelta(minutes=1),
                ends_at=utcnow() + timedelta(days=7),
                emission_budget=SEASON_BUDGET,
            )
            mint = request_mint(
                session=session,
                recipients=[olivia.address, oscar.address, olivia.address],
                idempotency_key=f"demo-mint-{uuid.uuid4().hex}",
                chain_id=self.manifest.chain_id,
            )
            mint_id, self.season_id = mint.id, season.id
        self.out(f"  season #{self.season_id}: {dew_amount(SEASON_BUDGET)} DEW to emit")
        self.out(f"  mint request #{mint_id} queued in the outbox; waiting for the worker")

        def minted() -> Any:
            with self.sessions() as session:
                request = session.get(ChainRequest, mint_id)
                if request.status == "failed":
                    raise DemoFailed(f"mint failed: {request.failure_reason}")
                return request.status == "confirmed" and (request.result, request.tx_hash)

        result, mint_tx = wait_for("the avatar mint (worker)", minted, timeout_s=90)
        self.avatar_fr, self.avatar_rd, olivia.avatar_id = result["token_ids"]
        self.out(f"  minted avatars {result['token_ids']} in tx {mint_tx}")
        self.out(
            f"    #{self.avatar_fr} and #{olivia.avatar_id} -> olivia, #{self.avatar_rd} -> oscar"
        )

    # -- 4. scholarships through the API, signed by each user's own wallet ------------------------
    def scholarships(self) -> None:
        http, chain, out = self.http, self.chain, self.out
        olivia, oscar, sam, rita = self.olivia, self.oscar, self.sam, self.rita
        self.step("the screener approves both owners (the API builds, the screener signs)")
        for owner in (olivia, oscar):
            body = {"screener": self.operator, "owner": owner.address}
            chain.send(self.operator_key, api_txs(http.post("/economy/screenings", json=body)))

        self.step("owners offer: Fixed Rent olivia -> sam, Rewards Division 30/70 oscar -> rita")
        offers = [
            (
                olivia,
                sam,
                {
                    "owner": olivia.address,
                    "avatar_id": self.avatar_fr,
                    "scholar": sam.address,
                    "terms": "fixed_rent",
                    "duration_s": 3600,
                    "rent": str(FIXED_RENT),
                },
            ),
            (
                oscar,
                rita,
                {
                    "owner": oscar.address,
                    "avatar_id": self.avatar_rd,
                    "scholar": rita.address,
                    "terms": "rewards_division",
                    "duration_s": 3600,
                    "owner_bps": RD_OWNER_BPS,
                    "dust_to": "owner",
                },
            ),
        ]
        # Sam pays his rent in DEW: a faucet (the deployer, who holds the treasury) gives him some.
        token = self.contracts.token
        chain.call(self.deployer_key, token.functions.transfer(sam.address, RENT_FAUCET))
        out(f"  faucet: {dew_amount(RENT_FAUCET)} DEW to sam for the rent")
        for owner, _scholar, body in offers:
            owner.tx_hashes += chain.send(
                owner.key, api_txs(http.post("/economy/offers", json=body))
            )

        for _owner, scholar, body in offers:

            def offered(avatar: int = body["avatar_id"]) -> Any:
                rows = ok(http.get("/economy/agreements", params={"avatar_id": avatar}))
                return next((a for a in rows if a["status"] == "offered"), None)

            offer = wait_for("the offer in the mirror (indexer)", offered, timeout_s=30)
            accept = http.post(
                f"/economy/agreements/{offer['id']}/accept", json={"scholar": scholar.address}
            )
            scholar.tx_hashes += chain.send(scholar.key, api_txs(accept))
            scholar.avatar_id = body["avatar_id"]
            self.agreements[scholar.name] = offer

        for name, offer in self.agreements.items():

            def active(agreement_id: int = offer["id"]) -> Any:
                row = ok(http.get(f"/economy/agreements/{agreement_id}"))
                return row["status"] == "active" and row

            a = self.agreements[name] = wait_for("the accepted agreement", active, timeout_s=30)
            scholar = self.wallets[name]
            user = self.contracts.avatar.functions.userOf(a["avatar_id"]).call()
            out(
                f"  agreement #{a['id']} {a['terms']} on avatar #{a['avatar_id']}: active, "
                f"ERC-4907 user {'= ' + name if user == scholar.address else user}"
            )

    def vip_pass(self) -> None:
        self.step("operator issues a VIP pass to vera")
        expires = self.w3.eth.get_block("latest")["timestamp"] + 7 * 24 * 3600
        vip = self.contracts.vip.functions
        self.chain.call(self.operator_key, vip.issue(self.vera.address, expires))
        self.out(f"  vera's pass valid: {vip.isValid(self.vera.address).call()}")

    # -- 5. matches over the WebSocket ------------------------------------------------------
    def play(self) -> None:
        olivia, sam, rita, vera = self.olivia, self.sam, self.rita, self.vera
        token = self.contracts.token.functions
        self.addresses = {w.name: w.address for w in self.wallets.values()}
        self.addresses |= {"treasury": self.treasury, "vault": self.vault}
        self.season_block = self.w3.eth.block_number
        self.balances_before = {
            name: token.balanceOf(address).call(block_identifier=self.season_block)
            for name, address in self.addresses.items()
        }
        if self.config.crash_worker_at:
            worker = next(p for p in self.services if p.name == "worker")
            self.swap_worker(
                "worker (crash hook)",
                {**worker.env, "DEW_CHAIN_CRASH_AT": self.config.crash_worker_at},
            )
            self.out(f"  the worker now dies at '{self.config.crash_worker_at}' of its next tx")
        self.step("four wallets play earning matches with bots over the WebSocket")
        rounds = [
            [  # target 50 is a premium option: only a VIP pass holder may create that table
                PlannedTable("match 1", "partnership", 4, vera, [(sam, 2)], {"target": 50}),
                PlannedTable("match 2", "dew200", 4, rita, [(olivia, 1)]),
            ],
            [
                PlannedTable("match 3", "partnership", 4, sam, [(vera, 1), (rita, 2), (olivia, 3)]),
            ],
            # One earning table at a time per wallet and avatar: rita and olivia play again
            # once match 3 is over.
            [
                PlannedTable("match 4", "draw", 2, rita, []),
                PlannedTable("match 5", "draw", 2, olivia, []),
            ],
        ]
        names = {w.address: w.name for w in self.wallets.values()}
        base_ws = self.base.replace("http://", "ws://")
        for tables in rounds:
            done = in_threads(
                lambda plan: play_table(self.http, base_ws, plan, self.out, names), tables
            )
            for played in sorted(done, key=lambda m: m["title"]):
                seats = played["match"]["seats"]
                ranked = sorted(played["over"]["result"]["seats"], key=lambda r: r["placement"])
                summary = ", ".join(
                    f"{r['placement']}. {names.get(seats[r['seat']]['address'], 'bot')}"
                    f" ({r['points']} pts)"
                    for r in ranked
                )
                self.out(f"  {played['title']} over: {summary}")
                self.matches.append(played)

    # -- 5b. the Campeonato's entry fees, deposited before the season's first match ----------
    def entry_deposits(self) -> None:
        token = self.contracts.token.functions
        self.entrants = [self.olivia, self.sam, self.rita, self.vera]
        self.step(
            f"the four players get {dew_amount(ENTRY_FEE)} DEW (faucet) and deposit it into the "
            "vault for the Campeonato's entry fee"
        )

        def tx(call: Any, sender: str) -> dict[str, Any]:
            built = call.build_transaction({"from": sender, "gas": 200_000})
            return {"to": built["to"], "data": built["data"], "gas": 200_000}

        deployer = self.w3.eth.account.from_key(self.deployer_key).address
        # The deployer holds the DEW treasury: one block for the four faucet transfers.
        faucet = [tx(token.transfer(w.address, ENTRY_FEE), deployer) for w in self.entrants]
        self.chain.send(self.deployer_key, faucet)
        in_threads(
            lambda wallet: self.chain.send(
                wallet.key, [tx(token.transfer(self.vault, ENTRY_FEE), wallet.address)]
            ),
            self.entrants,
        )

    # -- 5c. a deposit through the API, withdrawn in part after the season ------------------
    def deposit_savings(self) -> None:
        vera, token = self.vera, self.contracts.token.functions
        self.step(
            f"vera gets {dew_amount(SAVINGS)} DEW more and deposits it into the vault: the API "
            "builds the transfer (POST /wallet/deposit), her wallet signs it"
        )
        deployer = self.w3.eth.account.from_key(self.deployer_key).address
        faucet = token.transfer(vera.address, SAVINGS).build_transaction({"from": deployer})
        self.chain.send(self.deployer_key, [{"to": faucet["to"], "data": faucet["data"]}])
        body = {"amount": str(SAVINGS)}
        self.chain.send(
            vera.key, api_txs(self.http.post("/wallet/deposit", json=body, headers=vera.auth))
        )

    def withdrawal(self) -> None:
        vera, http = self.vera, self.http
        self.step(
            f"vera withdraws {dew_amount(WITHDRAWAL)} DEW of her stake balance "
            "(POST /wallet/withdrawals): paid by the worker through the outbox"
        )

        def money() -> dict[str, Any]:
            return ok(http.get("/wallet", headers=vera.auth))

        wait_for(
            "vera's deposit credited",
            lambda: int(money()["stake_balance"]) >= WITHDRAWAL,
            timeout_s=60,
            every_s=0.3,
        )
        before = int(money()["stake_balance"])
        body = {"amount": str(WITHDRAWAL), "idempotency_key": f"demo-{uuid.uuid4().hex}"}
        made = ok(http.post("/wallet/withdrawals", json=body, headers=vera.auth))
        states = [made["state"]]

        def paid() -> Any:
            self.supervise_worker()
            row = ok(http.get(f"/wallet/withdrawals/{made['id']}", headers=vera.auth))
            if row["state"] == "failed":
                raise DemoFailed(f"vera's withdrawal failed: {row['reason']}")
            if row["state"] != states[-1]:
                states.append(row["state"])
            return row if row["state"] == "paid" else None

        row = wait_for("vera's withdrawal paid", paid, timeout_s=120, every_s=0.3)
        after = int(money()["stake_balance"])
        self.withdrawal_seen = {**row, "wallet": "vera", "amount": WITHDRAWAL}
        self.withdrawal_line = (
            f"withdrawal: vera took {dew_amount(WITHDRAWAL)} DEW of her {dew_amount(before)} DEW "
            f"stake balance out of the vault ({' -> '.join(states)}; settle tx "
            f"{row['tx_hash'][:10]}…); {dew_amount(after)} DEW stays deposited"
        )
        self.out(f"  {self.withdrawal_line}")

    # -- 6b. the Campeonato after the season -------------------------------------------------
    def campeonato(self) -> None:
        from backend.competitions import service as competitions
        from backend.competitions.models import escrow_key
        from backend.db.base import utcnow
        from backend.economy.stakes import stake_balance

        http, out = self.http, self.out
        self.step(
            "Campeonato: 4 wallets (entry fee from their vault deposit) and 4 bots, "
            "single elimination, seeded from the season's leaderboard"
        )

        def credited() -> bool:
            with self.sessions() as session:
                return all(
                    stake_balance(session=session, address=w.address) >= ENTRY_FEE
                    for w in self.entrants
                )

        wait_for("the entry deposits credited", credited, timeout_s=60, every_s=0.3)
        with self.sessions() as session:
            t = competitions.create_tournament(
                session=session,
                spec=competitions.TournamentSpec(
                    name=f"Campeonato {time.strftime('%Y-%m-%d %H:%M:%S')}",
                    tier="campeonato",
                    format="elimination",
                    preset="draw",
                    season_id=self.season_id,
                    entry_fee=ENTRY_FEE,
                    added_prize=ADDED_PRIZE,
                    fee_bps=CAMPEONATO_FEE_BPS,
                    prize_bps=CAMPEONATO_PRIZE_BPS,
                    qualify_top=2,
                    min_entrants=8,
                    max_entrants=8,
                    starts_at=utcnow() + timedelta(minutes=10),
                    turn_timeout_s=30,
                    bot_level="easy",
                ),
                created_by="operator",
                settlement_limit=competitions.settlement_limit(self.contracts),
            )
            tid = t.id
        numbers: dict[int, Wallet] = {}
        for wallet in self.entrants:
            body = {"avatar_id": wallet.avatar_id} if wallet.avatar_id else {}
            entry = ok(http.post(f"/competitions/{tid}/register", json=body, headers=wallet.auth))
            numbers[entry["number"]] = wallet
        with self.sessions() as session:  # the organizer fills the draw: it starts when full
            competitions.add_bots(session=session, tournament_id=tid, count=4, level="easy")
        base_ws = self.base.replace("http://", "ws://")

        def play_games(item: tuple[int, Wallet]) -> None:
            number, wallet = item
            played: set[str] = set()
            deadline = time.monotonic() + 180
            while time.monotonic() < deadline:
                if ok(http.get(f"/competitions/{tid}"))["status"] != "running" and played:
                    return
                rounds = ok(http.get(f"/competitions/{tid}/bracket"))
                mine = [
                    g
                    for r in rounds
                    for g in r["games"]
                    if number in (g["a"], g["b"]) and g["match_id"] not in played
                ]
                lost = any(
                    g["status"] != "live" and g["winner"] not in (None, number)
                    for r in rounds
                    for g in r["games"]
                    if number in (g["a"], g["b"])
                )
                if lost:
                    return
                live = [g for g in mine if g["status"] == "live"]
                if not live:
                    time.sleep(0.2)
                    continue
                play_seat(f"{base_ws}/ws/tables/{live[0]['table_id']}", wallet)
                played.add(live[0]["match_id"])
            raise DemoFailed(f"{wallet.name}'s Campeonato games did not end in time")

        in_threads(play_games, list(numbers.items()))

        key = escrow_key(tid)

        def settled() -> Any:
            self.supervise_worker()
            if ok(http.get(f"/competitions/{tid}"))["status"] != "finished":
                return None
            return self._settled([key])

        [row] = wait_for("the Campeonato's prizes paid", settled, timeout_s=120, every_s=0.5)
        detail = ok(http.get(f"/competitions/{tid}"))
        standings = ok(http.get(f"/competitions/{tid}/standings"))
        bracket = ok(http.get(f"/competitions/{tid}/bracket"))
        for r in bracket:
            games = []
            for g in r["games"]:
                a = numbers[g["a"]].name if g["a"] in numbers else f"bot#{g['a']}"
                b = numbers[g["b"]].name if g["b"] in numbers else f"bot#{g['b']}"
                w = numbers[g["winner"]].name if g["winner"] in numbers else f"bot#{g['winner']}"
                games.append(f"{a}-{b}: {w}")
            out(f"  round {r['round']}: " + "; ".join(games))
        self.campeonato_seen = {
            "id": tid,
            "detail": detail,
            "standings": standings,
            "settlement": row,
            "numbers": {n: w.name for n, w in numbers.items()},
        }
        self.campeonato_table = render_campeonato(
            detail, standings, numbers, self.agreements, row["tx_hash"]
        )

    # -- 6. settlement -------------------------------------------------------------------------
    def settle(self) -> None:
        self.step(
            "settling: the economy plans payouts, the worker sends settle(), the ledger books"
        )
        match_ids = [m["over"]["match_id"] for m in self.matches]

        def settled() -> Any:
            self.supervise_worker()
            return self._settled(match_ids)

        rows = wait_for("every match paid and booked", settled, timeout_s=120, every_s=0.5)
        for match, row in zip(self.matches, rows, strict=True):
            match["settlement"] = row
            self.out(
                f"  {match['title']}: {row['status']:<7} "
                f"emission {dew_amount(int(row['emission']))}, "
                f"returned to the season {dew_amount(int(row['returned']))}, "
                f"tx {row['tx_hash'] or '- (nobody earned)'}"
            )

    # -- 7. the books against the chain ----------------------------------------------------
    def report(self) -> DemoResult:
        http, out = self.http, self.out
        self.step("reconciling the ledger with the chain's events")
        self.reconciliation = _reconcile(self.settings, self.sessions, self.reader)
        token = self.contracts.token.functions
        self.balances_after = {n: token.balanceOf(a).call() for n, a in self.addresses.items()}
        self.statements = {
            name: {
                "summary": ok(http.get(f"/economy/wallets/{address}")),
                "lines": ok(http.get(f"/economy/wallets/{address}/statement")),
            }
            for name, address in self.addresses.items()
            if name != "vault"
        }
        before, after = self.balances_before, self.balances_after
        problems = list(self.reconciliation.differences)
        for name, statement in self.statements.items():
            delta, paid = after[name] - before[name], int(statement["summary"]["paid"])
            if delta != paid:
                problems.append(f"{name}: balance moved {delta} but the ledger paid {paid}")
        vault_out = before["vault"] - after["vault"]
        ledger_paid = sum(int(s["summary"]["paid"]) for s in self.statements.values())
        withdrawn = sum(
            int(s["summary"]["by_role"].get("withdrawal", {}).get("paid", 0))
            for s in self.statements.values()
        )
        count = sum(
            1 for s in self.statements.values() for x in s["lines"] if x["role"] == "withdrawal"
        )
        # Withdrawals are booked as their own ledger legs and proven apart (reconcile_withdrawals).
        if withdrawn != self.reconciliation.withdrawals_paid:
            problems.append(
                f"withdrawal legs paid {withdrawn}, withdrawals reconciled "
                f"{self.reconciliation.withdrawals_paid}"
            )
        if vault_out != (ledger_paid - withdrawn) + self.reconciliation.withdrawals_paid:
            problems.append(
                f"the vault sent {vault_out} but the ledger paid {ledger_paid - withdrawn} "
                f"and withdrawals {self.reconciliation.withdrawals_paid}"
            )
        played = {
            name: sum(1 for m in self.matches for s in m["match"]["seats"] if s["address"] == a)
            for name, a in self.addresses.items()
        }
        table = render_table(self.wallets, self.statements, before, after, played, self.treasury)
        emitted = sum(
            int(m["settlement"]["emission"]) - int(m["settlement"]["returned"])
            for m in self.matches
        )
        seen = getattr(self, "campeonato_seen", {})
        emitted += int(seen["settlement"]["emission"]) if seen else 0  # its added prize
        campeonato = getattr(self, "campeonato_table", "")
        table = f"{table}\n\n{campeonato}" if campeonato else table
        withdrawal_line = getattr(self, "withdrawal_line", "")
        table = f"{table}\n\n{withdrawal_line}" if withdrawal_line else table
        out("")
        out(table)
        out("")
        out(
            f"vault paid out {dew_amount(vault_out)} DEW; ledger paid "
            f"{dew_amount(ledger_paid - withdrawn)} DEW + withdrawals {dew_amount(withdrawn)} DEW; "
            f"season #{self.season_id} emitted {dew_amount(emitted)} DEW"
        )
        if problems:
            out("RECONCILIATION FAILED:")
            for problem in problems:
                out(f"  - {problem}")
        else:
            out(
                f"reconciliation OK: {len(self.matches)} matches, {count} withdrawal(s); "
                "ledger == MatchSettled and AvatarPayoutSplit events; "
                "vault transfers == ledger + withdrawals == balance changes, to the unit"
            )
        return DemoResult(not problems, problems, table, time.monotonic() - self.started)

    # -- 8. scholarship boundaries (optional) ---------------------------------------------
    def boundaries(self, result: DemoResult) -> DemoResult:
        http, chain, out, w3 = self.http, self.chain, self.out, self.w3
        token = self.contracts.token.functions
        sam, olivia, rita, oscar = self.sam, self.olivia, self.rita, self.oscar
        problems = list(result.problems)
        self.boundary: dict[str, Any] = {}

        self.step("boundary: sam ends his Fixed Rent early; unused rent comes back pro rata")
        fixed = self.agreements["sam"]
        before = {w.name: token.balanceOf(w.address).call() for w in (sam, olivia)}
        terminate = http.post(
            f"/economy/agreements/{fixed['id']}/terminate", json={"scholar": sam.address}
        )
        [tx_hash] = chain.send(sam.key, api_txs(terminate))
        receipt = w3.eth.get_transaction_receipt(tx_hash)
        ended_at = w3.eth.get_block(receipt["blockNumber"])["timestamp"]
        refund = token.balanceOf(sam.address).call() - before["sam"]
        to_owner = token.balanceOf(olivia.address).call() - before["olivia"]
        self.boundary["termination"] = {
            "agreement": fixed,
            "ended_at": ended_at,
            "refund": refund,
            "to_owner": to_owner,
        }
        used = ended_at - fixed["starts_at"]
        out(
            f"  terminated after {used}s of {fixed['duration_s']}s: sam got "
            f"{dew_amount(refund)} DEW back, olivia {dew_amount(to_owner)} DEW of rent"
        )
        if refund + to_owner != int(fixed["rent"]):
            problems.append(f"rent {fixed['rent']} != refund {refund} + owner's {to_owner}")
        if self.contracts.avatar.functions.userOf(fixed["avatar_id"]).call() != ZERO_ADDRESS:
            problems.append("the terminated rental still has an ERC-4907 user")

        self.step("boundary: rita's Rewards Division term runs out (chain time + 1 hour)")
        division = self.agreements["rita"]
        w3.provider.make_request("evm_increaseTime", [division["duration_s"] + 1])
        w3.provider.make_request("evm_mine", [])
        oscar.avatar_id = rita.avatar_id
        before = {w.name: token.balanceOf(w.address).call() for w in (rita, oscar)}
        wins: list[dict[str, Any]] = []
        refused = None
        base_ws = self.base.replace("http://", "ws://")
        for attempt in range(1, 9):  # a bot may win a hand: play until the owner wins one
            body = {"preset": "draw", "seats": 2, "earning": True, "kind": "human"}
            body |= {"bot_level": "easy", "avatar_id": oscar.avatar_id}
            table = ok(http.post("/tables", json=body, headers=oscar.auth))
            join = http.post(
                f"/tables/{table['id']}/join",
                json={"avatar_id": rita.avatar_id},
                headers=rita.auth,
            )
            if refused is None:
                refused = join
                code = join.json().get("error", {}).get("code")
                out(f"  rita joins with avatar #{rita.avatar_id}: {join.status_code} {code}")
                if (join.status_code, code) != (403, "not_eligible"):
                    problems.append(f"rita's expired rental was not refused: {join.text}")
            if join.is_success:
                raise DemoFailed(f"rita sat down with an expired rental: {problems[-1]}")
            ok(http.post(f"/tables/{table['id']}/start", headers=oscar.auth))
            over = play_seat(f"{base_ws}{table['ws_path']}", oscar)
            seats = ok(http.get(f"/matches/{over['match_id']}"))
            played = {
                "title": f"owner's match {attempt}",
                "table": table,
                "over": over,
                "match": seats,
            }
            self.matches.append(played)
            won = over["result"]["seats"][0]["placement"] == 1
            outcome = "won" if won else "lost"
            out(f"  oscar plays avatar #{oscar.avatar_id} himself against a bot: {outcome}")
            played["after_expiry"] = True
            if won:
                wins.append(played)
                break
        ids = [m["over"]["match_id"] for m in self.matches[-attempt:]]
        rows = wait_for(
            "the owner's matches paid", lambda: self._settled(ids), timeout_s=90, every_s=0.5
        )
        for played, row in zip(self.matches[-attempt:], rows, strict=True):
            played["settlement"] = row
        gained = {w.name: token.balanceOf(w.address).call() - before[w.name] for w in (rita, oscar)}
        self.boundary["expiry"] = {"wins": wins, "gained": gained, "refused": refused}
        out(
            f"  paid after the term: oscar +{dew_amount(gained['oscar'])} DEW (owner, 100%), "
            f"rita +{dew_amount(gained['rita'])} DEW"
        )
        if gained["rita"] != 0:
            problems.append(f"rita was paid {gained['rita']} after her rental expired")
        report = _reconcile(self.settings, self.sessions, self.reader)
        problems += report.differences
        self.reconciliation = report
        out(
            "boundaries OK: refund pro rata, expired scholar refused, owner paid; ledger still "
            "reconciles"
            if not problems
            else "BOUNDARIES FAILED: " + "; ".join(problems)
        )
        return DemoResult(not problems, problems, result.table, time.monotonic() - self.started)

    def _settled(self, match_ids: list[str]) -> list[dict[str, Any]] | None:
        rows = []
        for match_id in match_ids:
            response = self.http.get(f"/economy/matches/{match_id}")
            if response.status_code == 404:
                return None
            row = ok(response)
            if row["status"] == "failed":
                raise DemoFailed(f"settlement of match {match_id} failed")
            if row["status"] not in ("paid", "nothing"):
                return None
            rows.append(row)
        return rows

    def stay(self) -> None:
        """Serve until Ctrl-C or SIGTERM: the web client, the API and the workers stay up."""
        stop = threading.Event()
        previous = signal.signal(signal.SIGTERM, lambda *_: stop.set())
        self.step(f"still serving: open {self.base}/#/lobby (Ctrl-C to stop)")
        try:
            while not stop.wait(1.0):
                self.supervise_worker()
        except KeyboardInterrupt:
            pass
        finally:
            signal.signal(signal.SIGTERM, previous)

    def swap_worker(self, name: str, env: dict[str, str]) -> None:
        """Replace the running worker by one with ``env`` (its log is ``<name>.log``)."""
        index = next(i for i, p in enumerate(self.services) if p.name.startswith("worker"))
        old = self.services[index]
        old.stop()
        log = self.config.workdir / f"{name.replace(' ', '-')}.log"
        self.services[index] = Service(name, old.args, env, log)

    def supervise_worker(self) -> None:
        """A killed worker is restarted without the crash hook (what systemd/k8s would do)."""
        worker = next(p for p in self.services if p.name.startswith("worker"))
        if worker.name == "worker (crash hook)" and worker.exited() is not None:
            self.crashes += 1
            self.out(
                f"  worker killed at {self.config.crash_worker_at} (exit {worker.exited()}); "
                "starting a fresh worker: it resumes the transaction it finds in the database"
            )
            env = {k: v for k, v in worker.env.items() if k != "DEW_CHAIN_CRASH_AT"}
            self.swap_worker("worker restarted", env)

    def context(self) -> DemoContext:
        return DemoContext(
            config=self.config,
            settings=self.settings,
            w3=self.w3,
            contracts=self.contracts,
            sessions=self.sessions,
            http=self.http,
            wallets=self.wallets,
            treasury=self.treasury,
            vault=self.vault,
            agreements=self.agreements,
            matches=self.matches,
            season_block=self.season_block,
            balances_before=self.balances_before,
            balances_after=self.balances_after,
            statements=self.statements,
            reconciliation=self.reconciliation,
            crashes=self.crashes,
            boundary=getattr(self, "boundary", {}),
            campeonato=getattr(self, "campeonato_seen", {}),
            withdrawal=getattr(self, "withdrawal_seen", {}),
        )


def _reconcile(settings: Any, sessions: Any, reader: Any) -> Any:
    """The ledger's and the TX engine's reconciliations at the confirmed head (one report)."""
    from backend.economy import jobs

    return jobs.reconcile_books(settings=settings, session_factory=sessions, reader=reader)


def render_table(
    wallets: dict[str, Wallet],
    statements: dict[str, dict[str, Any]],
    before: dict[str, int],
    after: dict[str, int],
    played: dict[str, int],
    treasury: str,
) -> str:
    rows = [
        (
            "wallet",
            "role",
            "matches",
            "rewards",
            "as owner",
            "as scholar",
            "own/VIP",
            "withdrawn",
            "DEW balance",
            "change",
            "settle txs",
        )
    ]
    for name, statement in statements.items():
        summary, lines = statement["summary"], statement["lines"]
        by_role = summary["by_role"]

        def paid(role: str, roles: dict[str, Any] = by_role) -> str:
            return dew_amount(int(roles.get(role, {}).get("paid", 0)))

        wallet = wallets.get(name)
        txs = sorted({line["tx_hash"] for line in lines if line["tx_hash"]})
        rows.append(
            (
                f"{name} {(wallet.address if wallet else treasury)[:8]}",
                wallet.role if wallet else "treasury (fees)",
                str(played.get(name, 0)),
                dew_amount(
                    int(summary["paid"]) - int(by_role.get("withdrawal", {}).get("paid", 0))
                ),
                paid("owner"),
                paid("scholar"),
                paid("wallet"),
                paid("withdrawal"),
                dew_amount(after[name]),
                ("+" if after[name] >= before[name] else "")
                + dew_amount(after[name] - before[name]),
                " ".join(t[:10] + "…" for t in txs) or "-",
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines_out = []
    for i, row in enumerate(rows):
        lines_out.append(
            "  ".join(
                c.ljust(w) if j < 2 or j == len(row) - 1 else c.rjust(w)
                for j, (c, w) in enumerate(zip(row, widths, strict=True))
            )
        )
        if i == 0:
            lines_out.append("  ".join("-" * w for w in widths))
    return "\n".join(lines_out)


def render_campeonato(
    detail: dict[str, Any],
    standings: list[dict[str, Any]],
    numbers: dict[int, Wallet],
    agreements: dict[str, dict[str, Any]],
    tx_hash: str | None,
) -> str:
    """The Campeonato's final table: place, entrant, wins, prize and who it was paid to."""
    by_avatar = {a["avatar_id"]: a for a in agreements.values()}
    names = {w.address: w.name for w in numbers.values()}
    entrants = {e["number"]: e for e in detail["entrants"]}
    fees = detail["entry_fee"] * len(numbers)
    fee = fees * detail["fee_bps"] // 10_000
    pool = fees + detail["added_prize"] - fee
    rows = [("place", "entrant", "seed", "wins", "prize", "paid to", "qualified")]
    for s in standings:
        wallet = numbers.get(s["entrant"])
        avatar = entrants[s["entrant"]]["avatar_id"]
        paid_to = "-"
        if s["prize"]:
            agreement = by_avatar.get(avatar)
            if avatar is None:
                paid_to = "wallet"
            elif agreement is None:
                paid_to = f"avatar #{avatar} (owner, 100%)"
            elif agreement["terms"] == "fixed_rent":
                paid_to = f"avatar #{avatar} (Fixed Rent: scholar 100%)"
            else:
                owner = names.get(agreement["owner"], "owner")
                paid_to = f"avatar #{avatar} (Rewards Division: {owner} 30%, scholar 70%)"
        rows.append(
            (
                str(s["place"]),
                f"{wallet.name} {wallet.address[:8]}" if wallet else f"bot #{s['entrant']}",
                str(entrants[s["entrant"]]["seed"]),
                str(s["wins"]),
                dew_amount(s["prize"]),
                paid_to,
                "yes" if s["qualified"] else "",
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = [
        f"{detail['name']} (single elimination, preset {detail['preset']}, "
        f"{len(standings)} entrants): entry {dew_amount(detail['entry_fee'])} DEW x "
        f"{len(numbers)} + {dew_amount(detail['added_prize'])} DEW from the season - "
        f"fee {dew_amount(fee)} DEW = prize pool {dew_amount(pool)} DEW; "
        f"settle tx {tx_hash or '-'}"
    ]
    for i, row in enumerate(rows):
        lines.append("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())
        if i == 0:
            lines.append("  ".join("-" * w for w in widths))
    lines.append(
        "bots fill the draw but win no prize and never qualify; the top 2 wallets qualify for "
        "the Campeonisimo"
    )
    return "\n".join(lines)


@app.command("demo")
def demo_command(
    workdir: Annotated[
        Path | None, typer.Option(help="State directory (default: a fresh one under var/demo)")
    ] = None,
    db_url: Annotated[
        str | None, typer.Option(help="Database (default: SQLite in workdir)")
    ] = None,
    broker_url: Annotated[
        str | None, typer.Option(help="Celery broker (default: SQLite in workdir)")
    ] = None,
    redis_url: Annotated[str | None, typer.Option(help="Server pub/sub (default: none)")] = None,
    keep: Annotated[bool, typer.Option(help="Keep the state directory afterwards")] = True,
    boundaries: Annotated[
        bool,
        typer.Option(help="Then: early termination refund, an expired rental refused at join"),
    ] = False,
    crash_worker_at: Annotated[
        str | None,
        typer.Option(help="Kill the worker at this step of the first settlement, then restart it"),
    ] = None,
    stay: Annotated[
        bool, typer.Option(help="Keep serving after the season (web client at /) until Ctrl-C")
    ] = False,
) -> None:
    """Play a short season end to end on a fresh chain and pay it; exit 0 only if it reconciles."""
    import logging

    from backend.chain.crash import STEPS

    if crash_worker_at is not None and crash_worker_at not in STEPS:
        raise typer.BadParameter(f"--crash-worker-at must be one of {list(STEPS)}")
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s %(message)s")
    if workdir is None:
        (REPO_ROOT / "var" / "demo").mkdir(parents=True, exist_ok=True)
        workdir = Path(tempfile.mkdtemp(prefix="run-", dir=REPO_ROOT / "var" / "demo"))
    config = DemoConfig(
        workdir=workdir,
        db_url=db_url,
        broker_url=broker_url,
        redis_url=redis_url,
        crash_worker_at=crash_worker_at,
        boundaries=boundaries,
        stay=stay,
        out=lambda text: typer.echo(text),
    )
    try:
        result = run_demo(config)
    except DemoFailed as error:
        typer.echo(f"DEMO FAILED: {error}\n(logs in {workdir})", err=True)
        raise typer.Exit(1) from None
    typer.echo(f"done in {result.seconds:.0f}s; state and logs in {workdir}")
    if not keep:
        shutil.rmtree(workdir, ignore_errors=True)
    raise typer.Exit(0 if result.ok else 1)
