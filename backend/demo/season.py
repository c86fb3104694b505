"""The demo's story: one season over one chain, one database and one set of services.

``Season`` starts the processes through ``backend.devstack.stack`` (anvil with the contracts,
``dew serve``, a Celery worker and beat on the demo's settings), then tells the season step
by step as real clients: five wallets sign in, the operator opens the season and mints
avatars, owners lend them to scholars, four wallets play earning matches over the
WebSocket, and the economy plans and books the payouts. What happens after the matches
(the Campeonato, a withdrawal, the scholarship boundaries) is in ``backend.demo.epilogue``;
the reconciliation and the tables are in ``backend.demo.report``.
"""

from __future__ import annotations

import signal
import threading
import time
import uuid
from contextlib import ExitStack
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from backend.demo.players import (
    ChainClient,
    DemoFailed,
    EconomyLoop,
    Out,
    PlannedTable,
    Wallet,
    api_txs,
    in_threads,
    ok,
    play_table,
    sign_in,
)
from backend.demo.results import DEW, dew_amount
from backend.devstack.stack import Stack, StackConfig, wait_for
from backend.kit.rows import columns

if TYPE_CHECKING:
    from backend.config import Settings
    from backend.economy.ledger import LedgerReconciliation

EMISSION_PER_SEAT = 10 * DEW
SEASON_BUDGET = 10_000 * DEW
# The season's leaderboard rewards, places 1..3, reserved from its budget and paid at its end.
SEASON_REWARDS = (30 * DEW, 20 * DEW, 10 * DEW)
FIXED_RENT = 25 * DEW
RENT_FAUCET = 100 * DEW
RD_OWNER_BPS = 3_000  # Rewards Division: the owner keeps 30%, the scholar 70%
# The Campeonato after the season (docs/competitions.md): 4 wallets and 4 bots.
ENTRY_FEE = 5 * DEW
ADDED_PRIZE = 20 * DEW
CAMPEONATO_FEE_BPS = 500
CAMPEONATO_PRIZE_BPS = [5000, 3000, 2000]
# The creator cora adds this much DEW to the Campeonato's prize pool (a DEW Contribution).
CONTRIBUTION = 5 * DEW
# After the season vera withdraws part of what she deposited besides her entry fee.
SAVINGS = 8 * DEW
WITHDRAWAL = 3 * DEW

ZERO_ADDRESS = "0x0000000000000000000000000000000000000000"

# The services' timings in the demo (the same values this process's settings get).
# The beat pumps the chain outbox every second so that queued requests go out quickly:
# a polling workaround while nothing wakes the worker when a request is queued (remove it
# once the API and the worker call the outbox notifier, if they do).
PUMP_EVERY_S = 1.0
POLL_INTERVAL_S = 0.1
REBROADCAST_AFTER_S = 2.0
DEMO_TIMINGS = {
    "DEW_BROKER_PUMP_EVERY_S": str(PUMP_EVERY_S),
    "DEW_CHAIN_POLL_INTERVAL_S": str(POLL_INTERVAL_S),
    "DEW_CHAIN_REBROADCAST_AFTER_S": str(REBROADCAST_AFTER_S),
    "DEW_SERVER_BOT_MOVE_DELAY_S": "0.02",
    "DEW_SERVER_GATE_POLL_S": "0.5",
    "DEW_ECONOMY_EMISSION_PER_SEAT": str(EMISSION_PER_SEAT),
    "DEW_COMPETITIONS_ADVANCE_EVERY_S": "0.5",
    "DEW_SERVER_ADOPT_STARTED_EVERY_S": "0.3",
}
WORKER = "worker-1"  # the stack's name of the demo's one worker


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

    def stack(self) -> StackConfig:
        """One API process, one worker and beat on the demo's database, broker and timings;
        this process prints the story, so the stack prints nothing."""
        return StackConfig(
            workdir=self.workdir,
            apis=1,
            workers=1,
            db_url=self.database,
            broker_url=self.broker,
            pubsub=self.redis_url is not None,
            pubsub_url=self.redis_url,
            channel_prefix=self.redis_prefix or f"dew-demo-{uuid.uuid4().hex[:8]}",
            timings=dict(DEMO_TIMINGS),
            out=lambda _text: None,
        )


def demo_settings(config: DemoConfig, processes: Stack) -> Settings:
    """This process's settings: the same as the services' environment."""
    from backend.config import (
        AuthSettings,
        BrokerSettings,
        ChainSettings,
        DatabaseSettings,
        EconomySettings,
        ServerSettings,
        Settings,
    )

    api = processes.api_urls[0]
    # Passed as a mapping: mypy reads pydantic's Field(default, ge=...) as no default.
    auth: dict[str, Any] = {"domain": api.removeprefix("http://"), "uri": api}
    return Settings(
        db=DatabaseSettings(url=processes.db_url),
        broker=BrokerSettings(url=processes.broker_url, pump_every_s=PUMP_EVERY_S),
        chain=ChainSettings(
            rpc_url=processes.rpc_url,
            manifest_path=processes.manifest_path,
            operator_key=processes.operator_key,
            poll_interval_s=POLL_INTERVAL_S,
            rebroadcast_after_s=REBROADCAST_AFTER_S,
        ),
        auth=AuthSettings(**auth),
        server=ServerSettings(port=int(api.rsplit(":", 1)[1]), redis_url=config.redis_url),
        economy=EconomySettings(emission_per_seat=EMISSION_PER_SEAT),
    )


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
    season_rewards: dict[str, Any] = field(default_factory=dict)  # paid at the season's end
    markets: dict[str, Any] = field(default_factory=dict)  # shop, equip, resale (markets.py)
    # DEW wei each wallet contributed to the Campeonato's prizes (epilogue.contribution).
    contributed: dict[str, int] = field(default_factory=dict)


