"""Settlement planning: a finished match (or a competition's prizes) becomes pending ledger
legs and one queued ``settle`` entry in the chain outbox.

The server queues a finished match with :func:`queue_match` (the statement it runs in the
transaction that finishes the match); ``economy.jobs.plan_finished_matches`` then plans each
queued match with :func:`plan_settlement`. Services take keyword-only ``session`` and never
commit: ``plan_settlement`` must share the transaction that marks the server's outbox row
planned, so a match is planned once. ``backend.economy.ledger`` books what the chain paid.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from eth_utils.address import is_address, to_checksum_address
from sqlalchemy import select
from sqlalchemy.orm import Session

from backend.db import dialect
from backend.db.base import aware
from backend.economy.counts import Count, match_counts, seat_counts
from backend.economy.exceptions import EconomyValueError
from backend.economy.fees.legs import Payer
from backend.economy.fees.schedule import FeeRecipients, FeeSchedule
from backend.economy.models import (
    PlannedSettlement,
    SeatRecord,
    SettlementRequest,
    SettlementStatus,
    StakeEntry,
)
from backend.economy.payouts import Payouts
from backend.economy.policy import (
    AVATAR_ADMISSIONS,
    MAX_PAYOUT_AMOUNT,
    FinishedMatch,
    PolicyError,
    RewardPlan,
    RewardPolicy,
    TableEconomy,
    plan_rewards,
)
from backend.economy.seasons import season_at
from backend.economy.stakes import checksum, escrowed
from backend.kit.rows import columns

logger = logging.getLogger(__name__)


# --- the server's queue -------------------------------------------------------------------


def queue_match(
    bind: dialect.Bind,
    *,
    match_id: str,
    chain_match_id: str,
    table_id: str,
    preset: str,
    earning: bool,
    stake: str,
    result_hash: str,
    seats: list[dict[str, Any]],
    finished_at: datetime,
) -> Any:
    """The INSERT that queues a finished match for planning (a ``settlement_requests`` row).

    The caller executes it inside the transaction that finishes the match, so a match is
    queued exactly when it is finished; a second finish of the same match inserts nothing
    (its id is the idempotency key). ``seats`` are the server's seat outcomes, as
    ``FinishedMatch.from_settlement_row`` reads them."""
    return (
        dialect.insert(bind, SettlementRequest)
        .values(
            idempotency_key=match_id,
            match_id=match_id,
            chain_match_id=chain_match_id,
            table_id=table_id,
            preset=preset,
            earning=earning,
            stake=stake,
            result_hash=result_hash,
            seats=seats,
            finished_at=finished_at,
            status="pending",
            attempts=0,
            created_at=finished_at,
        )
        .on_conflict_do_nothing(index_elements=["idempotency_key"])
    )


# --- planning -----------------------------------------------------------------------------


def _check_escrow(session: Session, match: FinishedMatch) -> None:
    """A staked match pays its pot out of the vault: every human seat must have put it in."""
    held = escrowed(session=session, match_id=match.match_id)
    for s in match.seats:
        if not s.is_bot and held.get(s.seat, 0) != match.stake:
            raise PolicyError(
                f"seat {s.seat} of match {match.match_id!r} has {held.get(s.seat, 0)} DEW wei "
                f"in escrow, the stake is {match.stake}"
            )


def _emission_allowance(
    session: Session, match: FinishedMatch, finished_at: datetime, per_day: int
) -> dict[str, int]:
    """What each human seat's wallet may still earn in emission on the match's UTC day.

    Plans are serialized by the season row lock taken before this is read (PostgreSQL), so
    two matches of one wallet cannot both see the same allowance left."""
    day = aware(finished_at).astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    allowance: dict[str, int] = {}
    for s in match.seats:
        if s.address is None or s.address in allowance:
            continue
        shares = session.scalars(
            select(SeatRecord.emission_share).where(
                SeatRecord.address == to_checksum_address(s.address),
                SeatRecord.finished_at >= day,
                SeatRecord.finished_at < day + timedelta(days=1),
            )
        )
        allowance[s.address] = max(0, per_day - sum(int(x) for x in shares))
    return allowance


def plan_settlement(
    *,
    session: Session,
    match: FinishedMatch,
    finished_at: datetime,
    policies: Mapping[TableEconomy, RewardPolicy],
    treasury: str,
    chain_id: int | None = None,
    played_at_s: int | None = None,
    emission_per_wallet_per_day: int | None = None,
    schedule: FeeSchedule | None = None,
    recipients: FeeRecipients | None = None,
) -> PlannedSettlement:
    """Plan a finished match's rewards, book them as pending and queue the on-chain settlement.

    ``emission_per_wallet_per_day`` bounds the emission one wallet earns per UTC day (the
    day its match finished), over all its seats: what exceeds it returns to the season.

    Idempotent per match: a second call returns the first plan unchanged. Emission is capped
    by what is left of the season the match finished in (none outside a season). Avatar
    rewards carry ``played_at_s``, the chain time the match was played at (default:
    ``finished_at``), and are split by the agreement in force then, however late they settle.
    The fee is split by ``schedule`` between the treasury and what ``recipients`` names (the
    table's center, each referred player's creator), as legs of the same batch.
    """
    existing = session.get(PlannedSettlement, match.match_id)
    if existing is not None:
        return existing
    if not is_address(treasury):
        raise EconomyValueError(f"treasury is not an address: {treasury!r}")
    if match.economy is TableEconomy.STAKED and not match.aborted:
        _check_escrow(session, match)
    season = season_at(session=session, when=finished_at, lock=True)
    available = int(season.emission_budget) - int(season.emitted) if season else 0
    allowance = (
        _emission_allowance(session, match, finished_at, emission_per_wallet_per_day)
        if emission_per_wallet_per_day is not None
        else None
    )
    plan: RewardPlan = plan_rewards(
        match,
        policies[match.economy],
        emission_available=available,
        emission_allowance=allowance,
    )
    if season is not None:
        season.emitted = str(int(season.emitted) + plan.emission - plan.returned)

    settlement = PlannedSettlement(
        match_id=match.match_id,
        chain_match_id=match.chain_match_id.lower(),
        result_hash=match.result_hash,
        season_id=season.id if season else None,
        economy=str(plan.economy),
        preset=match.preset,
        finished_at=finished_at,
        stake_pot=str(plan.stake_pot),
        emission=str(plan.emission),
        fee=str(plan.fee),
        returned=str(plan.returned),
        paid="0",
        status=SettlementStatus.NOTHING,
    )
    session.add(settlement)
    session.flush()
    payouts = Payouts.at(match.match_id, finished_at, played_at_s)
    by_seat = {p.seat: p for p in plan.payouts}
    counted = {s.seat: seat_counts(match, s) for s in match.seats}
    for s in match.seats:
        p = by_seat.get(s.seat)
        session.add(
            SeatRecord(
                match_id=match.match_id,
                seat=s.seat,
                season_id=settlement.season_id,
                address=to_checksum_address(s.address) if s.address else None,
                **columns(s, "avatar_id admitted_as is_bot team placement points won forfeited"),
                stake_share=str(p.stake_share if p else 0),
                emission_share=str(p.emission_share if p else 0),
                amount=str(p.amount if p else 0),
                to_avatar=bool(p and p.emission_to_avatar),
                finished_at=finished_at,
                counts=int(counted[s.seat]),
            )
        )
        if p is None:
            continue
        assert p.address is not None  # plan_rewards never pays a bot
        # The emission share of an avatar seat goes to the avatar (split on chain); the stake
        # share (the player's own money) and any VIP seat's payout go to the wallet.
        to_wallet = p.amount
        if p.emission_to_avatar:
            assert p.avatar_id is not None
            to_wallet = p.stake_share
            payouts.pay_avatar(
                session,
                seat=s.seat,
                avatar_id=p.avatar_id,
                amount=p.emission_share,
                player=p.address,
                admitted_as=s.admitted_as,
            )
        if to_wallet:
            payouts.to_account(party="wallet", address=p.address, amount=to_wallet, seat=s.seat)
    if plan.fee:
        # The creator and center legs go where the one rule says the match counts for them;
        # the treasury takes any leg it does not.
        payouts.to_fee_legs(
            session,
            fee=plan.fee,
            at=finished_at,
            payers=[
                Payer(s.seat, s.address, match.stake)
                for s in match.seats
                if s.address is not None and Count.CREATOR_EARNINGS in counted[s.seat]
            ],
            treasury=treasury,
            table_id=(
                match.table_id or None if Count.CENTER_EARNINGS in match_counts(match) else None
            ),
            center_id=None,
            season_id=settlement.season_id,
            schedule=schedule,
            recipients=recipients,
        )
    payouts.book_and_queue(
        session,
        settlement,
        chain_match_id=match.chain_match_id,
        result_hash=match.result_hash,
        chain_id=chain_id,
    )
    logger.info(
        "planned match %s: %s paid to %d payees, fee %s, returned %s",
        match.match_id,
        plan.paid,
        len(payouts.chain),
        plan.fee,
        plan.returned,
    )
    return settlement


# --- prizes -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Prize:
    """One prize of a competition: to the avatar the winner entered with (split on chain per
    its agreement), else to the wallet."""

    place: int
    address: str
    amount: int
    avatar_id: int | None = None
    admitted_as: str | None = None

    @property
    def paid_to_avatar(self) -> bool:
        return self.avatar_id is not None and self.admitted_as in AVATAR_ADMISSIONS


def _entry_payers(session: Session, key: str) -> list[Payer]:
    """Who paid a competition's entry fees: its escrow entries (entrant number, wallet) still
    held (an entrant who left before it started was refunded)."""
    held = escrowed(session=session, match_id=key)
    rows = session.scalars(
        select(StakeEntry).where(StakeEntry.match_id == key, StakeEntry.kind == "escrow")
    )
    return [Payer(int(r.seat or 0), r.address, int(r.amount)) for r in rows if r.seat in held]


def plan_prize_settlement(
    *,
    session: Session,
    key: str,
    chain_match_id: str,
    result_hash: str,
    prizes: list[Prize],
    entry_fees: int,
    added_prize: int,
    fee: int,
    treasury: str,
    season_id: int | None,
    finished_at: datetime,
    chain_id: int | None = None,
    played_at_s: int | None = None,
    center_id: int | None = None,
    schedule: FeeSchedule | None = None,
    recipients: FeeRecipients | None = None,
    contributed: int = 0,
) -> PlannedSettlement:
    """Book a competition's prizes as pending and queue them as one ``settle`` entry, through
    the same outbox, ledger and reconciliation as a match.

    ``key`` is the competition's stake-escrow key: the entry fees held under it must equal
    ``entry_fees`` (the vault never pays a pool nobody put in), and
    ``sum(prizes) + fee == entry_fees + added_prize + contributed`` (``contributed``: DEW
    contributions already in the vault for this competition, fee-free). The added prize was
    already charged to the season when the competition was created. The fee is split like a
    match's: the center the competition ran at (``center_id``) and each referred entrant's
    creator take their legs (``schedule``, ``recipients``), the treasury the rest.
    Idempotent per key."""
    existing = session.get(PlannedSettlement, key)
    if existing is not None:
        return existing
    if not is_address(treasury):
        raise EconomyValueError(f"treasury is not an address: {treasury!r}")
    if min(entry_fees, added_prize, fee, contributed, *(p.amount for p in prizes), 0) < 0:
        raise EconomyValueError("prize amounts must be >= 0")
    held = sum(escrowed(session=session, match_id=key).values())
    if held != entry_fees:
        raise PolicyError(
            f"{key!r} holds {held} DEW wei of entry fees, the pool counts {entry_fees}"
        )
    total = sum(p.amount for p in prizes) + fee
    if total != entry_fees + added_prize + contributed:
        raise PolicyError(
            f"prizes {total - fee} + fee {fee} != entry fees {entry_fees} + added {added_prize}"
            f" + contributed {contributed}"
        )
    if any(p.amount > MAX_PAYOUT_AMOUNT for p in prizes):
        raise PolicyError("a prize exceeds the contract's 2**88-1")
    settlement = PlannedSettlement(
        match_id=key,
        chain_match_id=chain_match_id.lower(),
        result_hash=result_hash,
        season_id=season_id,
        economy="prize",
        preset="",
        finished_at=finished_at,
        # What entrants and contributors put in the vault (contributions are never the
        # season's: a failed settlement gives only the added prize back to the season).
        stake_pot=str(entry_fees + contributed),
        emission=str(added_prize),
        fee=str(fee),
        returned="0",
        paid="0",
        status=SettlementStatus.NOTHING,
    )
    session.add(settlement)
    session.flush()
    # A prize is won when the competition ends: an avatar's prize is split by the agreement
    # in force then (``played_at_s``, chain time; default ``finished_at``).
    payouts = Payouts.at(key, finished_at, played_at_s)
    for p in prizes:
        if not p.amount:
            continue
        address = checksum(p.address)
        if p.paid_to_avatar:
            assert p.avatar_id is not None
            payouts.pay_avatar(
                session,
                seat=p.place,
                avatar_id=p.avatar_id,
                amount=p.amount,
                player=address,
                admitted_as=p.admitted_as,
            )
        else:
            payouts.to_account(party="wallet", address=address, amount=p.amount, seat=p.place)
    if fee:
        payouts.to_fee_legs(
            session,
            fee=fee,
            at=finished_at,
            payers=_entry_payers(session, key),
            treasury=treasury,
            table_id=None,
            center_id=center_id,
            season_id=season_id,
            schedule=schedule,
            recipients=recipients,
        )
    payouts.book_and_queue(
        session,
        settlement,
        chain_match_id=chain_match_id,
        result_hash=result_hash,
        chain_id=chain_id,
    )
    logger.info("planned prizes %s: %d payouts, fee %s", key, len(payouts.chain), fee)
    return settlement
