"""The chaos run: the scale-out stack under load and faults, and what was lost.

It starts the docker-compose topology as local processes (``backend.devstack.stack``) on a private
PostgreSQL (``initdb``/``pg_ctl`` on a temporary directory) and a private Redis (a free port,
no persistence), with anvil (1 s blocks) behind an RPC gate. Bots with VIP passes play a
season of earning matches (two wallets per table, both over the public HTTP API and
WebSocket, round-robin over the two API processes), wallets play earning tables against a
bot, and a tournament is played; meanwhile:

1. one API process is SIGKILLed mid-match (its clients reconnect to the other and resume),
   then restarted;
2. the worker holding the operator wallet's pump lease is SIGKILLed while a settlement
   transaction is in flight, then restarted;
3. a table's background work fails: the database refuses the final commit of matches a
   bot's move ends (a trigger, for the next few tries), so the server's bot turns raise;
4. Redis (broker and pub/sub) is killed and restarted empty;
5. the chain RPC is cut for 30 s (10 s with ``--quick``).

Every wallet's client comes from its own loopback address (127.0.0.2, 127.0.0.3, ...), as
players do from their own machines: the production rate limits stay on, per address and
per wallet, and a run that trips them fails with that cause.

Then it waits for every payout, runs ``dew reconcile`` and prints: moves lost (acked by the
server but missing from the final record), payouts lost (planned, not paid), payouts
duplicated (more than one ``MatchSettled`` per match id, or more DEW out of the vault than
the ledger paid), matches that failed to resume, the faults injected, and the p99 move
latency (send to ack, measured by the clients) during and after each fault. If the API
serves ``/metrics`` its move figures are read too; otherwise it says "not available".

    uv run python scripts/chaos.py [--quick] [--json] [--keep]

Outside CI: it takes minutes (``--quick`` about two). Exit code 0 only if nothing was lost,
no client met an error, and the failed background work was counted.
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import httpx
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from backend.devstack.stack import Stack, StackConfig, StackFailed, dew_command, wait_for
from backend.protocol.client import DewClient, DewClientError, Seat

DEW = 10**18
THINK_S = 0.06  # between a client's moves (the server allows 20 messages/s per socket)
RECV_TIMEOUT_S = 20.0  # a silent socket this long is treated as dead: reconnect elsewhere
# A wallet's table creations at least this far apart, retries included (each is counted):
# under the production limit (DEW_HTTP_CREATE_PER_WALLET, 12 a minute).
CREATE_AGAIN_S = 6.0


def p99(values: list[float]) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))], 1)


@dataclass
class Recorder:
    """What the clients saw, shared by all their threads."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    latencies: list[tuple[float, float]] = field(default_factory=list)  # (time, ms)
    acked: list[tuple[str, int, int, str]] = field(default_factory=list)  # match, ply, seat, move
    matches: dict[str, dict[str, Any]] = field(default_factory=dict)  # match id -> outcome
    errors: list[str] = field(default_factory=list)
    reconnects: int = 0

    def ack(self, match_id: str, ply: int, seat: int, move: str, sent_at: float) -> None:
        now = time.monotonic()
        with self.lock:
            self.latencies.append((now, (now - sent_at) * 1000))
            self.acked.append((match_id, ply, seat, move))

    def error(self, text: str) -> None:
        with self.lock:
            self.errors.append(text)


class SourcedClient(DewClient):
    """A client whose HTTP requests and sockets leave from ``source`` (a loopback address of
    its own): the server sees it as a player on its own machine."""

    def __init__(self, url: str, source: str) -> None:
        transport = httpx.HTTPTransport(local_address=source)
        super().__init__(url, http=httpx.Client(base_url=url, timeout=10, transport=transport))
        self.source = source

    def connect(self, table_id: str) -> Seat:
        socket = connect(
            self.seat_url(table_id),
            open_timeout=10,
            max_size=2**20,
            source_address=(self.source, 0),
        )
        return Seat(socket=socket)