class Season:
    """The demo's steps, in order, over one chain, one database and one set of services."""

    # Set by the report (backend.demo.report.close_the_books).
    reconciliation: LedgerReconciliation
    balances_after: dict[str, int]
    statements: dict[str, dict[str, Any]]

    def __init__(self, config: DemoConfig, stack: ExitStack) -> None:
        self.config, self.stack, self.out = config, stack, config.out
        self.started = time.monotonic()
        self.agreements: dict[str, dict[str, Any]] = {}
        self.matches: list[dict[str, Any]] = []
        self.crashes = 0
        # Filled by the epilogue (backend.demo.epilogue) when it runs.
        self.campeonato_seen: dict[str, Any] = {}
        self.campeonato_table = ""
        self.withdrawal_seen: dict[str, Any] = {}
        self.season_rewards_seen: dict[str, Any] = {}
        self.markets_seen: dict[str, Any] = {}
        self.withdrawal_line = ""
        self.boundary: dict[str, Any] = {}
        # DEW each wallet contributed to a tournament's prizes after the season started (it went
        # into the vault from the wallet, and comes out again as prizes).
        self.contributed: dict[str, int] = {}
        # Set by backend.demo.creators: the creator wallet and the Game Center.
        self.cora: Wallet | None = None
        self.center_id: int | None = None

    def step(self, text: str) -> None:
        self.out(f"[{time.monotonic() - self.started:5.1f}s] {text}")

    # -- 1. chain, database and services -------------------------------------------------------
    def start(self) -> None:
        self.step("starting anvil and deploying the contracts")
        import httpx

        from backend.db import create_db_engine, make_session_factory
        from backend.economy import jobs

        config, out = self.config, self.out
        self.processes = processes = Stack(config.stack())
        self.stack.callback(processes.stop)
        processes.start_stores()
        processes.start_chain()
        self.w3, self.manifest, self.contracts = (
            processes.w3,
            processes.manifest,
            processes.contracts,
        )
        self.deployer_key, self.operator_key = processes.deployer_key, processes.operator_key
        self.player_keys, self.operator = processes.player_keys, processes.operator
        out(
            f"  anvil {processes.node_url} (chain {self.manifest.chain_id}); "
            f"manifest {processes.manifest_path}"
        )
        for name, address in self.manifest.addresses.items():
            out(f"    {name:<20} {address}")

        self.step(
            f"database {processes.db_url.split('@')[-1]} (migrating), "
            f"broker {processes.broker_url.split('@')[-1]}"
        )
        processes.migrate()
        db = create_db_engine(processes.db_url)
        self.stack.callback(db.dispose)
        self.sessions = make_session_factory(db)

        self.step("starting the API server (dew serve), a Celery worker and beat")
        processes.start_services()
        out(f"  server, worker and beat started (logs in {config.workdir})")
        self.settings = demo_settings(config, processes)
        self.base = processes.api_urls[0]
        self.http = self.stack.enter_context(httpx.Client(base_url=self.base, timeout=30))
        out(f"  API {self.base} (OpenAPI docs at {self.base}/docs)")
        out(f"  watch the season's tables live: {self.base}/#/lobby")
        self.reader = jobs.chain_reader(self.settings)
        self.stack.enter_context(EconomyLoop(self.settings, self.sessions, self.reader))
        self.chain = ChainClient(self.w3)
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
            self.stack.callback(sign_in(self.base, wallet).close)
            self.out(f"  {wallet.name:<7} {wallet.address}  {wallet.role}")

    # -- 3. the operator: season and mints ---------------------------------------------------
    def mint_avatars(self) -> None:
        from backend.chain.outbox import get_request, request_mint
        from backend.db.base import utcnow
        from backend.economy import operator

        self.step("operator opens the season (emission budget) and requests avatar mints")
        olivia, oscar = self.olivia, self.oscar
        with self.sessions.begin() as session:
            season = operator.create_season(
                session=session,
                name=f"Demo season {time.strftime('%Y-%m-%d %H:%M:%S')}",
                starts_at=utcnow() - timedelta(minutes=1),
                ends_at=utcnow() + timedelta(days=7),
                emission_budget=SEASON_BUDGET,
                rewards=SEASON_REWARDS,
            )
            mint = request_mint(
                session=session,
                recipients=[olivia.address, oscar.address, olivia.address],
                idempotency_key=f"demo-mint-{uuid.uuid4().hex}",
                chain_id=self.manifest.chain_id,
            )
            mint_id, self.season_id = mint.id, season.id
        self.out(f"  season #{self.season_id}: {dew_amount(SEASON_BUDGET)} DEW to emit")
        self.out(
            "  leaderboard rewards for places 1-3: "
            + ", ".join(dew_amount(r) for r in SEASON_REWARDS)
            + " DEW (reserved from the budget, paid at the season's end)"
        )
        self.out(f"  mint request #{mint_id} queued in the outbox; waiting for the worker")

        def minted() -> Any:
            with self.sessions() as session:
                request = get_request(session=session, request_id=mint_id)
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
        term: dict[str, Any] = {"duration_s": 3600}
        fixed_rent = {"terms": "fixed_rent", "rent": str(FIXED_RENT), **term}
        division = {"terms": "rewards_division", "owner_bps": RD_OWNER_BPS, "dust_to": "owner"}
        offers = [
            (olivia, sam, {"avatar_id": self.avatar_fr, **fixed_rent}),
            (oscar, rita, {"avatar_id": self.avatar_rd, **division, **term}),
        ]
        for owner, scholar, body in offers:
            body |= {"owner": owner.address, "scholar": scholar.address}
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
        from backend.economy import operator

        self.step("operator issues a VIP pass to vera (dew vip issue: outbox, worker)")
        expires = self.w3.eth.get_block("latest")["timestamp"] + 7 * 24 * 3600
        with self.sessions.begin() as session:
            request = operator.queue_vip(
                session=session,
                action="issue",
                address=self.vera.address,
                expires_at=expires,
                idempotency_key=f"demo-vip-{uuid.uuid4().hex}",
                chain_id=self.manifest.chain_id,
            )
        self.out(f"  VIP request #{request.id} queued in the outbox; waiting for the worker")

        def issued() -> Any:
            with self.sessions() as session:
                status = operator.vip_status(session=session, request_id=request.id)
            if status.status == "failed":
                raise DemoFailed(f"VIP issue failed: {status.failure_reason}")
            return status.status == "confirmed" and status.tx_hash

        tx_hash = wait_for("the VIP pass (worker)", issued, timeout_s=90)
        vip = self.contracts.vip.functions
        self.out(f"  vera's pass valid: {vip.isValid(self.vera.address).call()} (tx {tx_hash})")

    # -- 5. the Campeonato's entry fees, deposited before the season's first match ----------
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
        # The deployer holds the DEW treasury: one block for the four faucet transfers (and
        # cora's DEW for her contribution to the Campeonato's prizes, before the season starts).
        faucet = [tx(token.transfer(w.address, ENTRY_FEE), deployer) for w in self.entrants]
        if self.cora is not None:
            faucet.append(tx(token.transfer(self.cora.address, CONTRIBUTION), deployer))
        self.chain.send(self.deployer_key, faucet)
        in_threads(
            lambda wallet: self.chain.send(
                wallet.key, [tx(token.transfer(self.vault, ENTRY_FEE), wallet.address)]
            ),
            self.entrants,
        )

    # -- 5b. a deposit through the API, withdrawn in part after the season ------------------
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

    # -- 6. matches over the WebSocket ------------------------------------------------------
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
            worker = self.processes.services[WORKER]
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
        for tables in rounds:
            done = in_threads(lambda plan: play_table(plan, self.out, names), tables)
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

    # -- 7. settlement -------------------------------------------------------------------------
    def settle(self) -> None:
        self.step(
            "settling: the economy plans payouts, the worker sends settle(), the ledger books"
        )
        match_ids = [m["over"]["match_id"] for m in self.matches]

        def settled() -> Any:
            self.supervise_worker()
            return self.settled(match_ids)

        rows = wait_for("every match paid and booked", settled, timeout_s=120, every_s=0.5)
        for match, row in zip(self.matches, rows, strict=True):
            match["settlement"] = row
            self.out(
                f"  {match['title']}: {row['status']:<7} "
                f"emission {dew_amount(int(row['emission']))}, "
                f"returned to the season {dew_amount(int(row['returned']))}, "
                f"tx {row['tx_hash'] or '- (nobody earned)'}"
            )

    def settled(self, match_ids: list[str]) -> list[dict[str, Any]] | None:
        """Every match's settlement once all are paid (or paid nothing); else None."""
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

    # -- processes ---------------------------------------------------------------------------
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
        self.processes.restart(WORKER, env, log_as=name)

    def supervise_worker(self) -> None:
        """A killed worker is restarted without the crash hook (what systemd/k8s would do)."""
        worker = self.processes.services[WORKER]
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
            **columns(
                self,
                "config settings w3 contracts sessions http wallets treasury vault agreements"
                " matches season_block balances_before balances_after statements reconciliation"
                " crashes boundary",
            ),
            campeonato=self.campeonato_seen,
            contributed=self.contributed,
            withdrawal=self.withdrawal_seen,
            season_rewards=self.season_rewards_seen,
            markets=self.markets_seen,
        )
