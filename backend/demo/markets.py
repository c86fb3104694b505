"""The demo's markets steps, after the season (docs/economy.md, "Markets").

The operator lists an avatar type and an accessory type in the shop (through the outbox: the
worker sends them); olivia buys an avatar and the accessory with her own wallet, dresses the
avatar, lists it on the market; sam buys it, and the accessory goes with it. Every step is a
real HTTP call that hands the wallet unsigned transactions to sign. Then the markets ledger
is reconciled with the DEW ``Transfer`` events, and each wallet's balance change with what
the ledger says it spent and received, to the unit.
"""

from __future__ import annotations

import time
import uuid
from typing import TYPE_CHECKING, Any

from backend.demo.players import DemoFailed, Wallet, api_txs, ok
from backend.demo.report import reconcile
from backend.demo.results import DemoResult, dew_amount
from backend.devstack.stack import wait_for

if TYPE_CHECKING:
    from backend.demo.season import Season

DEW = 10**18
AVATAR_PRICE = 25 * DEW
ACCESSORY_PRICE = 5 * DEW
RESALE_PRICE = 40 * DEW
ACCESSORY_TYPE = 1
# What the deployer's treasury gives each market wallet first, so the steps never depend
# on what the season paid them.
MARKET_FAUCET = 100 * DEW


def _index(season: Season) -> None:
    from backend.economy import jobs

    jobs.index_markets(
        settings=season.settings, session_factory=season.sessions, reader=season.reader
    )


def _queue_shop(season: Season) -> tuple[int, int]:
    """The operator's two listings, queued and sent by the worker: their listing ids."""
    from backend.markets import operator

    c, run = season.contracts, uuid.uuid4().hex[:8]
    with season.sessions.begin() as session:
        avatar = operator.queue_listing(
            session=session,
            item_kind="avatar",
            item=c.avatar.address,
            item_id=0,
            price=AVATAR_PRICE,
            supply=10,
            vip_term_s=0,
            name="Domino master",
            image="/web/avatars/master.svg",
            idempotency_key=f"demo-avatar-{run}",
        )
        chain = operator.queue_listing(
            session=session,
            item_kind="accessory",
            item=c.accessories.address,
            item_id=ACCESSORY_TYPE,
            price=ACCESSORY_PRICE,
            supply=50,
            vip_term_s=0,
            name="Gold chain",
            slot="neck",
            max_supply=100,
            uri="https://dew.example/accessories/1.json",
            idempotency_key=f"demo-chain-{run}",
        )

    def listed() -> tuple[int, int] | None:
        season.supervise_worker()
        with season.sessions() as session:
            ids = [
                operator.request_status(session=session, request_id=r.id) for r in (avatar, chain)
            ]
        for status in ids:
            if status.status == "failed":
                raise DemoFailed(f"shop listing failed: {status.failure_reason}")
        if any(s.listing_id is None or s.status != "confirmed" for s in ids):
            return None
        return ids[0].listing_id or 0, ids[1].listing_id or 0

    found = wait_for("the shop listings confirmed", listed, timeout_s=120, every_s=0.5)
    assert found is not None
    return found


def _signed(season: Season, wallet: Wallet, method: str, path: str, body: Any = None) -> list[str]:
    """Ask the server for the transactions (as ``wallet``) and sign them with its own key."""
    response = season.http.request(method, path, json=body, headers=wallet.auth)
    return season.chain.send(wallet.key, api_txs(response))


def _wait_indexed(season: Season, what: str, condition: Any) -> Any:
    def check() -> Any:
        _index(season)
        return condition()

    return wait_for(what, check, timeout_s=60, every_s=0.3)


