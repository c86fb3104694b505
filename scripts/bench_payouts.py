"""Throughput and latency of payouts and avatar mints through the real engine and a real worker.

anvil mines a block every second. A Celery worker process runs the engine (solo pool,
settings from the environment this script sets). This process plays the economy: it
writes settlement requests into the outbox at ``--rate`` payouts per second (``0``: all
at once) in small transactions, waking the worker after each commit, then waits until
every request is confirmed at the configured depth (``DEW_CHAIN_CONFIRMATIONS``, default 2).

Figures (from the database's own timestamps: request created -> request confirmed):
  payouts_per_s           confirmed payouts / (last confirmation - first enqueue)
  p50/p99_end_to_confirmed_s
  mints_per_s             the same for avatar mints (mint requests of 10 recipients each)
  baseline_payouts_per_s  naive web3.py in the same run on the same chain: one DEW transfer,
                          wait for its receipt, next one
  ratio                   payouts_per_s / baseline_payouts_per_s

    uv run python scripts/bench_payouts.py [--quick] [--json] [--broker redis|sqlite]
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import sys
import tempfile
import time
from pathlib import Path
from statistics import quantiles
from typing import Any

from eth_account import Account
from eth_utils import to_checksum_address
from web3 import Web3

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from celery import Celery  # noqa: E402
from sqlalchemy import func, select  # noqa: E402

from backend.chain.contracts import Contracts, save_manifest  # noqa: E402
from backend.chain.deploy import deploy_all  # noqa: E402
from backend.chain.models import ChainRequest, ChainWallet, RequestStatus  # noqa: E402
from backend.chain.outbox import (  # noqa: E402
    Payout,
    Settlement,
    request_mint,
    request_settlements,
)
from backend.db import create_db_engine, make_session_factory, migrate  # noqa: E402
from backend.devstack import stack  # noqa: E402
from backend.devstack.anvil import Anvil  # noqa: E402

DEW = 10**18
REDIS_URL = "redis://127.0.0.1:6379/0"


def log(message: str, quiet: bool) -> None:
    if not quiet:
        print(message, file=sys.stderr, flush=True)


def start_worker(env: dict[str, str], log_path: Path) -> stack.Service:
    queues = f"{env['DEW_BROKER_PAYOUTS_QUEUE']},{env['DEW_BROKER_DEFAULT_QUEUE']}"
    args = stack.celery_command(
        *("worker", "--pool", "solo", "-Q", queues, "--loglevel", "INFO"),
        *("--without-gossip", "--without-mingle", "--without-heartbeat"),
        *("-n", f"bench-{secrets.token_hex(4)}@%h"),
    )
    return stack.Service("worker", args, {**os.environ, **env}, log_path)


def wait_confirmed(sessions, kind: str, total: int, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while True:
        with sessions() as session:
            rows = dict(
                session.execute(
                    select(ChainRequest.status, func.count())
                    .where(ChainRequest.kind == kind)
                    .group_by(ChainRequest.status)
                ).all()
            )
        if rows.get(RequestStatus.FAILED):
            raise SystemExit(f"{rows[RequestStatus.FAILED]} {kind} requests failed: {rows}")
        if rows.get(RequestStatus.CONFIRMED, 0) == total:
            return
        if time.monotonic() > deadline:
            raise SystemExit(f"timed out waiting for {kind} confirmations: {rows}")
        time.sleep(0.2)


def figures(sessions, kind: str, per_request: int) -> dict[str, float]:
    with sessions() as session:
        rows = session.execute(
            select(
                ChainRequest.created_at, ChainRequest.confirmed_at, ChainRequest.submitted_at
            ).where(ChainRequest.kind == kind)
        ).all()
    latencies = sorted((done - made).total_seconds() for made, done, _ in rows)
    to_signed = sorted((signed - made).total_seconds() for made, _, signed in rows)
    span = (max(r[1] for r in rows) - min(r[0] for r in rows)).total_seconds()
    cuts = quantiles(latencies, n=100, method="inclusive")
    return {
        "count": len(rows) * per_request,
        "per_s": len(rows) * per_request / span,
        "p50": cuts[49],
        "p99": cuts[98],
        "p50_to_signed": quantiles(to_signed, n=100, method="inclusive")[49],
        "span_s": span,
    }


def baseline(w3: Web3, contracts: Contracts, deployer_key: str, payer_key: str, n: int) -> float:
    """Naive web3.py: one DEW transfer, wait for its receipt, then the next."""
    deployer = Account.from_key(deployer_key)
    payer = Account.from_key(payer_key)
    token = contracts.token
    # The deployer holds the treasury (the DEW cap less the vault): it funds the payer.
    tx = token.functions.transfer(payer.address, n * DEW).build_transaction(
        {"from": deployer.address, "nonce": w3.eth.get_transaction_count(deployer.address)}
    )
    mint_hash = w3.eth.send_raw_transaction(deployer.sign_transaction(tx).raw_transaction)
    w3.eth.wait_for_transaction_receipt(mint_hash, timeout=30)
    players = [Account.create().address for _ in range(n)]
    started = time.monotonic()
    for player in players:
        tx = token.functions.transfer(player, DEW).build_transaction(
            {"from": payer.address, "nonce": w3.eth.get_transaction_count(payer.address)}
        )
        tx_hash = w3.eth.send_raw_transaction(payer.sign_transaction(tx).raw_transaction)
        receipt = w3.eth.wait_for_transaction_receipt(tx_hash, timeout=30, poll_latency=0.05)
        assert receipt["status"] == 1
    return n / (time.monotonic() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--matches", type=int, default=2000)
    parser.add_argument("--payouts-per-match", type=int, default=10)
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--rate", type=float, default=4000.0, help="payouts/s offered; 0 = burst")
    parser.add_argument("--mint-requests", type=int, default=200, help="of 10 avatars each")
    parser.add_argument("--baseline", type=int, default=10, help="naive transfers to time")
    parser.add_argument("--broker", choices=["redis", "sqlite"], default="redis")
    parser.add_argument("--db", choices=["sqlite", "postgresql"], default="sqlite")
    parser.add_argument("--confirmations", type=int, default=2)
    parser.add_argument("--quick", action="store_true", help="200 matches, 50 mint requests")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    if args.quick:
        args.matches, args.mint_requests, args.baseline = 200, 50, 4
    quiet = args.json
    workdir = Path(tempfile.mkdtemp(prefix="dew-bench-"))
    log(f"work dir (worker.log, databases): {workdir}", quiet)

    pg_url = None
    if args.db == "postgresql":
        sys.path.insert(0, str(REPO))
        from tests.fixtures.database import create_pg_database

        pg_url = db_url = create_pg_database()
    else:
        db_url = f"sqlite:///{workdir / 'dew.sqlite3'}"
    migrate(db_url)
    db = create_db_engine(db_url)
    sessions = make_session_factory(db)
    broker_url = REDIS_URL if args.broker == "redis" else f"sqla+sqlite:///{workdir / 'b.sqlite3'}"

    # Blocks hold far more than a default 30M-gas block: the settle batches are the point.
    with Anvil(extra_args=("--gas-limit", "1000000000")) as node:
        w3 = Web3(Web3.HTTPProvider(node.rpc_url))
        deployer_key, operator_key, payer_key, *_ = node.keys
        operator = Account.from_key(operator_key).address
        manifest = deploy_all(w3, deployer_key, operator=operator)
        manifest_path = save_manifest(manifest, workdir / "deployment.json")
        contracts = Contracts(w3, manifest)
        w3.provider.make_request("evm_setIntervalMining", [1])
        log(f"anvil {node.rpc_url}, 1-s blocks; contracts deployed", quiet)

        suffix = secrets.token_hex(4)
        env = {
            "DEW_DB_URL": db_url,
            "DEW_BROKER_URL": broker_url,
            "DEW_BROKER_PAYOUTS_QUEUE": f"bench-payouts-{suffix}",
            "DEW_BROKER_DEFAULT_QUEUE": f"bench-dew-{suffix}",
            "DEW_CHAIN_RPC_URL": node.rpc_url,
            "DEW_CHAIN_CHAIN_ID": str(manifest.chain_id),
            "DEW_CHAIN_MANIFEST_PATH": str(manifest_path),
            "DEW_CHAIN_OPERATOR_KEY": operator_key,
            "DEW_CHAIN_CONFIRMATIONS": str(args.confirmations),
            "DEW_CHAIN_POLL_INTERVAL_S": "0.05",
            "DEW_CHAIN_MAX_IN_FLIGHT": "128",
            # anvil runs with 1e9-gas blocks here; real chains keep the 15M default.
            "DEW_CHAIN_MAX_GAS_PER_TX": "30000000",
            "DEW_CHAIN_PUMP_RUN_S": "60",
        }
        # Player wallets only receive: random addresses will do.
        players = [to_checksum_address(secrets.token_bytes(20)) for _ in range(args.players)]
        worker = start_worker(env, workdir / "worker.log")
        wake = Celery(broker=broker_url)
        try:

            def nudge() -> None:
                wake.send_task(
                    "worker.tasks.pump_wallet_task", queue=env["DEW_BROKER_PAYOUTS_QUEUE"]
                )

            nudge()
            # The timed part starts once the worker has run a pump (it creates the wallet row).
            deadline = time.monotonic() + 60
            while True:
                with sessions() as session:
                    if session.scalar(select(func.count()).select_from(ChainWallet)):
                        break
                if time.monotonic() > deadline or worker.exited() is not None:
                    raise SystemExit(f"the worker did not start; see {workdir / 'worker.log'}")
                time.sleep(0.1)
            total_payouts = args.matches * args.payouts_per_match
            log(f"enqueueing {total_payouts} payouts in {args.matches} matches", quiet)
            chunk_s = 0.1
            per_chunk = (
                args.matches
                if args.rate <= 0
                else max(1, round(args.rate * chunk_s / args.payouts_per_match))
            )
            started = time.monotonic()
            k = 0
            prefix = secrets.token_bytes(24)
            while k < args.matches:
                chunk = []
                for _ in range(min(per_chunk, args.matches - k)):
                    k += 1
                    chunk.append(
                        Settlement(
                            match_id=prefix + k.to_bytes(8, "big"),
                            result_hash=secrets.token_bytes(32),
                            payouts=[
                                Payout(amount=DEW, account=players[(k * 7 + j) % len(players)])
                                for j in range(args.payouts_per_match)
                            ],
                        )
                    )
                with sessions.begin() as session:
                    request_settlements(session=session, settlements=chunk)
                nudge()
                if args.rate > 0:
                    pause = started + (k * args.payouts_per_match / args.rate) - time.monotonic()
                    if pause > 0:
                        time.sleep(pause)
            wait_confirmed(sessions, "settle", args.matches, timeout_s=600)
            payouts = figures(sessions, "settle", args.payouts_per_match)
            log(f"payouts: {payouts}", quiet)

            with sessions.begin() as session:
                for m in range(args.mint_requests):
                    owners = [players[(m * 10 + j) % len(players)] for j in range(10)]
                    request_mint(session=session, recipients=owners, idempotency_key=f"m{m}")
            nudge()
            wait_confirmed(sessions, "mint", args.mint_requests, timeout_s=600)
            mints = figures(sessions, "mint", 10)
            log(f"mints: {mints}", quiet)

            # The chain's word, not only the database's: every payout landed exactly once.
            paid = sum(contracts.token.functions.balanceOf(p).call() for p in players)
            if paid != total_payouts * DEW:
                raise SystemExit(f"on chain {paid / DEW} DEW paid, expected {total_payouts}")
            minted = contracts.avatar.functions.balanceOf(players[0]).call()
            if minted < 1:
                raise SystemExit("mints missing on chain")
        finally:
            stack.stop_service(worker, timeout_s=15)
        log(f"baseline: {args.baseline} naive transfers", quiet)
        base = baseline(w3, contracts, deployer_key, payer_key, args.baseline)
    db.dispose()
    if pg_url is not None:
        from tests.fixtures.database import drop_pg_database

        drop_pg_database(pg_url)

    result: dict[str, Any] = {
        "payouts": total_payouts,
        "matches": args.matches,
        "offered_rate_payouts_per_s": args.rate,
        "block_time_s": 1,
        "confirmations": args.confirmations,
        "broker": args.broker,
        "db": args.db,
        "payouts_per_s": round(payouts["per_s"], 1),
        "p50_end_to_confirmed_s": round(payouts["p50"], 3),
        "p99_end_to_confirmed_s": round(payouts["p99"], 3),
        "p50_enqueue_to_signed_s": round(payouts["p50_to_signed"], 3),
        "mints": mints["count"],
        "mints_per_s": round(mints["per_s"], 1),
        "p50_mint_end_to_confirmed_s": round(mints["p50"], 3),
        "baseline_payouts_per_s": round(base, 2),
        "ratio": round(payouts["per_s"] / base, 1),
    }
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key:32} {value}")


if __name__ == "__main__":
    main()
