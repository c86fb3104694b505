"""The ledger following the chain: planned settlements booked as paid (legs rewritten from
the contract's split events) or failed (emission back to the season), ids someone else
settled first re-issued, and the proof that the ledger equals the chain.

:func:`sync_settlements` and :func:`reconcile_ledger` take keyword-only ``session`` and never
commit; ``economy.jobs`` gives each pass its own transaction.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from sqlalchemy import delete, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from backend.chain import match_ids, outbox
from backend.chain.calls import settlement_match
from backend.chain.contracts import pack_settle_batch
from backend.chain.exceptions import ChainValueError, IdempotencyConflict
from backend.chain.models import ChainRequest, ChainTx, RequestStatus
from backend.db.base import utcnow
from backend.economy.chain_reader import ChainReader, SettledMatch
from backend.economy.models import (
    BurnedMatchId,
    LedgerLeg,
    LegStatus,
    PlannedSettlement,
    Season,
    SettlementStatus,
)
from backend.economy.stakes import reverse_withdrawal
from backend.markets.ledger import MarketsReconciliation

logger = logging.getLogger(__name__)


# --- following the chain ------------------------------------------------------------------


@dataclass
class SyncReport:
    paid: int = 0
    failed: int = 0
    waiting: int = 0
    reissued: int = 0
    mismatches: list[str] = field(default_factory=list)


def sync_settlements(*, session: Session, reader: ChainReader, limit: int = 200) -> SyncReport:
    """Move submitted settlements to paid (legs rewritten from the chain's split events) or to
    failed (emission back to the season), as the chain and the transaction engine say."""
    report = SyncReport()
    # Row locks, skipping rows another sync holds: two workers booking one settlement at once
    # would each delete the predicted avatar legs and each insert the chain's split legs.
    pending = list(
        session.scalars(
            select(PlannedSettlement)
            .where(PlannedSettlement.status == SettlementStatus.SUBMITTED)
            .order_by(PlannedSettlement.finished_at)
            .limit(limit)
            .with_for_update(skip_locked=True)
        )
    )
    for settlement in pending:
        request = (
            session.get(ChainRequest, settlement.chain_request_id)
            if settlement.chain_request_id
            else None
        )
        if request is not None and request.status not in (
            RequestStatus.CONFIRMED,
            RequestStatus.FAILED,
        ):
            # Still queued or in flight: nothing on chain to read yet (saves a log search).
            report.waiting += 1
            continue
        hint = _mined_block(session, request)
        event = reader.settled_match(settlement.chain_match_id, block_hint=hint)
        if event is not None and _signed_by_us(session, event.tx_hash):
            _book_paid(session, settlement, event, report)
            report.paid += 1
            continue
        if request is not None and request.status == RequestStatus.FAILED:
            _book_failed(session, settlement, request.failure_reason or "chain request failed")
            report.failed += 1
        elif event is not None and request is not None:
            # Settled, but not by a transaction we signed: someone holding the settler role
            # used our id first (our own transaction was confirmed and skipped it).
            if request.status == RequestStatus.CONFIRMED and _paid_as_planned(
                reader, event, request
            ):
                # Our own entry, byte for byte (copied from the mempool and sent first): the
                # payees got exactly what we planned, once. A re-issue would pay them twice.
                logger.warning(
                    "match %s: id %s was settled by %s, which we did not sign, with exactly "
                    "our payouts; booked as paid",
                    settlement.match_id,
                    settlement.chain_match_id,
                    event.tx_hash,
                )
                _book_paid(session, settlement, event, report)
                report.paid += 1
                continue
            # Other payouts: pay the match under a new id; the foreign payment is the
            # reconciliation's to report.
            if _reissue(session, settlement, request, event):
                report.reissued += 1
            else:
                report.mismatches.append(
                    f"match {settlement.match_id}: id {settlement.chain_match_id} burned by "
                    f"{event.tx_hash}, re-issue refused"
                )
        else:
            report.waiting += 1
    session.flush()
    return report


def _signed_by_us(session: Session, tx_hash: str) -> bool:
    """A transaction the transaction engine signed (its raw bytes are in ``chain_txs``).

    Not "sent from the operator's address": a thief holding that key signs elsewhere, and
    only what our engine signed carries the payouts we planned."""
    return session.scalar(select(ChainTx.id).where(ChainTx.tx_hash == tx_hash.lower())) is not None


def _paid_as_planned(reader: ChainReader, event: SettledMatch, request: ChainRequest) -> bool:
    """Whether the transaction behind ``event`` gave ``settle`` exactly our entry for the id
    (same result hash and payout words: the contract paid what we would have)."""
    entry = reader.settled_entry(event.tx_hash, event.chain_match_id)
    return entry is not None and entry == pack_settle_batch([settlement_match(request.payload)])


def _payload_payouts(payload: Mapping[str, object]) -> list[outbox.Payout]:
    """The payouts of a queued settlement, exactly as they were planned (amounts, avatar or
    account, play time): a re-issue pays the same payees, never new ones."""
    out = []
    payouts = payload["payouts"]
    assert isinstance(payouts, list)
    for p in payouts:
        if "avatar_id" in p:
            out.append(
                outbox.Payout(
                    amount=int(p["amount"]),
                    avatar_id=int(p["avatar_id"]),
                    played_at=p.get("played_at"),
                )
            )
        else:
            out.append(outbox.Payout(amount=int(p["amount"]), account=str(p["account"])))
    return out


def _reissue(
    session: Session, settlement: PlannedSettlement, request: ChainRequest, event: SettledMatch
) -> bool:
    """Queue the settlement again under a fresh random id, recording the burned one.

    One database transaction (the caller's, with the settlement row locked): the burned row,
    the new chain request and the settlement's new id commit together or not at all, so a
    crash leaves either the old id (the next pass re-issues) or the new one (nothing to do).
    The old request is confirmed and final: it is never sent again, so the match can only be
    paid by the new one. Only confirmed requests are re-issued: until ours is final it might
    still be the one that pays."""
    if request.status != RequestStatus.CONFIRMED:
        return False
    burned = settlement.chain_match_id.lower()
    new_id = match_ids.reissued_id(secrets.token_bytes(31))
    try:
        with session.begin_nested():
            reissued = outbox.request_settlement(
                session=session,
                match_id=new_id,
                result_hash=str(request.payload["result_hash"]),
                payouts=_payload_payouts(request.payload),
                chain_id=request.chain_id,
                idempotency_key=f"reissue:{request.chain_id}:{burned}",
            )
            session.add(
                BurnedMatchId(
                    chain_match_id=burned,
                    match_id=settlement.match_id,
                    request_id=request.id,
                    foreign_tx_hash=event.tx_hash.lower(),
                    foreign_result_hash=event.result_hash.lower(),
                    foreign_paid=str(event.paid),
                    foreign_block=event.block_number,
                    reissued_as=new_id,
                    reissue_request_id=reissued.id,
                )
            )
            settlement.chain_match_id = new_id
            settlement.chain_request_id = reissued.id
            settlement.updated_at = utcnow()
            session.flush()
    except (IdempotencyConflict, IntegrityError, ChainValueError) as exc:
        logger.error("re-issue of match %s (id %s) failed: %s", settlement.match_id, burned, exc)
        return False
    logger.warning(
        "match %s: chain id %s was settled by a transaction we did not sign (%s, paid %s); "
        "re-issued as %s (request %s)",
        settlement.match_id,
        burned,
        event.tx_hash,
        event.paid,
        new_id,
        reissued.id,
    )
    return True


def _mined_block(session: Session, request: ChainRequest | None) -> int | None:
    """The block of the transaction that carried a confirmed request, if the engine knows it."""
    if request is None or request.status != RequestStatus.CONFIRMED or not request.tx_hash:
        return None
    return session.scalar(select(ChainTx.block_number).where(ChainTx.tx_hash == request.tx_hash))


def _payload_avatar_payouts(payload: Mapping[str, object] | None) -> dict[int, int | None]:
    """Avatar id -> play time of each avatar payout (kind 1) in a settlement's chain payload."""
    if not payload:
        return {}
    payouts = payload.get("payouts")
    assert isinstance(payouts, list)
    return {int(p["avatar_id"]): p.get("played_at") for p in payouts if "avatar_id" in p}


def _split_seats(predicted: Sequence[LedgerLeg]) -> dict[int, list[int | None]]:
    """Per avatar, the seats of its split payouts in the order they were planned (a payout's
    predicted legs are consecutive and share a seat)."""
    seats: dict[int, list[int | None]] = {}
    last: tuple[int, int | None] | None = None
    for leg in sorted(predicted, key=lambda x: x.id):
        if not leg.via_split or leg.avatar_id is None:
            last = None
            continue
        if (leg.avatar_id, leg.seat) != last:
            seats.setdefault(leg.avatar_id, []).append(leg.seat)
            last = (leg.avatar_id, leg.seat)
    return seats


def _book_paid(
    session: Session, settlement: PlannedSettlement, event: SettledMatch, report: SyncReport
) -> None:
    now = utcnow()
    predicted = list(
        session.scalars(select(LedgerLeg).where(LedgerLeg.match_id == settlement.match_id))
    )
    # What was planned: the legs sum to the payouts (an avatar's predicted split sums to it).
    planned = sum(int(x.amount) for x in predicted)
    # Account legs (wallets, treasury, and an owner's reward paid straight to the owner at
    # play time) are paid exactly as planned; the legs the contract split are replaced by what
    # it actually split, to whom, under which agreement. The splits come in payout order, as
    # the predicted legs were planned: the n-th split of an avatar takes the seat (a prize's
    # place) of its n-th predicted payout, so one avatar paid at several places keeps them.
    places = _split_seats(predicted)
    session.execute(
        delete(LedgerLeg).where(LedgerLeg.match_id == settlement.match_id, LedgerLeg.via_split)
    )
    for leg in session.scalars(select(LedgerLeg).where(LedgerLeg.match_id == settlement.match_id)):
        leg.status = LegStatus.PAID
        leg.updated_at = now
    for split in event.splits:
        queue = places.get(split.avatar_id, [])
        seat = queue.pop(0) if len(queue) > 1 else (queue[0] if queue else None)
        for party, address, amount in (
            ("owner", split.owner, split.to_owner),
            ("manager", split.manager, split.to_manager),
            ("scholar", split.scholar, split.to_scholar),
        ):
            if amount and address:
                session.add(
                    LedgerLeg(
                        match_id=settlement.match_id,
                        seat=seat,
                        avatar_id=split.avatar_id,
                        agreement_id=split.agreement_id or None,
                        party=party,
                        address=address,
                        amount=str(amount),
                        status=LegStatus.PAID,
                        updated_at=now,
                        via_split=True,
                    )
                )
    # A leg the vault withheld (its recipient is one the vault refuses) was not sent: it stays
    # in the vault. Booked as failed: counted in the match's gross, not as paid to anyone.
    session.flush()
    legs = list(
        session.scalars(
            select(LedgerLeg)
            .where(LedgerLeg.match_id == settlement.match_id)
            .order_by(LedgerLeg.id)
        )
    )
    for recipient, amount in getattr(event, "withheld", []):
        withheld_leg = next(
            (
                x
                for x in legs
                if x.status == LegStatus.PAID
                and x.address.lower() == recipient.lower()
                and int(x.amount) == amount
            ),
            None,
        )
        if withheld_leg is None:
            report.mismatches.append(
                f"match {settlement.match_id}: {amount} withheld from {recipient}, no such leg"
            )
            continue
        withheld_leg.status = LegStatus.FAILED
    if planned != event.paid:
        report.mismatches.append(
            f"match {settlement.match_id}: planned {planned}, chain paid {event.paid}"
        )
    settlement.paid = str(event.paid)
    settlement.tx_hash = event.tx_hash
    settlement.block_number = event.block_number
    settlement.status = SettlementStatus.PAID
    settlement.updated_at = now


def _book_failed(session: Session, settlement: PlannedSettlement, reason: str) -> None:
    now = utcnow()
    for leg in session.scalars(select(LedgerLeg).where(LedgerLeg.match_id == settlement.match_id)):
        leg.status = LegStatus.FAILED
        leg.updated_at = now
    if settlement.season_id is not None:
        season = session.get(Season, settlement.season_id, with_for_update=True)
        assert season is not None
        spent = int(settlement.emission) - int(settlement.returned)
        season.emitted = str(int(season.emitted) - spent)
    settlement.status = SettlementStatus.FAILED
    settlement.failure_reason = reason
    settlement.updated_at = now
    if settlement.economy == "withdrawal":
        # Its DEW never left the vault: back to the stake balance it was taken from.
        reverse_withdrawal(session=session, match_id=settlement.match_id)


# --- reconciliation -----------------------------------------------------------------------


@dataclass
class LedgerReconciliation:
    matches_checked: int = 0
    wallets_checked: int = 0
    withdrawals_paid: int = 0  # DEW wei paid out of stake balances (in the wallets' totals)
    differences: list[str] = field(default_factory=list)
    # Our ids someone else settled first, and where each match was paid instead.
    burned: list[dict[str, object]] = field(default_factory=list)
    # Shop purchases and market sales against their DEW transfers (economy.jobs adds it).
    markets: MarketsReconciliation | None = None

    @property
    def ok(self) -> bool:
        return not self.differences


def reconcile_ledger(
    *, session: Session, reader: ChainReader, end_block: int | None = None
) -> LedgerReconciliation:
    """Prove the ledger equals the chain: per match (``MatchSettled.paid``), per avatar
    (``AvatarPayoutSplit``) and per wallet (DEW the vault sent it). Any difference is listed."""
    report = LedgerReconciliation()
    end = reader.safe_head() if end_block is None else end_block
    events = {
        ("0x" + e["args"]["matchId"].hex()).lower(): e for e in reader.settled_matches(end=end)
    }
    splits: dict[tuple[str, int], int] = {}
    for match_id, e in reader.splits(end=end):
        key = (match_id.lower(), int(e["args"]["avatarId"]))
        a = e["args"]
        splits[key] = (
            splits.get(key, 0) + int(a["toOwner"]) + int(a["toManager"]) + int(a["toScholar"])
        )
    played: dict[tuple[str, int], list[int]] = {}
    for match_id, e in reader.splits(end=end):
        # Once the contract logs the play time the split was made for (``playedAt``), it
        # must be the one the payout carried: that time chose the agreement.
        if "playedAt" in e["args"]:
            key = (match_id.lower(), int(e["args"]["avatarId"]))
            played.setdefault(key, []).append(int(e["args"]["playedAt"]))
    withheld: dict[str, int] = {}
    for match_id, _recipient, amount in reader.withheld(end=end):
        withheld[match_id.lower()] = withheld.get(match_id.lower(), 0) + amount
    settlements = {s.chain_match_id.lower(): s for s in session.scalars(select(PlannedSettlement))}
    requests = {
        r.id: r
        for r in session.scalars(
            select(ChainRequest).where(
                ChainRequest.id.in_(
                    [s.chain_request_id for s in settlements.values() if s.chain_request_id]
                )
            )
        )
    }
    legs_by_match: dict[str, list[LedgerLeg]] = {}
    for leg in session.scalars(select(LedgerLeg)):
        legs_by_match.setdefault(leg.match_id, []).append(leg)
    burned_rows = list(session.scalars(select(BurnedMatchId).order_by(BurnedMatchId.detected_at)))
    burned_ids = {b.chain_match_id.lower() for b in burned_rows}

    for chain_id, s in settlements.items():
        event = events.get(chain_id)
        if s.status == SettlementStatus.PAID and (s.block_number or 0) <= end:
            report.matches_checked += 1
            legs = legs_by_match.get(s.match_id, [])
            if event is None:
                report.differences.append(f"match {s.match_id}: ledger paid, no MatchSettled")
                continue
            # In a paid match a failed leg is one the vault withheld: part of the gross.
            ledger_total = sum(
                int(x.amount) for x in legs if x.status in (LegStatus.PAID, LegStatus.FAILED)
            )
            failed = sum(int(x.amount) for x in legs if x.status == LegStatus.FAILED)
            if failed != withheld.get(chain_id, 0):
                report.differences.append(
                    f"match {s.match_id}: ledger withheld {failed}, "
                    f"chain withheld {withheld.get(chain_id, 0)}"
                )
            if ledger_total != int(event["args"]["paid"]) or int(s.paid) != ledger_total:
                report.differences.append(
                    f"match {s.match_id}: ledger {ledger_total}, chain {event['args']['paid']}"
                )
            event_tx = "0x" + bytes(event["transactionHash"]).hex().removeprefix("0x")
            if s.tx_hash and event_tx.lower() != s.tx_hash.lower():
                report.differences.append(
                    f"match {s.match_id}: ledger paid in {s.tx_hash}, MatchSettled in {event_tx}"
                )
            request = requests.get(s.chain_request_id) if s.chain_request_id else None
            planned_avatars = _payload_avatar_payouts(request.payload if request else None)
            avatars: dict[int, int] = {}
            for x in legs:
                if x.avatar_id in planned_avatars and x.status in (
                    LegStatus.PAID,
                    LegStatus.FAILED,
                ):
                    avatars[x.avatar_id] = avatars.get(x.avatar_id, 0) + int(x.amount)
            chain_avatars = {a: v for (m, a), v in splits.items() if m == chain_id}
            if avatars != chain_avatars:
                report.differences.append(
                    f"match {s.match_id}: avatar split ledger {avatars} != chain {chain_avatars}"
                )
            for avatar_id, planned_at in planned_avatars.items():
                for logged in played.get((chain_id, avatar_id), []):
                    # A play time of 0, or one ahead of the chain, is settled as "now": the
                    # logged time is then the block's, at most the planned one.
                    if logged != planned_at and planned_at and logged > planned_at:
                        report.differences.append(
                            f"match {s.match_id}: avatar {avatar_id} split for playedAt "
                            f"{logged}, planned {planned_at}"
                        )
        elif event is not None and s.status != SettlementStatus.PAID:
            report.differences.append(
                f"match {s.match_id}: settled on chain but the ledger says {s.status}"
            )
    for chain_id in events:
        if chain_id not in settlements and chain_id not in burned_ids:
            report.differences.append(f"chain match {chain_id} settled without a ledger entry")
    by_match = {s.match_id: s for s in settlements.values()}
    for b in burned_rows:
        event = events.get(b.chain_match_id.lower())
        current = by_match.get(b.match_id)
        if event is None:
            # Only ever recorded from a confirmed MatchSettled: a reorg took it away.
            report.differences.append(
                f"match {b.match_id}: burned id {b.chain_match_id} has no MatchSettled"
            )
        report.burned.append(
            {
                "match_id": b.match_id,
                "burned_id": b.chain_match_id,
                "burned_by_tx": b.foreign_tx_hash,
                "burned_paid": int(b.foreign_paid),
                "reissued_as": b.reissued_as,
                "paid_as": current.chain_match_id if current else None,
                "status": current.status if current else None,
                "paid_in_tx": current.tx_hash if current else None,
            }
        )

    ledger_wallets: dict[str, int] = {}
    for s in settlements.values():
        if s.status != SettlementStatus.PAID or (s.block_number or 0) > end:
            continue
        for leg in legs_by_match.get(s.match_id, []):
            if leg.status == LegStatus.PAID:
                ledger_wallets[leg.address] = ledger_wallets.get(leg.address, 0) + int(leg.amount)
    chain_wallets = reader.vault_outflows(end=end)
    for address in sorted(set(ledger_wallets) | set(chain_wallets)):
        report.wallets_checked += 1
        mine, theirs = ledger_wallets.get(address, 0), chain_wallets.get(address, 0)
        if mine != theirs:
            report.differences.append(f"wallet {address}: ledger paid {mine}, vault sent {theirs}")
    # Matches paid by a transaction we did not sign that carried exactly our entry (booked,
    # not re-issued: see sync_settlements): listed with the burned ids.
    copied = session.scalars(
        select(PlannedSettlement).where(
            PlannedSettlement.status == SettlementStatus.PAID,
            PlannedSettlement.tx_hash.not_in(select(ChainTx.tx_hash)),
        )
    )
    for s in copied:
        report.burned.append(
            {
                "match_id": s.match_id,
                "burned_id": s.chain_match_id,
                "burned_by_tx": s.tx_hash,
                "burned_paid": int(s.paid),
                "reissued_as": None,
                "paid_as": s.chain_match_id,
                "status": s.status,
                "paid_in_tx": s.tx_hash,
            }
        )
    for difference in report.differences:
        logger.error("ledger reconciliation: %s", difference)
    return report