class Player:
    """One wallet: signed in once, it talks to every API process (round-robin, failing over)
    from its own source address."""

    def __init__(self, name: str, key: str, urls: list[str], record: Recorder, source: str) -> None:
        self.name, self.key, self.record, self.source = name, key, record, source
        self.clients: list[DewClient] = [SourcedClient(url, source) for url in urls]
        self.turn = random.randrange(len(urls))
        self.address = ""
        self.connected: str | None = None  # the API process this wallet's socket is on
        self.last_create = 0.0

    def close(self) -> None:
        for client in self.clients:
            client.close()

    def _next(self) -> DewClient:
        self.turn = (self.turn + 1) % len(self.clients)
        return self.clients[self.turn]

    def call(self, what: Callable[[DewClient], Any], timeout_s: float = 120) -> Any:
        """An HTTP call on the next API process; on a transport error or 5xx, the other."""
        deadline = time.monotonic() + timeout_s
        while True:
            client = self._next()
            try:
                return what(client)
            except (httpx.HTTPError, DewClientError) as error:
                status = getattr(error, "status", None)
                refused = isinstance(error, DewClientError) and status is not None and status < 500
                if refused and error.code not in ("not_eligible", "chain_unavailable"):
                    raise
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.5)

    def create_table(self, **body: Any) -> dict[str, Any]:
        """A new table; this wallet's creations (retries included: each is counted by the
        rate limit) at least ``CREATE_AGAIN_S`` apart, as a player's would be."""

        def create(client: DewClient) -> dict[str, Any]:
            wait = self.last_create + CREATE_AGAIN_S - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            self.last_create = time.monotonic()
            return client.create_table(**body)

        return dict(self.call(create))

    def sign_in(self) -> None:
        # The stack has terms (as production must): staked play needs them accepted.
        self.address = self.call(lambda c: c.sign_in(self.key, accept_terms=True))
        token = next(c.token for c in self.clients if c.token)
        for client in self.clients:
            client.token, client.address = token, self.address

    def play(self, table_id: str, kind: str = "season", timeout_s: float = 300) -> dict[str, Any]:
        """Play this seat to the end, reconnecting to the next API process whenever the socket
        dies; every move carries its ply, so a resent move is never applied twice."""
        deadline = time.monotonic() + timeout_s
        match_id: str | None = None
        interrupted = False
        pending: dict[str, tuple[str, float, int]] = {}
        while time.monotonic() < deadline:
            client = self._next()
            try:
                seat = client.connect(table_id)
            except (OSError, ConnectionClosed, TimeoutError, httpx.HTTPError):
                time.sleep(0.3)
                continue
            self.connected = client.base_url

            def seen(message: dict[str, Any]) -> None:
                nonlocal match_id
                mtype = message["type"]
                if mtype == "snapshot" and message["match_id"]:
                    match_id = message["match_id"]
                elif mtype == "ack":
                    sent = pending.pop(str(message.get("ref")), None)
                    if sent is not None and match_id is not None:
                        move, sent_at, me = sent
                        self.record.ack(match_id, message["ply"] - 1, me, move, sent_at)
                elif mtype == "error":
                    pending.pop(str(message.get("ref")), None)

            def sending(move: dict[str, Any], seat: Seat = seat) -> None:
                pending[move["ref"]] = (move["move"], time.monotonic(), int(seat.you or 0))

            def refused(error: dict[str, Any]) -> bool:
                if error["code"] != "not_your_turn":
                    self.record.error(f"{self.name}: {error}")
                return True  # recorded; resync and play on

            try:
                final = seat.play(
                    timeout_s=max(deadline - time.monotonic(), 0.1),
                    recv_timeout_s=RECV_TIMEOUT_S,
                    think_s=THINK_S,
                    ref=lambda state: f"{match_id}:{state.ply}",
                    on_message=seen,
                    on_send=sending,
                    on_error=refused,
                )
                if match_id is not None:
                    with self.record.lock:
                        row = self.record.matches.setdefault(match_id, {})
                        row["over"], row["kind"] = True, kind
                        row["interrupted"] = row.get("interrupted", False) or interrupted
                return final
            except (ConnectionClosed, OSError, TimeoutError):
                interrupted = True
                with self.record.lock:
                    self.record.reconnects += 1
                    if match_id is not None:
                        self.record.matches.setdefault(match_id, {})["interrupted"] = True
                time.sleep(0.2)
            finally:
                self.connected = None
                seat.close()
        if match_id is not None:
            with self.record.lock:
                self.record.matches.setdefault(match_id, {})["over"] = False
        raise TimeoutError(f"{self.name}: table {table_id} not over in {timeout_s:.0f}s")


