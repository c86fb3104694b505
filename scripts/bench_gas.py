"""Gas of settlement and avatar minting, measured from receipts on a fresh anvil.

Baselines in the same run: a plain ``DEWToken.transfer`` transaction per recipient (to an
existing holder and to a new one) and one plain OpenZeppelin ERC-721 mint per transaction.

Markets (issue 19, ``scripts/bench_gas_markets.py``): ``shop_buy_gas``, ``market_buy_gas`` and
``equip_gas`` against a plain ERC-721 mint plus a DEW transfer, and a plain ERC-721
``safeTransferFrom``, with their ratios, and the ERC-6551 token-bound-account alternative.

Batch shape: a batch of N payouts is N/4 matches of four payouts (a four-seat table; a batch
of 1 is one match with one payout), with sequential match ids, which share idempotency
storage words. Extra figures show the other shapes: one payout per match, random ids, and
``_production``: the ids the server really issues for earning matches, taken from
``backend.tables.live.store.next_chain_match_id`` on a migrated SQLite database (tag, deployment
prefix and sequence, ``backend/chain/match_ids.py``). Like every figure, they are measured
after a warm-up settlement: the fresh bitmap word that the first of every 256 sequential
ids writes (about 22,100 gas) is not in them; per payout of four-seat matches it adds about
22 gas on average.

    uv run python scripts/bench_gas.py [--json] [--quick]
"""

from __future__ import annotations

import hashlib
import math
import secrets
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from eth_account import Account
from web3 import Web3

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from backend.chain.anvil import Anvil
from backend.chain.contracts import (
    Contracts,
    SettlementMatch,
    SettlementPayout,
    encode_settle,
    load_artifact,
)
from backend.chain.deploy import DeployConfig, deploy_all
from backend.chain.match_ids import deployment_prefix
from backend.db import create_db_engine, migrate
from backend.tables.live import store
from scripts import bench_gas_markets
from scripts.figures import bench_main

DEW = 10**18
PAYOUT = 3 * DEW // 2  # 1.5 DEW: a typical match reward, several non-zero bytes