def markets(season: Season, result: DemoResult) -> DemoResult:
    """Buy in the shop, equip, list, resell; reconcile the markets with the chain."""
    http, out, c = season.http, season.out, season.contracts
    olivia, sam = season.olivia, season.sam
    season.step(
        "markets: the operator lists an avatar type and an accessory in the shop; olivia buys "
        "both, equips the accessory and lists the avatar; sam buys it"
    )
    shop_avatar, shop_chain = _queue_shop(season)
    token = c.token.functions
    for wallet in (olivia, sam):
        season.chain.call(season.deployer_key, token.transfer(wallet.address, MARKET_FAUCET))
    treasury = c.shop.functions.treasury().call()
    people = {"olivia": olivia.address, "sam": sam.address, "treasury": treasury}
    before = {n: token.balanceOf(a).call() for n, a in people.items()}
    _wait_indexed(
        season,
        "the shop listings indexed",
        lambda: (
            {shop_avatar, shop_chain} <= {x["listing_id"] for x in ok(http.get("/markets/shop"))}
        ),
    )
    shop = {x["listing_id"]: x for x in ok(http.get("/markets/shop"))}
    out(
        f"  shop #{shop_avatar}: {shop[shop_avatar]['name']} avatar, "
        f"{dew_amount(AVATAR_PRICE)} DEW; shop #{shop_chain}: {shop[shop_chain]['name']} "
        f"accessory, {dew_amount(ACCESSORY_PRICE)} DEW (proceeds to the treasury {treasury[:8]})"
    )
    lines: list[str] = []
    lines += _signed(season, olivia, "POST", f"/markets/shop/{shop_avatar}/buy")
    lines += _signed(season, olivia, "POST", f"/markets/shop/{shop_chain}/buy")

    def bought() -> int | None:
        report = ok(http.get(f"/markets/wallets/{olivia.address}/report"))
        avatars = [
            int(x["item_id"])
            for x in report["lines"]
            if x["kind"] == "shop_purchase" and x["token"] == c.avatar.address
        ]
        return max(avatars) if avatars else None

    avatar_id = _wait_indexed(season, "olivia's purchases indexed", bought)
    out(f"  olivia bought avatar #{avatar_id} and a Gold chain in the shop")
    _signed(
        season,
        olivia,
        "POST",
        f"/markets/avatars/{avatar_id}/equip",
        {"type_id": ACCESSORY_TYPE, "equip": True},
    )
    expires = int(season.w3.eth.get_block("latest")["timestamp"]) + 3600
    listing_body = {
        "token_kind": "avatar",
        "id": str(avatar_id),
        "amount": 1,
        "price": str(RESALE_PRICE),
        "expires_at": expires,
    }
    _signed(season, olivia, "POST", "/markets/listings", listing_body)

    def listed() -> dict[str, Any] | None:
        rows = ok(http.get(f"/markets/listings?seller={olivia.address}&status=open"))
        return next((x for x in rows if x["id"] == str(avatar_id)), None)

    listing = _wait_indexed(season, "olivia's listing indexed", listed)
    worn = ok(http.get(f"/markets/avatars/{avatar_id}"))["accessories"]
    out(
        f"  olivia equipped {', '.join(a['name'] for a in worn)} on avatar #{avatar_id} and "
        f"listed it as #{listing['listing_id']} for {dew_amount(RESALE_PRICE)} DEW"
    )
    _signed(season, sam, "POST", f"/markets/listings/{listing['listing_id']}/buy")

    def resold() -> dict[str, Any] | None:
        view = ok(http.get(f"/markets/avatars/{avatar_id}"))
        return view if view["owner"] == sam.address else None

    view = _wait_indexed(season, "sam's purchase indexed", resold)
    return _close_books(season, result, people, before, avatar_id, listing, view)


def _close_books(
    season: Season,
    result: DemoResult,
    people: dict[str, str],
    before: dict[str, int],
    avatar_id: int,
    listing: dict[str, Any],
    view: dict[str, Any],
) -> DemoResult:
    """The markets ledger against the DEW transfers and the balances, to the unit."""
    http, out, c = season.http, season.out, season.contracts
    token = c.token.functions
    books = {n: ok(http.get(f"/markets/wallets/{a}/report")) for n, a in people.items()}
    sale = next(x for x in books["olivia"]["lines"] if x["kind"] == "sale")
    royalty = int(
        next(
            x["amount"]
            for x in books["treasury"]["lines"]
            if x["kind"] == "royalty" and x["listing_id"] == listing["listing_id"]
        )
    )
    out(
        f"  sam bought avatar #{avatar_id} for {dew_amount(RESALE_PRICE)} DEW: olivia "
        f"+{dew_amount(int(sale['amount']))}, royalty {dew_amount(royalty)} and market fee "
        f"{dew_amount(RESALE_PRICE - royalty - int(sale['amount']))} to the treasury "
        f"(tx {sale['tx_hash'][:12]}…); it still wears "
        f"{', '.join(a['name'] for a in view['accessories']) or 'nothing'}"
    )
    problems = list(result.problems)
    equipped = list(c.accessories.functions.equippedOf(avatar_id).call())
    if c.avatar.functions.ownerOf(avatar_id).call() != people["sam"]:
        problems.append(f"avatar #{avatar_id} is not sam's on chain")
    if equipped != [ACCESSORY_TYPE]:
        problems.append(f"avatar #{avatar_id} wears {equipped} on chain, not the Gold chain")
    after = {n: token.balanceOf(a).call() for n, a in people.items()}
    for name in people:
        if after[name] - before[name] != int(books[name]["net"]):
            problems.append(
                f"{name}: balance moved {after[name] - before[name]}, "
                f"the markets ledger says {books[name]['net']}"
            )
    reconciliation = reconcile(season.settings, season.sessions, season.reader)
    problems += reconciliation.differences
    season.reconciliation = reconciliation
    found = reconciliation.markets
    season.markets_seen = {
        "avatar_id": avatar_id,
        "listing": listing,
        "books": books,
        "before": before,
        "after": after,
        "equipped": equipped,
    }
    if problems:
        out("MARKETS RECONCILIATION FAILED:")
        for problem in problems:
            out(f"  - {problem}")
    else:
        assert found is not None
        out(
            f"markets: {found.purchases_checked} shop purchase(s), {found.sales_checked} "
            f"sale(s), {found.legs_checked} legs == DEW Transfer events "
            f"({dew_amount(found.volume)} DEW) == balance changes; reconciliation OK"
        )
    return DemoResult(
        result.ok and not problems, problems, result.table, time.monotonic() - season.started
    )
