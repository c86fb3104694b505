"""After the season's matches: the Campeonato (with cora's DEW Contribution to its prizes),
vera's withdrawal, a moderator's sanction and the scholarship boundaries. Each step takes the
running ``Season`` and leaves what it saw on it (for the report and for the e2e checks)."""

from __future__ import annotations

import time
import uuid
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from backend.demo import creators
from backend.demo.players import DemoFailed, Wallet, api_txs, in_threads, ok, play_seat
from backend.demo.report import reconcile, render_campeonato
from backend.demo.results import DemoResult, dew_amount
from backend.demo.season import (
    ADDED_PRIZE,
    CAMPEONATO_FEE_BPS,
    CAMPEONATO_PRIZE_BPS,
    CONTRIBUTION,
    ENTRY_FEE,
    WITHDRAWAL,
    ZERO_ADDRESS,
)
from backend.devstack.stack import wait_for

if TYPE_CHECKING:
    from backend.demo.season import Season


# -- the Campeonato after the season ------------------------------------------------------


def campeonato(season: Season) -> None:
    from backend.competitions import service as competitions
    from backend.competitions.models import escrow_key
    from backend.db.base import utcnow
    from backend.economy.stakes import stake_balance

    http, out = season.http, season.out
    season.step(
        "Campeonato: 4 wallets (entry fee from their vault deposit) and 4 bots, "
        "single elimination, seeded from the season's leaderboard"
    )

    def credited() -> bool:
        with season.sessions() as session:
            return all(
                stake_balance(session=session, address=w.address) >= ENTRY_FEE
                for w in season.entrants
            )

    wait_for("the entry deposits credited", credited, timeout_s=60, every_s=0.3)
    with season.sessions() as session:
        t = competitions.create_tournament(
            session=session,
            spec=competitions.TournamentSpec(
                name=f"Campeonato {time.strftime('%Y-%m-%d %H:%M:%S')}",
                tier="campeonato",
                format="elimination",
                preset="draw",
                season_id=season.season_id,
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
            settlement_limit=competitions.settlement_limit(season.contracts),
        )
        tid = t.id
    creators.host_at_center(season, tid)
    contribution(season, tid)
    numbers: dict[int, Wallet] = {}
    for wallet in season.entrants:
        body = {"avatar_id": wallet.avatar_id} if wallet.avatar_id else {}
        entry = ok(http.post(f"/competitions/{tid}/register", json=body, headers=wallet.auth))
        numbers[entry["number"]] = wallet
    with season.sessions() as session:  # the organizer fills the draw: it starts when full
        competitions.add_bots(session=session, tournament_id=tid, count=4, level="easy")

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
            play_seat(wallet, live[0]["table_id"])
            played.add(live[0]["match_id"])
        raise DemoFailed(f"{wallet.name}'s Campeonato games did not end in time")

    in_threads(play_games, list(numbers.items()))

    key = escrow_key(tid)

    def settled() -> Any:
        season.supervise_worker()
        if ok(http.get(f"/competitions/{tid}"))["status"] != "finished":
            return None
        return season.settled([key])

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
    season.campeonato_seen = {
        "id": tid,
        "detail": detail,
        "standings": standings,
        "settlement": row,
        "numbers": {n: w.name for n, w in numbers.items()},
    }
    season.campeonato_table = render_campeonato(
        detail, standings, numbers, season.agreements, row["tx_hash"]
    )


def contribution(season: Season, tournament_id: int) -> None:
    """cora adds DEW to the Campeonato's prize pool through ``Contributions.sol``, built and
    checked by the service ``dew contribute`` uses (the tournament open, the pool within what
    the vault pays in one settlement) and signed by her own key, as ``--key-env`` signs."""
    from backend.chain.unsigned import sign_and_send
    from backend.competitions.contributions import ContributionTxBuilder

    cora = season.cora
    if cora is None:
        return
    season.step(
        f"cora contributes {dew_amount(CONTRIBUTION)} DEW to the Campeonato's prize pool "
        "(dew contribute: Contributions.contribute)"
    )
    builder = ContributionTxBuilder(season.contracts)
    with season.sessions() as session:
        txs = builder.contribute(
            session=session,
            tournament_id=tournament_id,
            contributor=cora.address,
            amount=CONTRIBUTION,
        )
    cora.tx_hashes += sign_and_send(season.w3, cora.key, txs)

    def pooled() -> Any:
        pool = ok(season.http.get(f"/competitions/{tournament_id}/contributions"))
        return int(pool["total"]) == CONTRIBUTION and pool

    pool = wait_for("the contribution in the pool (indexer)", pooled, timeout_s=60, every_s=0.3)
    season.contributed[cora.name] = CONTRIBUTION
    [row] = pool["contributions"]
    who = "cora" if row["contributor"] == cora.address else row["contributor"]
    season.out(
        f"  contribution: {who} added {dew_amount(int(row['amount']))} DEW to Campeonato "
        f"#{tournament_id}'s prizes (tx {cora.tx_hashes[-1][:10]}…); the pool lists it, "
        f"{dew_amount(int(pool['total']))} DEW contributed in all"
    )


# -- a moderator's sanction -----------------------------------------------------------------


def moderation(season: Season) -> None:
    """The operator mutes sam's table talk for a day through the service ``dew moderation
    sanction`` calls; sam reads the sanction and its reason in his standing (GET /care/standing),
    and may appeal it once. A mute closes talk alone: sam's money and seats are untouched."""
    from backend.care import moderation as sanctions

    sam = season.sam
    season.step(
        "moderation: the operator mutes sam's table talk for 24 h (dew moderation sanction)"
    )
    with season.sessions() as session:
        row = sanctions.impose(
            session=session,
            address=sam.address,
            terms=sanctions.Terms("mute", "Repeated messages at the table", timedelta(hours=24)),
            actor="operator:demo",
        )
    standing = ok(season.http.get("/care/standing", headers=sam.auth))
    seen = [s for s in standing["sanctions"] if s["id"] == row.id]
    if not seen or seen[0]["reason"] != row.reason:
        raise DemoFailed(f"sam's standing does not show sanction #{row.id}: {standing}")
    season.out(
        f"  moderation: sanction #{row.id} {row.kind} on sam until "
        f"{row.expires_at:%Y-%m-%d %H:%M} UTC, reason {row.reason!r}; sam's standing shows it"
    )


# -- a withdrawal of part of a stake balance ------------------------------------------------


def withdrawal(season: Season) -> None:
    vera, http = season.vera, season.http
    season.step(
        f"vera withdraws {dew_amount(WITHDRAWAL)} DEW of her stake balance "
        "(POST /wallet/withdrawals): paid by the worker through the outbox"
    )

    def money() -> dict[str, Any]:
        return dict(ok(http.get("/wallet", headers=vera.auth)))

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
        season.supervise_worker()
        row = ok(http.get(f"/wallet/withdrawals/{made['id']}", headers=vera.auth))
        if row["state"] == "failed":
            raise DemoFailed(f"vera's withdrawal failed: {row['reason']}")
        if row["state"] != states[-1]:
            states.append(row["state"])
        return row if row["state"] == "paid" else None

    row = wait_for("vera's withdrawal paid", paid, timeout_s=120, every_s=0.3)
    after = int(money()["stake_balance"])
    season.withdrawal_seen = {**row, "wallet": "vera", "amount": WITHDRAWAL}
    season.withdrawal_line = (
        f"withdrawal: vera took {dew_amount(WITHDRAWAL)} DEW of her {dew_amount(before)} DEW "
        f"stake balance out of the vault ({' -> '.join(states)}; settle tx "
        f"{row['tx_hash'][:10]}…); {dew_amount(after)} DEW stays deposited"
    )
    season.out(f"  {season.withdrawal_line}")


# -- scholarship boundaries (optional) -------------------------------------------------------


def boundaries(season: Season, result: DemoResult) -> DemoResult:
    from eth_typing import HexStr
    from web3.types import RPCEndpoint

    http, chain, out, w3 = season.http, season.chain, season.out, season.w3
    token = season.contracts.token.functions
    sam, olivia, rita, oscar = season.sam, season.olivia, season.rita, season.oscar
    problems = list(result.problems)
    season.boundary = {}

    season.step("boundary: sam ends his Fixed Rent early; unused rent comes back pro rata")
    fixed = season.agreements["sam"]
    before = {w.name: token.balanceOf(w.address).call() for w in (sam, olivia)}
    terminate = http.post(
        f"/economy/agreements/{fixed['id']}/terminate", json={"scholar": sam.address}
    )
    [tx_hash] = chain.send(sam.key, api_txs(terminate))
    receipt = w3.eth.get_transaction_receipt(HexStr(tx_hash))
    ended_at = w3.eth.get_block(receipt["blockNumber"])["timestamp"]
    refund = token.balanceOf(sam.address).call() - before["sam"]
    to_owner = token.balanceOf(olivia.address).call() - before["olivia"]
    season.boundary["termination"] = {
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
    if season.contracts.avatar.functions.userOf(fixed["avatar_id"]).call() != ZERO_ADDRESS:
        problems.append("the terminated rental still has an ERC-4907 user")

    season.step("boundary: rita's Rewards Division term runs out (chain time + 1 hour)")
    division = season.agreements["rita"]
    w3.provider.make_request(RPCEndpoint("evm_increaseTime"), [division["duration_s"] + 1])
    w3.provider.make_request(RPCEndpoint("evm_mine"), [])
    oscar.avatar_id = rita.avatar_id
    before = {w.name: token.balanceOf(w.address).call() for w in (rita, oscar)}
    wins: list[dict[str, Any]] = []
    refused = None
    for attempt in range(1, 9):  # a bot may win a hand: play until the owner wins one
        body = {"preset": "draw", "seats": 2, "earning": True, "kind": "human"}
        body |= {"bot_level": "easy", "avatar_id": oscar.avatar_id}
        table = ok(http.post("/tables", json=body, headers=oscar.auth))
        # Raw HTTP, not DewClient: the refusal itself (status and body) is what is checked.
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
        over = play_seat(oscar, table["id"])
        seats = ok(http.get(f"/matches/{over['match_id']}"))
        played = {
            "title": f"owner's match {attempt}",
            "table": table,
            "over": over,
            "match": seats,
        }
        season.matches.append(played)
        won = over["result"]["seats"][0]["placement"] == 1
        outcome = "won" if won else "lost"
        out(f"  oscar plays avatar #{oscar.avatar_id} himself against a bot: {outcome}")
        played["after_expiry"] = True
        if won:
            wins.append(played)
            break
    ids = [m["over"]["match_id"] for m in season.matches[-attempt:]]
    rows = wait_for(
        "the owner's matches paid", lambda: season.settled(ids), timeout_s=90, every_s=0.5
    )
    for played, row in zip(season.matches[-attempt:], rows, strict=True):
        played["settlement"] = row
    gained = {w.name: token.balanceOf(w.address).call() - before[w.name] for w in (rita, oscar)}
    season.boundary["expiry"] = {"wins": wins, "gained": gained, "refused": refused}
    out(
        f"  paid after the term: oscar +{dew_amount(gained['oscar'])} DEW (owner, 100%), "
        f"rita +{dew_amount(gained['rita'])} DEW"
    )
    if gained["rita"] != 0:
        problems.append(f"rita was paid {gained['rita']} after her rental expired")
    books = reconcile(season.settings, season.sessions, season.reader)
    problems += books.differences
    season.reconciliation = books
    out(
        "boundaries OK: refund pro rata, expired scholar refused, owner paid; ledger still "
        "reconciles"
        if not problems
        else "BOUNDARIES FAILED: " + "; ".join(problems)
    )
    return DemoResult(not problems, problems, result.table, time.monotonic() - season.started)


# -- the season ends: its leaderboard rewards ----------------------------------------------


def season_rewards(season: Season, result: DemoResult) -> DemoResult:
    """The operator ends the season; the worker's beat task plans its leaderboard rewards as
    one settlement and sends it; the ledger books it and still reconciles with the chain."""
    from sqlalchemy import select

    from backend.economy import operator
    from backend.economy.models import LedgerLeg
    from backend.economy.season_rewards import settlement_key

    out = season.out
    season.step("the operator ends the season; the worker pays its leaderboard rewards")
    with season.sessions.begin() as session:
        operator.end_season(session=session, season_id=season.season_id)
    key = settlement_key(season.season_id)

    def settled() -> Any:
        season.supervise_worker()
        return season.settled([key])

    [row] = wait_for("the season's rewards paid", settled, timeout_s=120, every_s=0.5)
    board = ok(season.http.get(f"/economy/seasons/{season.season_id}/leaderboard"))
    names = {w.address: w.name for w in season.wallets.values()}
    with season.sessions() as session:
        legs: list[dict[str, Any]] = [
            {
                "place": leg.seat,
                "party": leg.party,
                "address": leg.address,
                "amount": int(leg.amount),
            }
            for leg in session.scalars(
                select(LedgerLeg).where(LedgerLeg.match_id == key).order_by(LedgerLeg.id)
            )
        ]
    for leg in legs:
        out(
            f"  place {leg['place']}: {names.get(leg['address'], leg['address'])} "
            f"+{dew_amount(leg['amount'])} DEW ({leg['party']})"
        )
    out(f"  one settlement {key}: {dew_amount(int(row['paid']))} DEW, tx {row['tx_hash']}")
    season.season_rewards_seen = {"settlement": row, "legs": legs, "leaderboard": board}
    problems = list(result.problems)
    books = reconcile(season.settings, season.sessions, season.reader)
    problems += books.differences
    season.reconciliation = books
    out(
        "season rewards paid; reconciliation OK"
        if not books.differences
        else "SEASON REWARDS FAILED: " + "; ".join(books.differences)
    )
    return DemoResult(
        result.ok and not books.differences,
        problems,
        result.table,
        time.monotonic() - season.started,
    )