class Bench:
    def __init__(self, anvil: Anvil, ids_db_url: str) -> None:
        self.w3 = Web3(Web3.HTTPProvider(anvil.rpc_url))
        self.deployer_key = anvil.keys[0]
        self.deployer = Account.from_key(self.deployer_key).address
        # The operator (anvil's second key) settles; the deployer holds the rest of the cap,
        # which funds "existing holders" and sends the baseline transfers.
        self.operator_key = anvil.keys[1]
        self.operator = Account.from_key(self.operator_key).address
        manifest = deploy_all(
            self.w3,
            self.deployer_key,
            operator=self.operator,
            config=DeployConfig(vault_funding=100_000_000 * DEW),
        )
        self.c = Contracts(self.w3, manifest)
        self.next_match = 1
        self.fresh = 0
        # The server's own id sequence, on a database of its own.
        migrate(ids_db_url)
        self.ids_engine = create_db_engine(ids_db_url)
        self.prefix = deployment_prefix("bench-gas", self.w3.eth.chain_id)

    def rpc(self, method: str, params: list[Any]) -> Any:
        answer = self.w3.provider.make_request(method, params)
        if "error" in answer:
            raise RuntimeError(f"{method} failed: {answer['error']}")
        return answer.get("result")

    def tx(self, sender: str, call: Any = None, *, to: str | None = None, data: bytes = b"") -> int:
        """Send from an unlocked/impersonated account; returns gasUsed of the mined receipt."""
        params: dict[str, Any] = {"from": sender, "gas": 15_000_000}
        if call is not None:
            params = call.build_transaction(params)
        else:
            params.update({"to": to, "data": data})
        tx_hash = self.w3.eth.send_transaction(params)
        receipt = self.w3.eth.wait_for_transaction_receipt(tx_hash, timeout=60)
        if receipt["status"] != 1:
            raise RuntimeError(f"transaction reverted: {params.get('to')} {tx_hash.hex()}")
        return int(receipt["gasUsed"])

    def new_addresses(self, n: int) -> list[str]:
        """Addresses that have never held anything."""
        out = []
        for _ in range(n):
            self.fresh += 1
            out.append(Web3.to_checksum_address(f"0x{0xD3E0000000 + self.fresh:040x}"))
        return out

    def existing_holders(self, n: int) -> list[str]:
        holders = self.new_addresses(n)
        for chunk in range(0, n, 200):
            words = [(DEW << 160) | int(a, 16) for a in holders[chunk : chunk + 200]]
            self.tx(self.deployer, self.c.token.functions.disperse(words))
        return holders

    def impersonate(self, address: str) -> None:
        self.rpc("anvil_impersonateAccount", [address])
        self.rpc("anvil_setBalance", [address, hex(10**20)])

    def match_ids(self, n: int, *, ids: str) -> list[int]:
        if ids == "random":
            return [int.from_bytes(secrets.token_bytes(32)) for _ in range(n)]
        if ids == "production":
            with self.ids_engine.begin() as conn:
                return [
                    int(store.next_chain_match_id(conn, prefix=self.prefix), 16) for _ in range(n)
                ]
        assert ids == "sequential", ids
        ids = list(range(self.next_match, self.next_match + n))
        self.next_match += n
        return ids

    def settle(
        self,
        payouts: Sequence[SettlementPayout],
        *,
        per_match: int,
        ids: str = "sequential",
    ) -> int:
        groups = [payouts[i : i + per_match] for i in range(0, len(payouts), per_match)]
        match_ids = self.match_ids(len(groups), ids=ids)
        matches = [
            SettlementMatch(
                match_id=match_id,
                result_hash=hashlib.sha256(f"record {match_id}".encode()).digest(),
                payouts=group,
            )
            for match_id, group in zip(match_ids, groups, strict=True)
        ]
        data = encode_settle(self.c, matches)
        return self.tx(self.operator, to=self.c.settlement.address, data=data)

    def warm_up(self) -> None:
        """One settlement first, so no figure carries the first-ever write of a shared slot
        (the vault's total-paid counter, the first idempotency word of each id layout)."""
        for ids in ("sequential", "production"):
            (holder,) = self.existing_holders(1)
            self.settle([SettlementPayout(amount=PAYOUT, account=holder)], per_match=1, ids=ids)

    def split_avatars(self, n: int) -> list[int]:
        """n avatars, each under a Rewards Division agreement with its own owner and scholar
        and one guild manager; every party already holds DEW."""
        owners = self.existing_holders(n)
        scholars = self.existing_holders(n)
        (manager,) = self.existing_holders(1)
        first = self.c.avatar.functions.nextTokenId().call()
        self.tx(self.operator, self.c.avatar.functions.mintBatch(owners))
        avatars = range(first, first + n)
        for owner, scholar, avatar_id in zip(owners, scholars, avatars, strict=True):
            self.tx(self.operator, self.c.registry.functions.setScreened(owner, True))
            self.impersonate(owner)
            # owner 30%, manager 10%; the offer stays valid (validUntil = 2**64 - 1)
            terms = (1, 30 * 86400, 0, 3000, 1000, manager, 2, 2**64 - 1)
            self.tx(owner, self.c.registry.functions.offer(avatar_id, scholar, terms))
            agreement_id = self.c.registry.functions.agreementCount().call()
            self.impersonate(scholar)
            self.tx(scholar, self.c.registry.functions.accept(agreement_id))
        return list(range(first, first + n))

    def plain_erc721(self) -> Any:
        artifact = load_artifact("PlainERC721")
        factory = self.w3.eth.contract(abi=artifact.abi, bytecode=artifact.bytecode)
        tx_hash = factory.constructor().transact({"from": self.deployer})
        address = self.w3.eth.wait_for_transaction_receipt(tx_hash)["contractAddress"]
        return self.w3.eth.contract(address=address, abi=artifact.abi)


def per_payout(gas: int, n: int) -> int:
    return math.ceil(gas / n)


# --- issue 20 (h20-contracts): a match's center and creator fee legs; renting a center ------

# The staked match of these figures: a four-seat partnership match whose two winners are paid
# (both already hold DEW: they staked it) and whose fee goes to the treasury, as
# backend/economy/settlement.py plans it. "With legs": the same match plus two more kind-0
# payouts, the Game Center's and the creator's share of the fee, in the same settle batch.
CENTER_CREATOR_SAMPLES = 3


