"""The demo's season as an integration test, on the embedded defaults and on PostgreSQL +
Redis: real anvil, ``dew serve``, Celery worker and beat, clients over HTTP and WebSocket.

Each run checks the chain independently of the ledger: the expected DEW per wallet is
computed here from the match results the server published and the agreements' terms (the
placement table of docs/economy.md, written out again below, not imported), then compared
with the balances read from the token at the block before the first match and now.
"""

from __future__ import annotations

import os
import signal
import uuid
from collections import defaultdict
from typing import Any

import httpx
import pytest

from backend.demo.run import run_demo
from backend.demo.season import RD_OWNER_BPS, DemoConfig, DemoContext
from tests.fixtures.redis import REDIS_URL

pytestmark = pytest.mark.timeout(360)

REDIS = REDIS_URL

# The demo season's leaderboard rewards, places 1..3 (backend/demo/season.py), written again.
SEASON_REWARDS = [30 * 10**18, 20 * 10**18, 10 * 10**18]

# docs/economy.md, "Distribution by placement": a side's share of the pot by number of sides.
PLACEMENT_BPS = {1: [10_000], 2: [10_000, 0], 3: [7_000, 3_000, 0], 4: [6_000, 3_000, 1_000, 0]}


def side_shares(result: dict[str, Any], pot: int) -> dict[int, int]:
    """Per seat: its share of ``pot`` by its side's placement (tied sides share their places)."""
    side_of = {
        s["seat"]: (s["team"] if s["team"] is not None else s["seat"]) for s in result["seats"]
    }
    placement = {side_of[s["seat"]]: s["placement"] for s in result["seats"]}
    bps = PLACEMENT_BPS[len(placement)]
    shares: dict[int, int] = {}
    for side, place in placement.items():
        tied = [s for s, p in placement.items() if p == place]
        side_bps = sum(bps[place - 1 : place - 1 + len(tied)])
        side_amount = pot * side_bps // (10_000 * len(tied))
        members = [seat for seat, s in side_of.items() if s == side]
        for seat in members:
            shares[seat] = side_amount // len(members)
    return shares


def _credit(
    ctx: DemoContext,
    expected: dict[str, int],
    address: str,
    avatar: int | None,
    amount: int,
    agreement: dict[str, Any] | None,
) -> None:
    """Book ``amount`` won by ``address`` playing ``avatar`` as the chain must have split it."""
    by_address = {w.address: name for name, w in ctx.wallets.items()}
    if avatar is None:  # admitted with a VIP pass (or no avatar): paid to the wallet
        expected[by_address[address]] += amount
        return
    owner = ctx.contracts.avatar.functions.ownerOf(avatar).call()
    if agreement is None:  # an owner playing their own avatar keeps it all
        expected[by_address[owner]] += amount
    elif agreement["terms"] == "fixed_rent":  # the rent paid the owner already
        expected[by_address[agreement["scholar"]]] += amount
    else:
        owner_share = amount * RD_OWNER_BPS // 10_000
        scholar_share = amount * (10_000 - RD_OWNER_BPS) // 10_000
        dust = amount - owner_share - scholar_share  # to the owner (dust_to)
        expected[by_address[owner]] += owner_share + dust
        expected[by_address[agreement["scholar"]]] += scholar_share


def campeonato_fee(ctx: DemoContext) -> int:
    detail = ctx.campeonato["detail"]
    paying = [e for e in detail["entrants"] if e["address"]]
    return detail["entry_fee"] * len(paying) * detail["fee_bps"] // 10_000


