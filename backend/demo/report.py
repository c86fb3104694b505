"""The demo's report: the books against the chain, the table per wallet and the Campeonato's.

``close_the_books`` reconciles the ledger with the chain's events (``economy.jobs``), reads
every wallet's statement and DEW balance, prints the tables and says whether everything
agrees to the unit; the exit code of ``dew demo`` is its verdict.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from backend.demo import creators
from backend.demo.players import Wallet, ok
from backend.demo.results import DemoResult, dew_amount

if TYPE_CHECKING:
    from sqlalchemy.orm import Session, sessionmaker

    from backend.config import Settings
    from backend.demo.season import Season
    from backend.economy.chain_reader import ChainReader
    from backend.economy.ledger import LedgerReconciliation


def reconcile(
    settings: Settings, sessions: sessionmaker[Session], reader: ChainReader
) -> LedgerReconciliation:
    """The ledger's and the TX engine's reconciliations at the confirmed head (one report)."""
    from backend.economy import jobs

    return jobs.reconcile_books(settings=settings, session_factory=sessions, reader=reader)


def close_the_books(season: Season) -> DemoResult:
    """Reconcile, read the statements and balances, print the tables and the verdict."""
    http, out = season.http, season.out
    season.step("reconciling the ledger with the chain's events")
    season.reconciliation = reconciliation = reconcile(
        season.settings, season.sessions, season.reader
    )
    token = season.contracts.token.functions
    season.balances_after = {n: token.balanceOf(a).call() for n, a in season.addresses.items()}
    season.statements = statements = {
        name: {
            "summary": ok(http.get(f"/economy/wallets/{address}")),
            "lines": ok(http.get(f"/economy/wallets/{address}/statement")),
        }
        for name, address in season.addresses.items()
        if name != "vault"
    }
    before, after = season.balances_before, season.balances_after
    problems = list(reconciliation.differences)
    # A contribution went from its wallet into the vault, and out again as prizes (paid).
    given = season.contributed
    for name, statement in statements.items():
        delta, paid = after[name] - before[name], int(statement["summary"]["paid"])
        if delta + given.get(name, 0) != paid:
            problems.append(
                f"{name}: balance moved {delta} (contributed {given.get(name, 0)}) but the "
                f"ledger paid {paid}"
            )
    vault_out = before["vault"] - after["vault"]
    vault_in = sum(given.values())
    ledger_paid = sum(int(s["summary"]["paid"]) for s in statements.values())
    withdrawn = sum(
        int(s["summary"]["by_role"].get("withdrawal", {}).get("paid", 0))
        for s in statements.values()
    )
    count = sum(1 for s in statements.values() for x in s["lines"] if x["role"] == "withdrawal")
    # Withdrawals are booked as their own ledger legs and proven apart (reconcile_withdrawals).
    if withdrawn != reconciliation.withdrawals_paid:
        problems.append(
            f"withdrawal legs paid {withdrawn}, withdrawals reconciled "
            f"{reconciliation.withdrawals_paid}"
        )
    if vault_out + vault_in != (ledger_paid - withdrawn) + reconciliation.withdrawals_paid:
        problems.append(
            f"the vault sent {vault_out} net of {vault_in} contributed but the ledger paid "
            f"{ledger_paid - withdrawn} and withdrawals {reconciliation.withdrawals_paid}"
        )
    played = {
        name: sum(1 for m in season.matches for s in m["match"]["seats"] if s["address"] == a)
        for name, a in season.addresses.items()
    }
    table = render_table(season.wallets, statements, before, after, played, season.treasury)
    emitted = sum(
        int(m["settlement"]["emission"]) - int(m["settlement"]["returned"]) for m in season.matches
    )
    seen = season.campeonato_seen
    emitted += int(seen["settlement"]["emission"]) if seen else 0  # its added prize
    if season.campeonato_table:
        table = f"{table}\n\n{season.campeonato_table}"
    if season.withdrawal_line:
        table = f"{table}\n\n{season.withdrawal_line}"
    fees = fee_lines(season)
    if fees:
        table = f"{table}\n\n" + "\n".join(fees)
    out("")
    out(table)
    out("")
    out(
        f"vault paid out {dew_amount(vault_out + vault_in)} DEW (of it "
        f"{dew_amount(vault_in)} DEW contributed to prizes); ledger paid "
        f"{dew_amount(ledger_paid - withdrawn)} DEW + withdrawals {dew_amount(withdrawn)} DEW; "
        f"season #{season.season_id} emitted {dew_amount(emitted)} DEW"
    )
    if problems:
        out("RECONCILIATION FAILED:")
        for problem in problems:
            out(f"  - {problem}")
    else:
        out(
            f"reconciliation OK: {len(season.matches)} matches, {count} withdrawal(s), "
            f"{len(given)} contribution(s); ledger == MatchSettled and AvatarPayoutSplit events; "
            "vault transfers == ledger + withdrawals == balance changes + contributions, "
            "to the unit"
        )
    return DemoResult(not problems, problems, table, time.monotonic() - season.started)


def _columns(rows: list[tuple[str, ...]]) -> list[int]:
    return [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]


def render_table(
    wallets: dict[str, Wallet],
    statements: dict[str, dict[str, Any]],
    before: dict[str, int],
    after: dict[str, int],
    played: dict[str, int],
    treasury: str,
) -> str:
    rows: list[tuple[str, ...]] = [
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
    widths = _columns(rows)
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
    pool = fees + detail["added_prize"] + int(detail.get("contributed", 0)) - fee
    rows: list[tuple[str, ...]] = [
        ("place", "entrant", "seed", "wins", "prize", "paid to", "qualified")
    ]
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
    widths = _columns(rows)
    lines = [
        f"{detail['name']} (single elimination, preset {detail['preset']}, "
        f"{len(standings)} entrants): entry {dew_amount(detail['entry_fee'])} DEW x "
        f"{len(numbers)} + {dew_amount(detail['added_prize'])} DEW from the season + "
        f"{dew_amount(int(detail.get('contributed', 0)))} DEW contributed - "
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


def fee_lines(season: Season) -> list[str]:
    """The center's and the creator's earnings, from the ledger."""
    from sqlalchemy import select

    from backend.economy.models import LedgerLeg

    if season.cora is None:
        return []
    with season.sessions() as session:
        legs: list[Any] = list(
            session.scalars(
                select(LedgerLeg).where(LedgerLeg.party.in_(("fee_center", "fee_creator")))
            )
        )
    center = sum(int(x.amount) for x in legs if x.party == "fee_center" and x.status == "paid")
    creator = sum(int(x.amount) for x in legs if x.party == "fee_creator" and x.status == "paid")
    return [
        f"Game Center #{season.center_id} (owner oscar): "
        f"{dew_amount(center)} DEW of the fees of the Campeonato it hosted",
        f"Creator {creators.CREATOR_CODE} (cora, brought rita and sam): "
        f"{dew_amount(creator)} DEW of their fees",
    ]