def _fee_match(b: Bench, extra: Sequence[str]) -> list[SettlementPayout]:
    winners = b.existing_holders(2)
    fee = PAYOUT // 10
    payouts = [SettlementPayout(amount=PAYOUT, account=w) for w in winners]
    payouts.append(SettlementPayout(amount=fee, account=b.deployer))  # the treasury
    payouts += [SettlementPayout(amount=fee // 4, account=a) for a in extra]
    return payouts


def _median_settle_gas(
    b: Bench, matches: int, extra: Callable[[], Sequence[str]], samples: int
) -> int:
    """Median gas per match of settling ``matches`` fee matches in one transaction; each match
    gets ``extra()`` as its additional legs. The median keeps out the one sample that opens a
    fresh idempotency word (every 256th sequential id)."""
    runs = []
    for _ in range(samples):
        payouts: list[SettlementPayout] = []
        per_match = 3 + len(extra())
        for _ in range(matches):
            payouts += _fee_match(b, extra())
        runs.append(b.settle(payouts, per_match=per_match) / matches)
    return math.ceil(sorted(runs)[len(runs) // 2])


def center_creator_figures(b: Bench, quick: bool) -> dict[str, Any]:
    """``settle_gas_center_creator_ratio``: gas per settled match with the center and creator
    legs over the same match without them, one match per transaction, every recipient an
    existing DEW holder (a center and a creator are paid again and again). Also: batches of 10
    matches at one center with one creator, and a center and creator paid for the first time
    (a fresh balance slot each: the worst case)."""
    samples = 1 if quick else CENTER_CREATOR_SAMPLES
    center, creator = b.existing_holders(2)
    figures: dict[str, Any] = {}
    for matches in (1, 10):
        base = _median_settle_gas(b, matches, lambda: (), samples)
        legs = _median_settle_gas(b, matches, lambda: (center, creator), samples)
        new = _median_settle_gas(b, matches, lambda: b.new_addresses(2), samples)
        suffix = "" if matches == 1 else f"_batch{matches}"
        figures[f"settle_gas_fee_match{suffix}"] = base
        figures[f"settle_gas_fee_match_center_creator{suffix}"] = legs
        figures[f"settle_gas_fee_match_center_creator_new{suffix}"] = new
        figures[f"settle_gas_center_creator_ratio{suffix}"] = round(legs / base, 3)
        figures[f"settle_gas_center_creator_ratio_new{suffix}"] = round(new / base, 3)
    return figures


def center_rental_figures(b: Bench) -> dict[str, Any]:
    """Gas of renting a Game Center to an operator: ERC-4907 ``setUser`` by the owner (one
    transaction, no payment, no lock) against the chosen Fixed Rent agreement in the centers'
    ScholarshipRegistry (offer, the renter's DEW approve, accept: rent escrowed, center locked)."""
    owner, renter = b.existing_holders(2)
    c = b.c
    center_id = c.game_center.functions.nextTokenId().call()
    mint = c.game_center.functions.mintCenter(
        owner, "Bench Club", b"DO", "Santiago", 1847, -6990, 8
    )
    figures: dict[str, Any] = {"center_mint_gas": b.tx(b.operator, mint)}
    b.impersonate(owner)
    expires = b.w3.eth.get_block("latest")["timestamp"] + 30 * 86400
    figures["center_rental_setuser_gas"] = b.tx(
        owner, c.game_center.functions.setUser(center_id, renter, expires)
    )
    figures["center_rental_screen_gas"] = b.tx(
        b.operator, c.center_registry.functions.setScreened(owner, True)
    )
    terms = (0, 30 * 86400, DEW, 0, 0, "0x" + "00" * 20, 2, 2**64 - 1)  # Fixed Rent, 1 DEW
    offer = b.tx(owner, c.center_registry.functions.offer(center_id, renter, terms))
    agreement_id = c.center_registry.functions.agreementCount().call()
    b.impersonate(renter)
    approve = b.tx(renter, c.token.functions.approve(c.center_registry.address, DEW))
    accept = b.tx(renter, c.center_registry.functions.accept(agreement_id))
    if c.game_center.functions.payeeOf(center_id).call() != renter:
        raise RuntimeError("the rented center does not pay its renter")
    figures["center_rental_offer_gas"] = offer
    figures["center_rental_approve_gas"] = approve
    figures["center_rental_accept_gas"] = accept
    figures["center_rental_fixed_rent_gas"] = offer + approve + accept
    return figures


def run(quick: bool) -> dict[str, Any]:
    sizes = (1, 10) if quick else (1, 10, 100)
    figures: dict[str, Any] = {}
    started = time.monotonic()
    with Anvil() as anvil, tempfile.TemporaryDirectory() as tmp:
        b = Bench(anvil, f"sqlite:///{tmp}/ids.sqlite3")
        figures["hardfork"] = b.rpc("anvil_nodeInfo", []).get("hardFork")
        b.warm_up()

        # Baselines: one plain DEWToken.transfer transaction.
        (existing,) = b.existing_holders(1)
        figures["transfer_tx_gas_existing"] = b.tx(
            b.deployer, b.c.token.functions.transfer(existing, PAYOUT)
        )
        (new,) = b.new_addresses(1)
        figures["transfer_tx_gas_new"] = b.tx(b.deployer, b.c.token.functions.transfer(new, PAYOUT))

        shapes: list[tuple[str, int, str]] = [
            ("", 4, "sequential"),
            ("_production", 4, "production"),
        ]
        if not quick:
            shapes += [("_one_per_match", 1, "sequential"), ("_random_ids", 4, "random")]
        for suffix, per_match, ids in shapes:
            for n in sizes:
                holders = b.existing_holders(n)
                payouts = [SettlementPayout(amount=PAYOUT, account=a) for a in holders]
                gas = b.settle(payouts, per_match=per_match, ids=ids)
                figures[f"settle_gas_per_payout_existing_{n}{suffix}"] = per_payout(gas, n)
                payouts = [SettlementPayout(amount=PAYOUT, account=a) for a in b.new_addresses(n)]
                gas = b.settle(payouts, per_match=per_match, ids=ids)
                figures[f"settle_gas_per_payout_new_{n}{suffix}"] = per_payout(gas, n)
        for n in sizes:
            avatars = b.split_avatars(n)
            # Played just now, under the agreement: the split walks no history.
            played_at = b.w3.eth.get_block("latest")["timestamp"]
            payouts = [
                SettlementPayout(amount=PAYOUT, avatar_id=a, played_at=played_at) for a in avatars
            ]
            figures[f"settle_gas_per_payout_split_{n}"] = per_payout(
                b.settle(payouts, per_match=4), n
            )

        # Avatar minting: one mintBatch call, all to one new holder (the published ERC721A
        # comparison) and to distinct new holders.
        for n in sizes:
            (holder,) = b.new_addresses(1)
            mint = b.c.avatar.functions.mintBatch([holder] * n)
            figures[f"mint_gas_{n}"] = b.tx(b.operator, mint)
            distinct = b.new_addresses(n)
            figures[f"mint_gas_{n}_distinct"] = b.tx(
                b.operator, b.c.avatar.functions.mintBatch(distinct)
            )
        plain = b.plain_erc721()
        (holder,) = b.new_addresses(1)
        mints = [b.tx(b.deployer, plain.functions.mint(holder)) for _ in range(max(sizes))]
        figures["oz_mint_tx_gas"] = mints[0]
        for n in sizes:
            figures[f"oz_mint_gas_{n}_total"] = sum(mints[:n])
        figures.update(bench_gas_markets.measure(b))
        figures.update(center_creator_figures(b, quick))  # issue 20
        figures.update(center_rental_figures(b))  # issue 20
        b.ids_engine.dispose()

    top = max(sizes)
    existing_key = f"settle_gas_per_payout_existing_{top}"
    figures["ratio_existing_vs_transfer"] = round(
        figures[existing_key] / figures["transfer_tx_gas_existing"], 3
    )
    figures["ratio_mint_10_vs_1"] = round(figures["mint_gas_10"] / figures["mint_gas_1"], 3)
    figures["targets"] = {
        f"{existing_key} <= transfer_tx_gas_existing / 3": figures[existing_key] * 3
        <= figures["transfer_tx_gas_existing"],
        f"settle_gas_per_payout_new_{top} <= 26000": figures[f"settle_gas_per_payout_new_{top}"]
        <= 26_000,
        f"settle_gas_per_payout_new_{top}_production <= 26000": figures[
            f"settle_gas_per_payout_new_{top}_production"
        ]
        <= 26_000,
        "mint_gas_10 <= 3 * mint_gas_1": figures["mint_gas_10"] <= 3 * figures["mint_gas_1"],
        "equip_gas <= tba_create_gas + tba_equip_gas": figures["equip_gas"]
        <= figures["tba_create_gas"] + figures["tba_equip_gas"],
        "settle_gas_center_creator_ratio <= 1.3": figures["settle_gas_center_creator_ratio"] <= 1.3,
    }
    figures["quick"] = quick
    figures["seconds"] = round(time.monotonic() - started, 1)
    return figures


def main(argv: Sequence[str] | None = None, out: Callable[[str], None] = print) -> int:
    return bench_main(__doc__.splitlines()[0], "smoke run: batches of 1 and 10", run, argv, out)


if __name__ == "__main__":
    raise SystemExit(main())
