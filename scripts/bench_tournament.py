"""A 1,024-entrant tournament: every round paired, results applied, standings, and its prizes
settled on a fresh anvil through the real economy path (escrowed entry fees,
``plan_prize_settlement``, the chain outbox, the transaction engine, ``settle``).

Figures:
- pairing ms per round, Swiss (backtracking, no rematches) and single elimination, against
  a same-run baseline: a plain sort of the entrants by score and seed, paired neighbour to
  neighbour (what a pairing that ignores rematches and byes would cost);
- settlement gas per prize: the ``settle`` transaction's gas divided by its payouts, against
  the same-run baseline of one plain ``DEWToken.transfer`` transaction per winner.

    uv run python scripts/bench_tournament.py [--json] [--quick]
"""

from __future__ import annotations

import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from eth_account import Account
from web3 import Web3

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from backend.chain.calls import ContractCalls
from backend.chain.contracts import Contracts
from backend.chain.deploy import DeployConfig, deploy_all
from backend.chain.engine import Engine
from backend.chain.models import ChainRequest, RequestStatus
from backend.chain.rpc import Rpc
from backend.competitions import pairing
from backend.competitions.models import escrow_key
from backend.competitions.service import settlement_limit
from backend.config import ChainSettings
from backend.db import create_db_engine, make_session_factory, migrate
from backend.devstack.anvil import Anvil
from backend.economy import settlement as economy
from backend.economy import stakes
from scripts.figures import bench_main

DEW = 10**18
ENTRY_FEE = 10 * DEW


def ms(seconds: float) -> float:
    return round(seconds * 1000, 3)


def play(pairings: Sequence[pairing.Pairing], rng: random.Random) -> list[pairing.Game]:
    return [
        pairing.Game(p.a, p.b, p.a if p.b is None else rng.choice((p.a, p.b))) for p in pairings
    ]


def baseline_round(by_seed: Sequence[int], scores: dict[int, int]) -> list[tuple[int, int]]:
    rank = {e: i for i, e in enumerate(by_seed)}
    order = sorted(by_seed, key=lambda e: (-scores[e], rank[e]))
    return list(zip(order[::2], order[1::2], strict=False))


def bench_pairing(entrants: int, seed: int = 7) -> dict[str, Any]:
    rng = random.Random(seed)
    by_seed = list(range(1, entrants + 1))
    rounds = pairing.rounds_needed("swiss", entrants)
    swiss_ms, base_ms = [], []
    history: list[pairing.Game] = []
    scores = dict.fromkeys(by_seed, 0)
    rematches = 0
    met: set[frozenset[int]] = set()
    for _ in range(rounds):
        t0 = time.perf_counter()
        pairings = pairing.pair_swiss(by_seed, history)
        swiss_ms.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        baseline_round(by_seed, scores)
        base_ms.append(time.perf_counter() - t0)
        for p in pairings:
            if p.b is not None:
                rematches += frozenset((p.a, p.b)) in met
                met.add(frozenset((p.a, p.b)))
        games = play(pairings, rng)
        history += games
        for g in games:
            if g.winner is not None:
                scores[g.winner] += pairing.WIN
    t0 = time.perf_counter()
    standings = pairing.swiss_standings(by_seed, history)
    standings_ms = time.perf_counter() - t0

    elim_ms = []
    t0 = time.perf_counter()
    current = pairing.first_elimination_round(by_seed)
    elim_ms.append(time.perf_counter() - t0)
    while True:
        games = [pairing.decide(g, by_seed) for g in play(current, rng)]
        if len(games) == 1:
            break
        t0 = time.perf_counter()
        current = pairing.next_elimination_round(games)
        elim_ms.append(time.perf_counter() - t0)
    swiss_median = statistics.median(swiss_ms)
    base_median = statistics.median(base_ms)
    return {
        "entrants": entrants,
        "swiss_rounds": rounds,
        "swiss_pair_ms_median": ms(swiss_median),
        "swiss_pair_ms_max": ms(max(swiss_ms)),
        "baseline_sort_pair_ms_median": ms(base_median),
        "ratio_swiss_vs_sort": round(swiss_median / base_median, 1),
        "swiss_rematches": rematches,
        "swiss_standings_ms": ms(standings_ms),
        "elimination_rounds": len(elim_ms),
        "elimination_pair_ms_max": ms(max(elim_ms)),
        "_standings": standings,
    }


