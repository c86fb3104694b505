"""The demo's actors: wallets whose keys stay in their clients, and the operator's jobs.

A ``Wallet`` signs in and plays through ``DewClient`` (the one client of the match server)
and signs its own transactions with ``ChainClient``; ``play_table`` is one earning table
from creation to ``match_over``, every seated wallet in its own thread. ``EconomyLoop`` runs
the economy's periodic jobs in the operator's process, on the demo's settings.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar

from backend.devstack.stack import StackFailed, wait_for
from backend.protocol.client import Chooser, DewClient, DewClientError

if TYPE_CHECKING:
    import httpx
    from sqlalchemy.orm import Session, sessionmaker

    from backend.config import Settings
    from backend.economy.chain_reader import ChainReader

# The demo's failures are the harness's: a step that did not reach its state in time.
DemoFailed = StackFailed

Out = Callable[[str], None]

THINK_TIME_S = 0.08  # between one client's moves: the server allows 20 messages/s

T = TypeVar("T")
R = TypeVar("R")


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
    client: DewClient | None = None  # once signed in

    def __post_init__(self) -> None:
        from eth_account import Account

        self.address = Account.from_key(self.key).address

    @property
    def auth(self) -> dict[str, str]:
        """The wallet's ``Authorization`` header, refreshed by its client when the access token
        is about to expire (a stack kept up for longer than a token lives)."""
        if self.client is not None:
            return self.client.headers
        return {"Authorization": f"Bearer {self.token}"}

    @property
    def dew(self) -> DewClient:
        if self.client is None:
            raise DemoFailed(f"{self.name} has not signed in")
        return self.client


@contextmanager
def refusals_fail(what: str) -> Iterator[None]:
    """A request the server refused, or a match that did not end in time, fails the demo."""
    try:
        yield
    except (DewClientError, TimeoutError) as error:
        raise DemoFailed(f"{what}: {error}") from error


def sign_in(base_url: str, wallet: Wallet) -> DewClient:
    """EIP-4361: the server composes the message, the wallet signs it with personal_sign,
    accepting the stack's terms and confirming legal age (earning and fee play need them)."""
    client = DewClient(base_url, timeout_s=30)
    try:
        with refusals_fail(f"{wallet.name}'s sign-in"):
            client.sign_in(wallet.key, accept_terms=True)
    except DemoFailed:
        client.close()
        raise
    wallet.client, wallet.token = client, client.token
    return client


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
            receipt = wait_for(f"transaction {tx_hash}", partial(self._receipt, tx_hash), timeout_s)
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


def api_txs(response: httpx.Response) -> list[dict[str, Any]]:
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


def ok(response: httpx.Response) -> Any:
    if response.status_code >= 400:
        raise DemoFailed(
            f"{response.request.method} {response.request.url.path} answered "
            f"{response.status_code}: {response.text}"
        )
    return response.json() if response.content else None


# --- playing over the WebSocket --------------------------------------------------------------


def choose_move(view: dict[str, Any]) -> str:
    """A client's own choice from its view: the heaviest legal tile (shed pips), else draw/pass."""

    def weight(move: str) -> int:
        if ":" not in move:
            return -1
        high, low = move[:-1].split(":")
        return int(high) + int(low)

    return str(max(view["legal_moves"], key=weight))


def paced(choose: Chooser, think_s: float = THINK_TIME_S) -> Chooser:
    """``choose`` with a player's think time between moves (the server's rate limit)."""
    last_sent = [0.0]

    def chooser(view: dict[str, Any]) -> str:
        time.sleep(max(0.0, last_sent[0] + think_s - time.monotonic()))
        last_sent[0] = time.monotonic()
        return choose(view)

    return chooser


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


def play_seat(wallet: Wallet, table_id: str, timeout_s: float = 90) -> dict[str, Any]:
    """Play this wallet's seat until the match is over; returns the ``match_over`` message."""
    with refusals_fail(f"{wallet.name}'s match at table {table_id}"):
        return wallet.dew.play(table_id, paced(choose_move), timeout_s=timeout_s)


@dataclass
class PlannedTable:
    """One earning table: who creates it, who joins which seat, and its rules."""

    title: str
    preset: str
    seats: int
    creator: Wallet
    joiners: list[tuple[Wallet, int]]
    options: dict[str, Any] = field(default_factory=dict)


def play_table(plan: PlannedTable, out: Out, names: dict[str, str]) -> dict[str, Any]:
    creator = plan.creator
    with refusals_fail(plan.title):
        table = creator.dew.create_table(
            preset=plan.preset,
            seats=plan.seats,
            options=plan.options,
            earning=True,
            kind="human",
            bot_level="easy",
            avatar_id=creator.avatar_id,
        )
        for wallet, seat in plan.joiners:
            table = wallet.dew.join(table["id"], seat=seat, avatar_id=wallet.avatar_id)
        if table["status"] == "open":  # empty seats left: the creator fills them with bots
            table = creator.dew.start(table["id"])
    humans = [creator] + [w for w, _ in plan.joiners]
    seats = ", ".join(names.get(s["address"]) or f"bot ({s['bot_level']})" for s in table["seats"])
    options = f" {plan.options}" if plan.options else ""
    out(f"  {plan.title}: {plan.preset}{options}, seats [{seats}]")
    over = in_threads(lambda wallet: play_seat(wallet, table["id"]), humans)[0]
    with refusals_fail(plan.title):
        match = creator.dew.match(over["match_id"])
    return {"title": plan.title, "table": table, "over": over, "match": match}


# --- the economy's periodic jobs (the operator's process) ---------------------------------


class EconomyLoop:
    """Follows the registry and the vault, plans finished matches into the chain outbox and
    books confirmed settlements, twice a second, with this demo's settings."""

    def __init__(
        self, settings: Settings, sessions: sessionmaker[Session], reader: ChainReader
    ) -> None:
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
        from backend.creators.routing import FeeRouting
        from backend.economy import jobs
        from backend.economy.scholarships.indexer import index_registry
        from backend.economy.stakes import index_deposits
        from backend.tables.hosting import center_of_table

        index_registry(session_factory=self.sessions, reader=self.reader)
        index_deposits(session_factory=self.sessions, reader=self.reader)
        jobs.plan_finished_matches(
            session_factory=self.sessions,
            settings=self.settings,
            chain_clock_offset_s=self.reader.clock_offset_s(),
            # The same fee routing as the worker's: whichever plans a match, pays the same.
            recipients=FeeRouting(center_of_table=center_of_table),
        )
        jobs.sync_ledger(session_factory=self.sessions, reader=self.reader)

    def _run(self) -> None:
        while not self._stop.wait(0.5):
            try:
                self.cycle()
            except Exception as error:  # a node hiccup: the next pass retries
                self.error = error