# --- the scenario ---------------------------------------------------------------------------


@dataclass
class Fault:
    name: str
    started: float
    ended: float = 0.0
    detail: dict[str, Any] = field(default_factory=dict)


class Chaos:
    def __init__(self, stack: Stack, *, quick: bool, out: Callable[[str], None]) -> None:
        self.stack, self.quick, self.out = stack, quick, out
        self.record = Recorder()
        self.faults: list[Fault] = []
        self.stop_playing = threading.Event()
        self.cup_may_start = threading.Event()  # set at the worker's kill: the cup runs through
        # the later faults (Redis restart, RPC cut), its prizes settled after them
        self.t0 = time.monotonic()
        from backend.db import create_db_engine, make_session_factory

        self.engine = create_db_engine(stack.db_url)
        self.sessions = make_session_factory(self.engine)

    def step(self, text: str) -> None:
        self.out(f"[{time.monotonic() - self.t0:6.1f}s] {text}")

    # -- setup: a season, VIP passes, players -----------------------------------------------
    def setup(self, wallets: int) -> None:
        from backend.db.base import utcnow
        from backend.demo.players import ChainClient
        from backend.economy import seasons as service

        stack = self.stack
        with self.sessions.begin() as session:
            season = service.create_season(
                session=session,
                name=f"Chaos season {time.strftime('%H:%M:%S')}",
                starts_at=utcnow() - timedelta(minutes=1),
                ends_at=utcnow() + timedelta(days=1),
                emission_budget=100_000 * DEW,
            )
            self.season_id = season.id
        keys = stack.player_keys[:wallets]
        # One loopback address per wallet (Linux routes all of 127.0.0.0/8 to lo); the
        # operator's own reads (``/metrics``) stay on 127.0.0.1.
        self.players = [
            Player(f"p{i}", key, stack.api_urls, self.record, f"127.0.0.{i + 2}")
            for i, key in enumerate(keys)
        ]
        expires = stack.w3.eth.get_block("latest")["timestamp"] + 24 * 3600
        vip = stack.contracts.vip.functions
        txs = []
        for player in self.players:
            built = vip.issue(
                stack.w3.eth.account.from_key(player.key).address, expires
            ).build_transaction({"from": stack.operator, "gas": 200_000})
            txs.append({"to": built["to"], "data": built["data"], "gas": 200_000})
        ChainClient(stack.w3).send(stack.operator_key, txs)
        for player in self.players:
            player.sign_in()
        self.step(
            f"season #{self.season_id}; {len(self.players)} wallets with VIP passes signed in"
        )

    # -- the season: pairs of wallets play earning tables ------------------------------------
    def play_pair(self, a: Player, b: Player, rounds: int) -> None:
        for n in range(rounds):
            if self.stop_playing.is_set():
                return
            # The two take turns to create the table, as two friends would: each wallet then
            # creates about one table in 10 s, under the production limit of 12 a minute.
            host, guest = (a, b) if n % 2 == 0 else (b, a)
            try:
                body = {"preset": "draw", "seats": 2, "earning": True, "kind": "human"}
                table = host.create_table(**body)
                guest.call(lambda c, t=table["id"]: c.join(t))
                results: list[BaseException] = []

                def seat(player: Player, table_id: str = table["id"], into: list = results) -> None:
                    try:
                        player.play(table_id)
                    except BaseException as failure:
                        into.append(failure)

                threads = [threading.Thread(target=seat, args=(p,)) for p in (a, b)]
                for thread in threads:
                    thread.start()
                for thread in threads:
                    thread.join()
                for error in results:
                    self.record.error(f"{a.name}/{b.name}: {error!r}")
            except Exception as error:  # recorded; the pair plays its next round
                self.record.error(f"{a.name}/{b.name} table: {error!r}")
                time.sleep(1)

    # -- wallets against a bot: the server's bot turns run through the faults --------------
    def play_solo(self, player: Player, rounds: int) -> None:
        for _ in range(rounds):
            if self.stop_playing.is_set():
                return
            try:
                body = {
                    "preset": "draw",
                    "seats": 2,
                    "earning": True,
                    "kind": "practice",
                    "bot_level": "easy",
                }
                table = player.create_table(**body)
                player.play(table["id"], kind="solo")
            except Exception as error:  # recorded; the wallet plays its next round
                self.record.error(f"{player.name} solo table: {error!r}")
                time.sleep(1)

    # -- the tournament -----------------------------------------------------------------------
    def tournament(self, entrants: list[Player]) -> None:
        from backend.competitions import service as competitions
        from backend.db.base import utcnow

        with self.sessions() as session:
            t = competitions.create_tournament(
                session=session,
                spec=competitions.TournamentSpec(
                    name=f"Chaos cup {time.strftime('%H:%M:%S')}",
                    tier="campeonato",
                    format="elimination",
                    preset="draw",
                    season_id=self.season_id,
                    entry_fee=0,
                    added_prize=20 * DEW,
                    fee_bps=0,
                    prize_bps=[7000, 3000],
                    qualify_top=0,
                    min_entrants=4,
                    max_entrants=4,
                    starts_at=utcnow() + timedelta(minutes=30),
                    turn_timeout_s=30,
                    bot_level="easy",
                ),
                created_by="chaos",
                settlement_limit=competitions.settlement_limit(self.stack.contracts),
            )
            self.tournament_id = tid = t.id
            session.commit()
        numbers = {}
        for player in entrants:
            entry = player.call(
                lambda c: _ok(
                    c.http.post(
                        f"/competitions/{tid}/register",
                        json={},
                        headers={"Authorization": f"Bearer {c.token}"},
                    )
                )
            )
            numbers[entry["number"]] = player
        with self.sessions() as session:
            competitions.add_bots(session=session, tournament_id=tid, count=2, level="easy")
        self.step(f"tournament #{tid}: 2 wallets and 2 bots, single elimination")

        def games(number: int, player: Player) -> None:
            played: set[str] = set()
            deadline = time.monotonic() + 600
            while time.monotonic() < deadline:
                detail = player.call(lambda c: _ok(c.http.get(f"/competitions/{tid}")))
                if detail["status"] in ("finished", "cancelled"):
                    return
                rounds = player.call(lambda c: _ok(c.http.get(f"/competitions/{tid}/bracket")))
                mine = [g for r in rounds for g in r["games"] if number in (g["a"], g["b"])]
                if any(g["status"] != "live" and g["winner"] not in (None, number) for g in mine):
                    return
                live = [g for g in mine if g["status"] == "live" and g["match_id"] not in played]
                if not live:
                    time.sleep(0.5)
                    continue
                player.play(live[0]["table_id"], kind="cup")
                played.add(live[0]["match_id"])
            self.record.error(f"{player.name}: tournament games not over in time")

        threads = [
            threading.Thread(target=games, args=(n, p), name=f"cup-{p.name}")
            for n, p in numbers.items()
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()

    # -- faults ---------------------------------------------------------------------------
    def fault(self, name: str) -> Fault:
        fault = Fault(name, time.monotonic())
        self.faults.append(fault)
        self.step(f"FAULT {name}")
        return fault

    def kill_api(self) -> None:
        fault = self.fault("sigkill_api")
        # The process with the most seats connected right now (mid-match).
        urls = self.stack.api_urls
        seated = [sum(1 for p in self.players if p.connected == url) for url in urls]
        index = max(range(len(urls)), key=lambda i: seated[i])
        victim, url = f"api-{index + 1}", urls[index]
        live = self._live_matches()
        self.stack.kill(victim)
        fault.detail = {"process": victim, "live_matches": live, "seats_on_it": seated[index]}
        time.sleep(3)  # the process stays dead this long (the outage itself)
        self.stack.restart(victim)
        wait_for(f"{victim} back", lambda: self.stack.api_up(url), timeout_s=90, every_s=0.3)
        fault.ended = time.monotonic()

    def kill_worker(self) -> None:
        from sqlalchemy import select

        from backend.chain.models import ChainTx, ChainWallet, TxStatus

        def in_flight() -> tuple[str, str] | None:
            with self.sessions() as session:
                flying = (TxStatus.SIGNED, TxStatus.SENT, TxStatus.MINED)
                tx = session.scalars(select(ChainTx).where(ChainTx.status.in_(flying))).first()
                owners = [w.lease_owner for w in session.scalars(select(ChainWallet))]
            if tx is None:
                return None
            for name, service in self.stack.services.items():
                if name.startswith("worker") and any(o and f":{service.pid}:" in o for o in owners):
                    return name, tx.tx_hash or ""
            return None

        try:
            victim, tx_hash = wait_for("a settlement in flight", in_flight, 120, every_s=0.05)
        except StackFailed:
            victim, tx_hash = "worker-1", ""
        fault = self.fault("sigkill_worker")
        self.stack.kill(victim)
        fault.detail = {"process": victim, "tx_in_flight": tx_hash or None}
        time.sleep(2)  # the outage itself
        self.stack.restart(victim)
        fault.ended = time.monotonic()

    def fail_table_task(self, failures: int, timeout_s: float) -> None:
        """The database refuses the final commit of the next ``failures`` matches a bot's
        move ends (a trigger on ``matches``): the bot turns that make them raise, on
        whichever API process hosts the table. Nothing in the server is switched: the fault
        comes from outside, as a refusing database would. The server must count each failure
        (``dew_table_task_failures_total``) and finish the match anyway."""
        from sqlalchemy import text

        fault = self.fault("fail_table_task")
        before = self._counter("dew_table_task_failures_total")
        with self.engine.begin() as conn:
            conn.execute(text("CREATE SEQUENCE chaos_refusals"))
            conn.execute(
                text(
                    """
                    CREATE FUNCTION chaos_refuse_bot_final() RETURNS trigger
                    LANGUAGE plpgsql AS $$
                    BEGIN
                      IF NEW.status = 'finished' AND OLD.status = 'live' AND EXISTS (
                          SELECT 1 FROM match_moves m
                          WHERE m.match_id = NEW.id AND m.actor = 'bot' AND m.ply = (
                            SELECT max(ply) FROM match_moves WHERE match_id = NEW.id)) THEN
                        IF nextval('chaos_refusals') <= REFUSALS THEN
                          RAISE EXCEPTION 'chaos: the final commit of a bot''s move refused';
                        END IF;
                      END IF;
                      RETURN NEW;
                    END $$
                    """.replace("REFUSALS", str(int(failures)))
                )
            )
            conn.execute(
                text(
                    "CREATE TRIGGER chaos_refuse_bot_final BEFORE UPDATE ON matches"
                    " FOR EACH ROW EXECUTE FUNCTION chaos_refuse_bot_final()"
                )
            )

        def refused() -> int:
            with self.engine.connect() as conn:
                seq = "SELECT last_value, is_called FROM chaos_refusals"
                last, called = conn.execute(text(seq)).one()
            return int(last) if called else 0

        try:
            wait_for("the refused commits", lambda: refused() >= failures, timeout_s, every_s=0.2)
        except StackFailed:
            pass  # reported below: fewer refusals than asked for
        finally:
            injected = min(refused(), failures)
            with self.engine.begin() as conn:
                conn.execute(text("DROP TRIGGER chaos_refuse_bot_final ON matches"))
                conn.execute(text("DROP FUNCTION chaos_refuse_bot_final()"))
                conn.execute(text("DROP SEQUENCE chaos_refusals"))
        fault.ended = time.monotonic()
        # The last refusal's retry may still be under way: the count is read after it.
        time.sleep(1)
        counted = self._counter("dew_table_task_failures_total") - before
        fault.detail = {"commits_refused": injected, "failures_counted": counted}
        if injected < failures or counted < injected:
            self.record.error(
                f"fail_table_task: {injected} of {failures} commits refused,"
                f" {counted} failures counted by the servers"
            )

    def _counter(self, name: str) -> float:
        """A counter summed over its series and the API processes (their ``/metrics``)."""
        total = 0.0
        for url in self.stack.api_urls:
            try:
                lines = httpx.get(f"{url}/metrics", timeout=5).text.splitlines()
            except httpx.HTTPError:
                continue
            for line in lines:
                if line.startswith(name + "{") or line.startswith(name + " "):
                    total += float(line.rsplit(" ", 1)[1])
        return total

    def restart_redis(self) -> None:
        fault = self.fault("restart_redis")
        assert self.stack.redis is not None
        self.stack.redis.restart(down_s=1.0)
        fault.ended = time.monotonic()

    def cut_rpc(self, seconds: float) -> None:
        fault = self.fault("cut_chain_rpc")
        assert self.stack.gate is not None
        self.stack.gate.cut()
        time.sleep(seconds)  # the outage itself
        self.stack.gate.restore()
        fault.ended = time.monotonic()
        fault.detail = {"seconds": seconds, "requests_dropped": self.stack.gate.dropped}

    def _live_matches(self) -> int:
        from sqlalchemy import func, select

        from backend.tables.models import Match

        with self.sessions() as session:
            return int(
                session.scalar(
                    select(func.count()).select_from(Match).where(Match.status == "live")
                )
                or 0
            )

    # -- the run ----------------------------------------------------------------------------
    def run(self) -> dict[str, Any]:
        quick = self.quick
        # Pairs play until the last fault's after-window is over (``rounds`` is only a cap).
        paired, solo, rounds = (4, 1, 200) if quick else (8, 2, 200)
        gap_s, after_s, cut_s = (6, 10, 10) if quick else (12, 20, 30)
        self.setup(paired + solo + 2)
        season, alone = self.players[:paired], self.players[paired : paired + solo]
        cup = self.players[-2:]
        pairs = [(season[i], season[i + 1]) for i in range(0, len(season) - 1, 2)]
        threads = [
            threading.Thread(target=self.play_pair, args=(a, b, rounds), name=f"{a.name}-{b.name}")
            for a, b in pairs
        ]
        threads += [
            threading.Thread(target=self.play_solo, args=(p, rounds), name=f"{p.name}-bot")
            for p in alone
        ]
        threads.append(threading.Thread(target=self._cup, args=(cup,), name="cup"))
        self.step(
            f"{len(pairs)} pairs play up to {rounds} earning matches each, {solo} against a"
            " bot; a tournament"
        )
        for thread in threads:
            thread.start()
        try:
            wait_for("live matches", lambda: self._live_matches() >= 2, 60, every_s=0.2)
            time.sleep(2)  # well into the matches
            self.kill_api()
            time.sleep(gap_s)
            self.kill_worker()
            self.cup_may_start.set()
            time.sleep(gap_s)
            self.fail_table_task(3, timeout_s=60)
            time.sleep(gap_s)
            self.restart_redis()
            time.sleep(gap_s)
            self.cut_rpc(cut_s)
            time.sleep(after_s)
        finally:
            self.cup_may_start.set()
            self.stop_playing.set()
            for thread in threads:
                thread.join()
        self.step(f"play over: {len(self.record.matches)} matches, {len(self.record.acked)} moves")
        return self.verify(after_s)

    def _cup(self, entrants: list[Player]) -> None:
        self.cup_may_start.wait()
        try:
            self.tournament(entrants)
        except Exception as error:
            self.record.error(f"tournament: {error!r}")

    # -- what was lost --------------------------------------------------------------------
    def verify(self, after_s: float) -> dict[str, Any]:
        from sqlalchemy import select

        from backend.chain.calls import MATCH_SETTLED
        from backend.competitions.models import escrow_key
        from backend.economy.models import PlannedSettlement
        from backend.tables.models import Match, MatchMove

        self.step("waiting for every payout (settlement, tournament prizes)")
        match_ids = list(self.record.matches)
        tid = getattr(self, "tournament_id", None)
        keys = match_ids + ([escrow_key(tid)] if tid is not None else [])

        def settled() -> bool:
            with self.sessions() as session:
                rows = session.scalars(
                    select(PlannedSettlement).where(PlannedSettlement.match_id.in_(keys))
                ).all()
            done = {r.match_id for r in rows if r.status in ("paid", "nothing", "failed")}
            return done >= set(keys)

        try:
            wait_for("every payout", settled, timeout_s=240, every_s=1)
        except StackFailed as error:
            self.record.error(str(error))

        with self.sessions() as session:
            recorded = {
                (m.match_id, m.ply): (m.seat, m.actor)
                for m in session.scalars(select(MatchMove).where(MatchMove.match_id.in_(match_ids)))
            }
            statuses = {
                m.id: m.status
                for m in session.scalars(select(Match).where(Match.id.in_(match_ids)))
            }
            plans = {
                r.match_id: r
                for r in session.scalars(
                    select(PlannedSettlement).where(PlannedSettlement.match_id.in_(keys))
                )
            }
        lost_moves = [
            a for a in self.record.acked if recorded.get((a[0], a[1])) != (a[2], "player")
        ]
        not_resumed = [
            m
            for m, row in self.record.matches.items()
            if row.get("interrupted") and (not row.get("over") or statuses.get(m) != "finished")
        ]
        unfinished = [m for m in match_ids if statuses.get(m) != "finished"]

        # Payouts: every finished match has a plan; every plan with money is paid exactly once.
        vault = self.stack.manifest.address("MatchSettlement")
        w3 = self.stack.w3
        events = w3.eth.get_logs(
            {"address": vault, "topics": [MATCH_SETTLED], "fromBlock": 0, "toBlock": "latest"}
        )
        settled_count: dict[str, int] = {}
        for event in events:
            key = "0x" + bytes(event["topics"][1]).hex()
            settled_count[key] = settled_count.get(key, 0) + 1
        planned = [p for p in plans.values() if p.status != "nothing"]
        season_ids = [m for m, r in self.record.matches.items() if r.get("kind") != "cup"]
        missing_plan = [m for m in season_ids if statuses.get(m) == "finished" and m not in plans]
        payouts_lost = [p.match_id for p in planned if p.status != "paid"] + missing_plan
        payouts_lost += [
            p.match_id
            for p in planned
            if p.status == "paid" and settled_count.get(p.chain_match_id.lower(), 0) == 0
        ]
        cup_key = escrow_key(tid) if tid is not None else None
        cup_status = None
        if tid is not None:
            from backend.competitions.models import Tournament

            with self.sessions() as session:
                cup = session.get(Tournament, tid)
                cup_status = cup.status if cup is not None else None
            if cup_key not in plans:  # the prizes were never planned: lost
                payouts_lost.append(str(cup_key))
        duplicated = [
            p.match_id for p in planned if settled_count.get(p.chain_match_id.lower(), 0) > 1
        ]
        transfer = w3.keccak(text="Transfer(address,address,uint256)")
        out_of_vault = w3.eth.get_logs(
            {
                "address": self.stack.contracts.token.address,
                "topics": [transfer, "0x" + "00" * 12 + vault[2:].lower()],
                "fromBlock": 0,
                "toBlock": "latest",
            }
        )
        vault_out = sum(int.from_bytes(bytes(e["data"]), "big") for e in out_of_vault)
        ledger_paid = sum(int(p.paid) for p in plans.values() if p.status == "paid")
        paid_on_chain = sum(1 for p in planned if p.status == "paid")

        self.step("dew reconcile (against the node, not the gate)")
        env = {**self.stack.env, "DEW_CHAIN_RPC_URL": self.stack.anvil.rpc_url}
        reconcile = subprocess.run(
            [*dew_command(), "reconcile"], env=env, capture_output=True, text=True, timeout=300
        )
        windows = self._windows(after_s)
        return {
            "moves_acked": len(self.record.acked),
            "moves_lost": len(lost_moves),
            "payouts_planned": len(planned),
            "payouts_paid": paid_on_chain,
            "payouts_lost": len(payouts_lost),
            "payouts_duplicated": len(duplicated) + (1 if vault_out > ledger_paid else 0),
            "vault_out_wei": vault_out,
            "ledger_paid_wei": ledger_paid,
            "matches": len(match_ids),
            "tournament": {
                "id": tid,
                "status": cup_status,
                "games": sum(1 for r in self.record.matches.values() if r.get("kind") == "cup"),
                "payout": plans[cup_key].status if cup_key in plans else None,
            },
            "matches_interrupted": sum(
                1 for r in self.record.matches.values() if r.get("interrupted")
            ),
            "matches_not_resumed": len(not_resumed),
            "matches_unfinished": len(unfinished),
            "reconnects": self.record.reconnects,
            "faults_injected": len(self.faults),
            "faults": [
                {"name": f.name, "seconds": round(f.ended - f.started, 1), **f.detail}
                for f in self.faults
            ],
            "p99_move_ms": windows,
            "metrics_endpoint": self._metrics(),
            "reconcile_exit": reconcile.returncode,
            "reconcile_output": (reconcile.stdout + reconcile.stderr).strip().splitlines()[-6:],
            "client_error_count": len(self.record.errors),
            "client_errors": self.record.errors[:20],
            "lost_moves_sample": [list(a) for a in lost_moves[:10]],
            "payouts_lost_sample": payouts_lost[:10],
        }

    def _windows(self, after_s: float) -> dict[str, Any]:
        samples = self.record.latencies
        first = self.faults[0].started if self.faults else float("inf")
        windows: dict[str, Any] = {
            "baseline": p99([ms for t, ms in samples if t < first]),
            "overall": p99([ms for _, ms in samples]),
        }
        for fault in self.faults:
            end = fault.ended + 5  # recovery counts as "during"
            windows[f"{fault.name}_during"] = p99(
                [ms for t, ms in samples if fault.started <= t < end]
            )
            windows[f"{fault.name}_after"] = p99(
                [ms for t, ms in samples if end <= t < end + after_s]
            )
        return windows

    def _metrics(self) -> dict[str, Any] | str:
        """Move figures from ``/metrics`` on each API process, when the server exports them."""
        found: dict[str, Any] = {}
        for url in self.stack.api_urls:
            try:
                response = httpx.get(f"{url}/metrics", timeout=5)
            except httpx.HTTPError:
                continue
            if response.status_code != 200:
                continue
            lines = [
                line
                for line in response.text.splitlines()
                if not line.startswith("#") and "move" in line.split("{")[0].split(" ")[0]
            ]
            found[url] = lines[:20]
        return found or "not available"


def _ok(response: httpx.Response) -> Any:
    if response.status_code >= 400:
        raise DewClientError("http_error", response.text[:300], response.status_code)
    return response.json()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a short run (fewer matches)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--keep", action="store_true", help="keep the state and logs")
    args = parser.parse_args()
    logging.basicConfig(level=logging.ERROR)
    # A socket to a killed process fails its keepalive ping: expected, and handled by play().
    logging.getLogger("websockets").setLevel(logging.CRITICAL)
    out = (lambda text: print(text, file=sys.stderr)) if args.json else print
    workdir = Path(tempfile.mkdtemp(prefix="dew-chaos-"))
    config = StackConfig(
        workdir=workdir,
        rpc_gate=True,
        accounts=16,
        out=out,
        extra_env={
            "DEW_ECONOMY_EMISSION_PER_WALLET_PER_DAY": str(10**24),
            "DEW_AUTH_ACCESS_TOKEN_TTL_S": "3600",
            "DEW_SERVER_BOT_MOVE_DELAY_S": "0.05",
            "DEW_SERVER_GATE_POLL_S": "0.5",
        },
    )
    started = time.monotonic()
    try:
        with Stack(config) as stack:
            chaos = Chaos(stack, quick=args.quick, out=out)
            try:
                report = chaos.run()
            finally:
                for player in getattr(chaos, "players", []):
                    player.close()
                chaos.engine.dispose()
    except StackFailed as error:
        out(f"CHAOS RUN FAILED: {error}\n(logs in {workdir})")
        return 2
    report["seconds"] = round(time.monotonic() - started)
    report["workdir"] = str(workdir) if args.keep else None
    checks = {
        "moves_lost": report["moves_lost"] == 0,
        "payouts_lost": report["payouts_lost"] == 0,
        "payouts_duplicated": report["payouts_duplicated"] == 0,
        "matches_not_resumed": report["matches_not_resumed"] == 0,
        "matches_unfinished": report["matches_unfinished"] == 0,
        "reconcile_exit": report["reconcile_exit"] == 0,
        # A client's error (a refusal such as rate_limited, a table not over in time) is a
        # failure of the run in its own right, with its cause, not a later lost payout.
        "client_errors": report["client_error_count"] == 0,
        "tournament": report["tournament"]["status"] == "finished"
        and report["tournament"]["games"] > 0,
    }
    clean = all(checks.values())
    report["ok"] = clean
    report["failed_checks"] = [name for name, passed in checks.items() if not passed]
    if args.json:
        print(json.dumps(report))
    else:
        for key, value in report.items():
            print(f"{key:>22}: {json.dumps(value) if isinstance(value, dict | list) else value}")
    if not args.keep:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0 if clean else 1


if __name__ == "__main__":
    raise SystemExit(main())