def bench_settlement(standings: list[pairing.Standing], prize_places: int) -> dict[str, Any]:
    """Entry fees of every entrant escrowed, then the top ``prize_places`` paid in one entry."""
    entrants = len(standings)
    bps = [10_000 // prize_places] * prize_places
    bps[0] += 10_000 - sum(bps)
    fees = ENTRY_FEE * entrants
    fee = fees * 500 // 10_000
    shares = pairing.prize_shares(fees - fee, bps, entrants)
    with Anvil() as anvil, tempfile.TemporaryDirectory() as tmp:
        w3 = Web3(Web3.HTTPProvider(anvil.rpc_url))
        deployer_key, operator_key, *_ = anvil.keys
        operator = Account.from_key(operator_key).address
        # The vault pays one match (here: the whole prize pool) at most its per-match limit;
        # the deployed default (10,000 DEW) is below 1,024 entries of 10 DEW, so this
        # deployment's limit is set to fit the pool, as an operator must before such a
        # tournament (create_tournament refuses a pool above the limit read from the chain).
        limit = -(-fees // DEW) * DEW
        manifest = deploy_all(
            w3,
            deployer_key,
            operator=operator,
            config=DeployConfig(
                vault_funding=100_000_000 * DEW,
                settle_max_per_match=max(limit, DeployConfig().settle_max_per_match),
                settle_period_limit=max(limit, DeployConfig().settle_period_limit),
            ),
        )
        c = Contracts(w3, manifest)
        if settlement_limit(c) < fees:
            raise RuntimeError(f"the vault's limits do not fit a pool of {fees} DEW wei")
        winners = [Account.create().address for _ in range(prize_places)]
        url = f"sqlite:///{tmp}/bench.sqlite3"
        migrate(url)
        db = create_db_engine(url)
        sessions = make_session_factory(db)
        key = escrow_key(1)
        players = {s.entrant: Account.create().address for s in standings}
        for i, place in enumerate(standings[:prize_places]):
            players[place.entrant] = winners[i]
        with sessions.begin() as session:  # every entrant's deposit, as the indexer credits it
            for number, address in players.items():
                stakes.credit_deposit(
                    session=session,
                    address=address,
                    amount=ENTRY_FEE,
                    tx_hash="0x" + f"{number:064x}",
                    log_index=0,
                )
        t0 = time.perf_counter()
        with sessions.begin() as session:
            stakes.escrow_stakes(
                session=session, match_id=key, seats=list(players.items()), stake=ENTRY_FEE
            )
        escrow_ms = time.perf_counter() - t0
        treasury = Account.create().address
        t0 = time.perf_counter()
        with sessions.begin() as session:
            planned = economy.plan_prize_settlement(
                session=session,
                key=key,
                chain_match_id="0x" + "ab" * 32,
                result_hash="0x" + "cd" * 32,
                prizes=[
                    economy.Prize(place=i + 1, address=winners[i], amount=amount)
                    for i, amount in enumerate(shares)
                ],
                entry_fees=fees,
                added_prize=0,
                fee=fee,
                treasury=treasury,
                season_id=None,
                finished_at=datetime.now(UTC),
                chain_id=manifest.chain_id,
            )
            request_id = planned.chain_request_id
        plan_ms = time.perf_counter() - t0
        engine = Engine(
            session_factory=sessions,
            rpc=Rpc(anvil.rpc_url),
            account=Account.from_key(operator_key),
            chain_id=manifest.chain_id,
            calls=ContractCalls(c),
            settings=ChainSettings(confirmations=0, poll_interval_s=0.02, stuck_after_s=600),
        )
        deadline = time.monotonic() + 120
        while True:
            engine.step()
            with sessions() as session:
                request = session.get(ChainRequest, request_id)
                if request.status == RequestStatus.CONFIRMED:
                    tx_hash = request.tx_hash
                    break
                if request.status == RequestStatus.FAILED:
                    raise RuntimeError(f"settlement failed: {request.failure_reason}")
            if time.monotonic() > deadline:
                raise RuntimeError("settlement not confirmed in 120 s")
            time.sleep(0.02)
        gas = int(w3.eth.get_transaction_receipt(tx_hash)["gasUsed"])
        paid = [c.token.functions.balanceOf(w).call() for w in winners]
        if paid != shares or c.token.functions.balanceOf(treasury).call() != fee:
            raise RuntimeError("the chain did not pay the planned prizes")
        # Baseline: one plain transfer transaction per winner (to a new holder, as here),
        # from the deployer, who holds the DEW treasury.
        funder = Account.from_key(deployer_key).address
        transfer = w3.eth.send_transaction(
            c.token.functions.transfer(Account.create().address, shares[-1]).build_transaction(
                {"from": funder}
            )
        )
        transfer_gas = int(w3.eth.wait_for_transaction_receipt(transfer)["gasUsed"])
        db.dispose()
    payouts = prize_places + 1  # the prizes plus the fee to the treasury
    return {
        "prize_places": prize_places,
        "escrow_entry_fees_ms": ms(escrow_ms),
        "plan_prizes_ms": ms(plan_ms),
        "settle_tx_gas": gas,
        "settle_gas_per_prize": -(-gas // payouts),
        "transfer_tx_gas_new_holder": transfer_gas,
        "ratio_settle_per_prize_vs_transfer": round(gas / payouts / transfer_gas, 3),
    }


def run(quick: bool) -> dict[str, Any]:
    started = time.monotonic()
    entrants = 128 if quick else 1024
    figures = bench_pairing(entrants)
    standings = figures.pop("_standings")
    figures.update(bench_settlement(standings, prize_places=8 if quick else 63))
    figures["quick"] = quick
    figures["seconds"] = round(time.monotonic() - started, 1)
    return figures


def main(argv: Sequence[str] | None = None, out: Callable[[str], None] = print) -> int:
    return bench_main(__doc__.splitlines()[0], "smoke run: 128 entrants, 8 prizes", run, argv, out)


if __name__ == "__main__":
    raise SystemExit(main())
