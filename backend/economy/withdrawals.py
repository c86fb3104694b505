"""A player's money in the vault: withdrawals and their states, stake history, what is held in
escrow, and the reconciliation of withdrawals against the chain.

A withdrawal (``stakes.request_withdrawal``) is a settlement of its own (``economy =
"withdrawal"``): one payout to the wallet, sent by the transaction engine through the outbox
like any payout, within the vault's limits. Its state is read from the settlement and its
chain request:

- ``requested``: in the outbox, not yet sent;
- ``sent``: in a transaction on its way to the confirmation depth;
- ``waiting``: the vault refused it for now (outflow limit, per-match maximum, pause); it is
  sent again every ``DEW_CHAIN_LIMIT_RETRY_S`` and paid once the limit allows;
- ``paid``: ``MatchSettled`` confirmed and booked;
- ``failed``: refused for good; the amount went back to the stake balance (``reversal``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from backend.chain.models import ChainRequest, RequestStatus
from backend.db.base import aware
from backend.economy.chain_reader import ChainReader
from backend.economy.exceptions import EconomyError, EconomyValueError
from backend.economy.models import (
    LedgerLeg,
    LegStatus,
    PlannedSettlement,
    SettlementStatus,
    StakeEntry,
)
from backend.economy.stakes import checksum
from backend.kit import errors as kind

WITHDRAWAL_ID = re.compile(r"^w[0-9a-f]{31}$")
STATES = ("requested", "sent", "waiting", "paid", "failed")


class WithdrawalNotFound(EconomyError, kind.NotFound):
    """No withdrawal has the id asked for."""


def _state(settlement: PlannedSettlement, request: ChainRequest | None) -> str:
    if settlement.status == SettlementStatus.PAID:
        return "paid"
    if settlement.status == SettlementStatus.FAILED:
        return "failed"
    if request is None or request.status == RequestStatus.QUEUED:
        return "requested"
    if request.status == RequestStatus.WAITING:
        return "waiting"
    # Submitted, or confirmed and not yet booked by the ledger's next pass.
    return "sent"


def _view(
    entry: StakeEntry, settlement: PlannedSettlement, request: ChainRequest | None
) -> dict[str, Any]:
    state = _state(settlement, request)
    reason = settlement.failure_reason if state == "failed" else None
    if state == "waiting" and request is not None:
        reason = request.failure_reason
    return {
        "id": settlement.match_id,
        "address": entry.address,
        "amount": int(entry.amount),
        "state": state,
        "reason": reason,
        "tx_hash": settlement.tx_hash or (request.tx_hash if request is not None else None),
        "chain_match_id": settlement.chain_match_id,
        "requested_at": aware(entry.created_at),
        "updated_at": aware(settlement.updated_at),
    }


def _rows(session: Session, *conditions: Any, limit: int = 200) -> list[dict[str, Any]]:
    rows = session.execute(
        select(StakeEntry, PlannedSettlement, ChainRequest)
        .join(PlannedSettlement, PlannedSettlement.match_id == StakeEntry.match_id)
        .outerjoin(ChainRequest, ChainRequest.id == PlannedSettlement.chain_request_id)
        .where(StakeEntry.kind == "withdrawal", *conditions)
        .order_by(StakeEntry.id.desc())
        .limit(limit)
    ).all()
    return [_view(entry, settlement, request) for entry, settlement, request in rows]


def get_withdrawal(
    *, session: Session, withdrawal_id: str, address: str | None = None
) -> dict[str, Any]:
    """One withdrawal; with ``address``, only that wallet's (anyone else's is not found)."""
    if not isinstance(withdrawal_id, str) or not WITHDRAWAL_ID.match(withdrawal_id):
        raise EconomyValueError(f"not a withdrawal id: {withdrawal_id!r}")
    conditions = [StakeEntry.match_id == withdrawal_id]
    if address is not None:
        conditions.append(StakeEntry.address == checksum(address))
    rows = _rows(session, *conditions, limit=1)
    if not rows:
        raise WithdrawalNotFound(f"no withdrawal {withdrawal_id!r}")
    return rows[0]


def list_withdrawals(
    *,
    session: Session,
    address: str | None = None,
    state: str | None = None,
    limit: int = 200,
) -> list[dict[str, Any]]:
    """Withdrawals, newest first; filtered by wallet and by state."""
    if state is not None and state not in STATES:
        raise EconomyValueError(f"state must be one of {STATES}, got {state!r}")
    if not 1 <= limit <= 10_000:
        raise EconomyValueError(f"limit must be 1..10000, got {limit!r}")
    conditions = [StakeEntry.address == checksum(address)] if address is not None else []
    rows = _rows(session, *conditions, limit=limit if state is None else 10_000)
    if state is not None:
        rows = [r for r in rows if r["state"] == state][:limit]
    return rows


def stake_history(*, session: Session, address: str, limit: int = 200) -> list[dict[str, Any]]:
    """Every change of a wallet's stake balance, newest first: deposits (with their tx hash),
    escrows and releases (with the match or tournament key), withdrawals (with their state
    and tx hash), reversals of failed withdrawals, and the holds of seats at open staked
    tables (``hold``, ``unhold``: with the table's id)."""
    address = checksum(address)
    entries = list(
        session.scalars(
            select(StakeEntry)
            .where(StakeEntry.address == address)
            .order_by(StakeEntry.id.desc())
            .limit(limit)
        )
    )
    withdrawals = {
        w["id"]: w
        for w in _rows(
            session,
            StakeEntry.address == address,
            StakeEntry.match_id.in_([e.match_id for e in entries if e.kind == "withdrawal"]),
            limit=limit,
        )
    }
    out = []
    for e in entries:
        w = withdrawals.get(e.match_id or "") if e.kind == "withdrawal" else None
        out.append(
            {
                "kind": e.kind,
                "amount": int(e.amount),
                "ref": e.match_id,
                "state": w["state"] if w else "done",
                "tx_hash": w["tx_hash"] if w else e.tx_hash,
                "at": aware(e.created_at),
            }
        )
    return out


def held_in_escrow(*, session: Session, address: str) -> list[dict[str, Any]]:
    """Stake of this wallet held for a match or a tournament that has not been settled yet
    (once settled, the pot has left the vault in its payouts), or for its seat at an open
    staked table (keyed by the table)."""
    address = checksum(address)
    held: dict[str, int] = {}
    since: dict[str, datetime] = {}
    for e in session.scalars(
        select(StakeEntry).where(
            StakeEntry.address == address,
            StakeEntry.kind.in_(("escrow", "release", "hold", "unhold")),
        )
    ):
        assert e.match_id is not None
        sign = 1 if e.kind in ("escrow", "hold") else -1
        held[e.match_id] = held.get(e.match_id, 0) + sign * int(e.amount)
        since.setdefault(e.match_id, aware(e.created_at))
    keys = [k for k, v in held.items() if v > 0]
    settled = set(
        session.scalars(
            select(PlannedSettlement.match_id).where(PlannedSettlement.match_id.in_(keys))
        )
    )
    return [
        {"key": k, "amount": held[k], "since": since[k]}
        for k in sorted(keys, key=lambda k: since[k])
        if k not in settled
    ]


# --- reconciliation -----------------------------------------------------------------------


@dataclass
class WithdrawalReconciliation:
    checked: int = 0
    paid_total: int = 0
    differences: list[str] | None = None


def reconcile_withdrawals(
    *, session: Session, reader: ChainReader, end_block: int | None = None
) -> WithdrawalReconciliation:
    """Withdrawals against the chain and the stake books:

    - every paid withdrawal has its ``MatchSettled`` for exactly its amount, and one paid
      ledger leg of that amount to the wallet that asked;
    - a failed one was credited back exactly once; no other has been;
    - every withdrawal has its settlement, and no stake entry refers to a missing one.

    The vault's transfers per wallet are then ledger (matches, prizes) plus withdrawals, which
    ``service.reconcile_ledger`` checks with the withdrawal legs included."""
    report = WithdrawalReconciliation(differences=[])
    assert report.differences is not None
    end = reader.safe_head() if end_block is None else end_block
    events = {
        ("0x" + e["args"]["matchId"].hex()).lower(): int(e["args"]["paid"])
        for e in reader.settled_matches(end=end)
    }
    entries = list(
        session.scalars(select(StakeEntry).where(StakeEntry.kind.in_(("withdrawal", "reversal"))))
    )
    reversed_ids = [e.match_id for e in entries if e.kind == "reversal"]
    for e in entries:
        if e.kind != "withdrawal":
            continue
        report.checked += 1
        if e.match_id is None:  # written before withdrawals carried their id
            report.differences.append(f"withdrawal entry {e.id}: no withdrawal id")
            continue
        settlement = session.get(PlannedSettlement, e.match_id)
        if settlement is None or settlement.economy != "withdrawal":
            report.differences.append(f"withdrawal {e.match_id}: no settlement")
            continue
        amount = int(e.amount)
        legs = list(session.scalars(select(LedgerLeg).where(LedgerLeg.match_id == e.match_id)))
        paid_on_chain = events.get(settlement.chain_match_id.lower())
        reversals = reversed_ids.count(e.match_id)
        if settlement.status == SettlementStatus.PAID and (settlement.block_number or 0) <= end:
            report.paid_total += amount
            if paid_on_chain != amount:
                report.differences.append(
                    f"withdrawal {e.match_id}: {amount} asked, chain paid {paid_on_chain}"
                )
            if [(x.address, int(x.amount), x.status) for x in legs] != [
                (e.address, amount, LegStatus.PAID)
            ]:
                report.differences.append(f"withdrawal {e.match_id}: ledger legs do not match")
            if reversals:
                report.differences.append(f"withdrawal {e.match_id}: paid and credited back")
        elif settlement.status == SettlementStatus.FAILED:
            if paid_on_chain is not None:
                report.differences.append(f"withdrawal {e.match_id}: failed but paid on chain")
            if reversals != 1:
                report.differences.append(
                    f"withdrawal {e.match_id}: failed, credited back {reversals} times"
                )
        elif reversals:
            report.differences.append(f"withdrawal {e.match_id}: credited back while pending")
    known = {e.match_id for e in entries if e.kind == "withdrawal"}
    for match_id in set(reversed_ids) - known:
        report.differences.append(f"reversal {match_id}: no such withdrawal")
    return report