def fee_legs(ctx: DemoContext) -> dict[str, int]:
    """The Campeonato's fee, by who was paid it (docs/economy.md, "Fees"): the center that
    hosted it (oscar's), the creator CORA (cora) for the entrants it brought (rita and sam),
    and the treasury the rest; from the fee schedule and the entrants alone."""
    fees = ctx.settings.fees
    fee = campeonato_fee(ctx)
    detail = ctx.campeonato["detail"]
    paying = [e for e in detail["entrants"] if e["address"]]
    referred = [
        e for e in paying if e["address"] in (ctx.wallets[n].address for n in ("rita", "sam"))
    ]
    assert len(referred) == 2
    center = fee * fees.center_bps // 10_000
    creator = sum(
        fee * detail["entry_fee"] * fees.creator_bps // (detail["entry_fee"] * len(paying) * 10_000)
        for _ in referred
    )
    assert center > 0 and creator > 0
    return {"oscar": center, "cora": creator, "treasury": fee - center - creator}


def expected_payouts(ctx: DemoContext) -> dict[str, int]:
    """DEW each wallet should have received, from results and agreements alone."""
    emission_per_seat = ctx.settings.economy.emission_per_seat
    agreements = {a["avatar_id"]: a for a in ctx.agreements.values()}
    expected: dict[str, int] = defaultdict(int)
    for played in ctx.matches:
        match = ctx.http.get(f"/matches/{played['over']['match_id']}").json()
        assert match["status"] == "finished"
        seats = match["seats"]
        # Only human seats bring emission (docs/economy.md, "Emission bounds").
        humans = sum(1 for seat in seats if seat["address"] is not None)
        pot = emission_per_seat * humans
        shares = side_shares(match["result"], pot)
        # Shares round down; the dust goes to the best placed human seat with a share
        # (lowest placement, then lowest seat: docs/economy.md, "Distribution by placement").
        placement = {s["seat"]: s["placement"] for s in match["result"]["seats"]}
        paid = [s["seat"] for s in seats if s["address"] is not None and shares[s["seat"]] > 0]
        if paid:
            shares[min(paid, key=lambda seat: (placement[seat], seat))] += pot - sum(
                shares.values()
            )
        for seat in seats:
            amount = shares[seat["seat"]]
            if seat["address"] is None or amount == 0:  # bots earn nothing
                continue
            # After its term an agreement pays nothing to the scholar (docs/economy.md, 2.).
            avatar = seat["avatar_id"]
            agreement = None if played.get("after_expiry") else agreements.get(avatar)
            _credit(ctx, expected, seat["address"], avatar, amount, agreement)
    # The Campeonato (docs/competitions.md): the pool is the wallets' entry fees less the fee
    # plus the season's added prize and the DEW contributed to it (fee-free); prize shares go
    # down the standings to wallets only.
    detail, standings = ctx.campeonato["detail"], ctx.campeonato["standings"]
    entrants = {e["number"]: e for e in detail["entrants"]}
    humans = [s for s in standings if entrants[s["entrant"]]["address"]]
    fees = detail["entry_fee"] * len(humans)
    contributed = sum(ctx.contributed.values())
    assert contributed > 0 and detail["contributed"] == contributed
    assert ctx.contracts.contributions.functions.contributedTo(detail["id"]).call() == contributed
    pool = fees + detail["added_prize"] + contributed - campeonato_fee(ctx)
    prizes = [pool * bps // 10_000 for bps in detail["prize_bps"][: len(humans)]]
    prizes[0] += pool - sum(prizes)
    assert sum(prizes) == pool > 0
    for s, prize in zip(humans, prizes, strict=False):
        e = entrants[s["entrant"]]
        _credit(ctx, expected, e["address"], e["avatar_id"], prize, agreements.get(e["avatar_id"]))
    for name, amount in fee_legs(ctx).items():
        if name != "treasury":
            expected[name] += amount
    return dict(expected)


def rent_flows(ctx: DemoContext) -> dict[str, int]:
    """DEW that moved for rent after the season started: an early termination's split."""
    if "termination" not in ctx.boundary:
        return {}
    seen = ctx.boundary["termination"]
    agreement = seen["agreement"]
    rent, duration = int(agreement["rent"]), agreement["duration_s"]
    # Pro rata, but the owner keeps at least 10% of the rent (MIN_TERMINATION_BPS).
    vested = max(rent * (seen["ended_at"] - agreement["starts_at"]) // duration, rent // 10)
    assert 0 < vested < rent
    return {"olivia": vested, "sam": rent - vested}


def season_reward_payouts(ctx: DemoContext) -> dict[str, int]:
    """DEW each wallet received from the season's leaderboard rewards, checked against the
    reward table and the leaderboard: one settlement, each place paid exactly its reward, to
    the place's player or (an avatar they played) split among the avatar's parties."""
    seen = ctx.season_rewards
    assert seen["settlement"]["status"] == "paid"
    board = seen["leaderboard"]
    places = min(len(board), len(SEASON_REWARDS))
    assert places > 0, "nobody on the leaderboard: the rewards prove nothing"
    by_place: dict[int, int] = defaultdict(int)
    for leg in seen["legs"]:
        by_place[leg["place"]] += leg["amount"]
        if leg["party"] == "wallet":
            assert leg["address"] == board[leg["place"] - 1]["address"]
        else:
            assert leg["party"] in ("owner", "manager", "scholar")
    assert dict(by_place) == {i + 1: SEASON_REWARDS[i] for i in range(places)}
    assert int(seen["settlement"]["paid"]) == sum(SEASON_REWARDS[:places])
    by_address = {w.address: name for name, w in ctx.wallets.items()}
    paid: dict[str, int] = defaultdict(int)
    for leg in seen["legs"]:
        paid[by_address[leg["address"]]] += leg["amount"]
    return dict(paid)


def market_flows(ctx: DemoContext) -> dict[str, int]:
    """What the markets epilogue moved per wallet, computed here: the faucet, the shop's
    prices (olivia), and the resale (sam pays the price; olivia gets it less the avatar's
    ERC-2981 royalty and the market's fee, both read from the chain)."""
    dew, price = 10**18, 40 * 10**18
    avatar = ctx.markets["avatar_id"]
    fee = price * ctx.contracts.market.functions.feeBps().call() // 10_000
    _, royalty = ctx.contracts.avatar.functions.royaltyInfo(avatar, price).call()
    royalty = min(royalty, price * 1_000 // 10_000)  # the market's cap
    return {
        "olivia": 100 * dew - 25 * dew - 5 * dew + price - royalty - fee,
        "sam": 100 * dew - price,
    }


def check_markets(ctx: DemoContext) -> None:
    """The avatar olivia bought, dressed and listed is sam's, still wearing the accessory;
    the listing is sold; the ledger's legs equal the DEW transfers (the reconciliation)."""
    seen, wallets = ctx.markets, ctx.wallets
    avatar = seen["avatar_id"]
    assert ctx.contracts.avatar.functions.ownerOf(avatar).call() == wallets["sam"].address
    assert list(ctx.contracts.accessories.functions.equippedOf(avatar).call()) == [1]
    view = ctx.http.get(f"/markets/avatars/{avatar}").json()
    assert view["owner"] == wallets["sam"].address
    assert [a["name"] for a in view["accessories"]] == ["Gold chain"]
    rows = ctx.http.get(f"/markets/listings?seller={wallets['olivia'].address}").json()
    [sold] = [x for x in rows if x["listing_id"] == seen["listing"]["listing_id"]]
    assert sold["status"] == "sold" and sold["buyer"] == wallets["sam"].address
    found = ctx.reconciliation.markets
    assert found is not None and found.ok
    assert (found.purchases_checked, found.sales_checked) == (2, 1)
    book = ctx.http.get(f"/economy/wallets/{wallets['olivia'].address}").json()["markets"]
    assert int(book["shop_purchases"]) == 30 * 10**18
    assert int(book["net"]) == market_flows(ctx)["olivia"] - 100 * 10**18


def check_chain_against_results(ctx: DemoContext) -> None:
    token = ctx.contracts.token.functions
    expected = expected_payouts(ctx)
    markets = market_flows(ctx)
    rewards = season_reward_payouts(ctx)
    for name, amount in rewards.items():
        expected[name] = expected.get(name, 0) + amount
    rent = rent_flows(ctx)
    assert sum(expected.values()) > 0, "nobody earned anything: the season proves nothing"

    def delta(address: str) -> int:
        now = token.balanceOf(address).call()
        return now - token.balanceOf(address).call(block_identifier=ctx.season_block)

    statements = {
        name: ctx.http.get(f"/economy/wallets/{w.address}").json()
        for name, w in ctx.wallets.items()
    }
    # After the season vera withdrew part of her stake balance (deposited before it).
    withdrawn = {ctx.withdrawal["wallet"]: ctx.withdrawal["amount"]}
    assert ctx.withdrawal["state"] == "paid" and ctx.withdrawal["amount"] > 0
    for name, wallet in ctx.wallets.items():
        moved = (
            expected.get(name, 0)
            + rent.get(name, 0)
            + withdrawn.get(name, 0)
            + markets.get(name, 0)
            - ctx.contributed.get(name, 0)
        )
        assert delta(wallet.address) == moved, name
        assert int(statements[name]["paid"]) == expected.get(name, 0) + withdrawn.get(name, 0)
        assert int(statements[name]["pending"]) == 0, name
    # Emission tables charge no fee; the Campeonato's fee on entry fees is split between the
    # treasury, the center that hosted it and the creator who brought two of its entrants.
    assert delta(ctx.treasury) == fee_legs(ctx)["treasury"] > 0
    # Contributions went into the vault, and out again with the prizes.
    assert -delta(ctx.vault) == (
        sum(expected.values())
        + fee_legs(ctx)["treasury"]
        + sum(withdrawn.values())
        - sum(ctx.contributed.values())
    )
    assert sum(rewards.values()) == int(ctx.season_rewards["settlement"]["paid"])
    assert ctx.reconciliation.withdrawals_paid == sum(withdrawn.values())

    # One MatchSettled per paid match, none for a match nobody earned in.
    settlement = ctx.contracts.settlement
    events = settlement.events.MatchSettled.get_logs(from_block=ctx.season_block)
    paid = [m for m in ctx.matches if m["settlement"]["status"] == "paid"]
    prizes = ctx.campeonato["settlement"]
    assert prizes["status"] == "paid"
    assert sorted(e["args"]["matchId"].hex() for e in events) == sorted(
        [m["settlement"]["chain_match_id"].removeprefix("0x") for m in paid]
        + [prizes["chain_match_id"].removeprefix("0x")]
        + [ctx.withdrawal["chain_match_id"].removeprefix("0x")]
        + [ctx.season_rewards["settlement"]["chain_match_id"].removeprefix("0x")]
    )
    for played in ctx.matches:
        chain_id = bytes.fromhex(played["settlement"]["chain_match_id"].removeprefix("0x"))
        assert settlement.functions.isSettled(chain_id).call() == (played in paid)

    # When the season started, each rented avatar's user was its scholar and its owner the
    # wallet the operator minted it to.
    avatar = ctx.contracts.avatar.functions
    for name, agreement in ctx.agreements.items():
        user = avatar.userOf(agreement["avatar_id"]).call(block_identifier=ctx.season_block)
        assert user == ctx.wallets[name].address
        assert avatar.ownerOf(agreement["avatar_id"]).call() == agreement["owner"]
    assert ctx.reconciliation.ok, ctx.reconciliation.differences


def test_demo_season_on_the_embedded_defaults(tmp_path, capsys) -> None:
    checked: list[bool] = []

    def check(ctx: DemoContext) -> None:
        assert ctx.settings.db.url.startswith("sqlite")
        assert ctx.settings.broker.url.startswith("sqla+sqlite")
        check_chain_against_results(ctx)
        check_markets(ctx)
        # Boundaries: the expired scholar was refused at join; after the term the owner's
        # winning match paid the owner (all of it, checked above) and the scholar nothing.
        refused = ctx.boundary["expiry"]["refused"]
        assert (refused.status_code, refused.json()["error"]["code"]) == (403, "not_eligible")
        # What the settlements after the term paid (a won hand pays the pot; a tied one splits
        # it with the bot, whose share returns to the season) all went to the owner.
        after = [m for m in ctx.matches if m.get("after_expiry")]
        paid = sum(int(m["settlement"]["paid"]) for m in after)
        assert ctx.boundary["expiry"]["wins"] and paid > 0
        assert ctx.boundary["expiry"]["gained"]["oscar"] == paid
        assert ctx.boundary["expiry"]["gained"]["rita"] == 0
        assert ctx.boundary["termination"]["refund"] == rent_flows(ctx)["sam"]
        assert '<script type="module" src="/web/app.js">' in ctx.http.get("/").text
        checked.append(True)

    served: list[str] = []

    def out(text: str) -> None:
        print(text)
        # --stay: the web client still answers after the season; then SIGTERM ends the stay.
        if text.strip().split("] ", 1)[-1].startswith("still serving: open "):
            url = text.split("open ", 1)[1].split()[0].split("#")[0]
            served.append(httpx.get(url, timeout=10).text)
            os.kill(os.getpid(), signal.SIGTERM)

    config = DemoConfig(workdir=tmp_path, boundaries=True, stay=True, out=out)
    result = run_demo(config, check=check)
    assert checked == [True]
    assert len(served) == 1 and '<script type="module" src="/web/app.js">' in served[0]
    assert result.ok, result.problems
    printed = capsys.readouterr().out
    assert "reconciliation OK" in printed
    assert "contribution: cora added 5.00 DEW to Campeonato #" in printed
    assert "5.00 DEW contributed in all" in printed
    assert "moderation: sanction #" in printed and " mute on sam until " in printed
    assert "reason 'Repeated messages at the table'; sam's standing shows it" in printed
    assert "leaderboard rewards for places 1-3: 30.00, 20.00, 10.00 DEW" in printed
    assert "the operator ends the season; the worker pays its leaderboard rewards" in printed
    assert "place 1: " in printed
    assert "season rewards paid; reconciliation OK" in printed
    assert "olivia bought avatar #" in printed and "sam bought avatar #" in printed
    assert any(
        line.startswith("markets: ") and line.endswith("reconciliation OK")
        for line in printed.splitlines()
    )
    assert "watch the season's tables live: http://127.0.0.1:" in printed
    for name in ("olivia", "oscar", "sam", "rita", "vera", "cora", "treasury"):
        assert name in result.table
    assert "Creator CORA (cora, brought rita and sam): " in result.table
    assert "Game Center #1 (owner oscar): " in result.table


def test_demo_season_on_postgresql_and_redis_with_a_worker_killed_mid_settlement(
    tmp_path, pg_url
) -> None:
    """Production-like: PostgreSQL, Redis broker and pub/sub; the worker is SIGKILLed right
    after broadcasting the first settlement and a fresh one finishes it: paid once."""
    checked: list[bool] = []

    def check(ctx: DemoContext) -> None:
        assert ctx.settings.db.url == pg_url
        assert ctx.settings.server.redis_url == REDIS
        assert ctx.crashes == 1
        assert (
            "crash hook: SIGKILL at after_broadcast"
            in (tmp_path / "worker-(crash-hook).log").read_text()
        )
        check_chain_against_results(ctx)
        check_markets(ctx)
        checked.append(True)

    config = DemoConfig(
        workdir=tmp_path,
        db_url=pg_url,
        broker_url=REDIS,
        redis_url=REDIS,
        redis_prefix=f"e2e-{uuid.uuid4().hex[:8]}",
        crash_worker_at="after_broadcast",
    )
    result = run_demo(config, check=check)
    assert checked == [True]
    assert result.ok, result.problems
