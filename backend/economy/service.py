"""Settlement planning, the per-wallet ledger, its reconciliation with the chain, and seasons.

Services take keyword-only ``session`` and never commit: the caller's transaction decides
(``plan_settlement`` must share the transaction that marks the server's outbox row done, so
a match is planned once). The indexer and the sync job own their transactions.
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from eth_utils import is_address, to_checksum_address
from sqlalchemy import delete, func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from backend.chain import match_ids, outbox
from backend.chain.calls import settlement_match
from backend.chain.contracts import pack_settle_batch
from backend.chain.exceptions import ChainValueError, IdempotencyConflict
from backend.chain.models import ChainRequest, ChainTx, RequestStatus
from backend.db.base import aware, utcnow
from backend.economy.chain_reader import ChainReader, SettledMatch
from backend.economy.exceptions import EconomyValueError, SeasonNotFound
from backend.economy.models import (
    AgreementMirror,
    AgreementStatus,
    BurnedMatchId,
    LedgerLeg,
    LegStatus,
    PlannedSettlement,
    Season,
    SeatRecord,
    SettlementStatus,
)
from backend.economy.policy import (
    AVATAR_ADMISSIONS,
    MAX_PAYOUT_AMOUNT,
    AgreementShares,
    FinishedMatch,
    Party,
    PolicyError,
    RewardPlan,
    RewardPolicy,
    TableEconomy,
    Terms,
    payee_shares,
    plan_rewards,
    split_payout,
)
from backend.economy.stakes import escrowed, reverse_withdrawal

logger = logging.getLogger(__name__)

TERMS_NAMES = {Terms.FIXED_RENT: "fixed_rent", Terms.REWARDS_DIVISION: "rewards_division"}
PARTY_NAMES = {Party.OWNER: "owner", Party.MANAGER: "manager", Party.SCHOLAR: "scholar"}
# The gate's admission of a wallet that owns the avatar it plays and has let nobody use it.
OWNER_ADMISSION = "avatar_owner"


# --- seasons ------------------------------------------------------------------------------


def create_season(
    *, session: Session, name: str, starts_at: datetime, ends_at: datetime, emission_budget: int
) -> Season:
    if not name or len(name) > 64:
        raise EconomyValueError(f"season name must be 1..64 characters, got {name!r}")
    if starts_at.tzinfo is None or ends_at.tzinfo is None:
        raise EconomyValueError("season times must be timezone-aware")
    if ends_at <= starts_at:
        raise EconomyValueError(f"season ends ({ends_at}) before it starts ({starts_at})")
    if emission_budget < 0:
        raise EconomyValueError(f"emission budget must be >= 0, got {emission_budget!r}")
    overlapping = session.scalars(
        select(Season).where(Season.starts_at < ends_at, Season.ends_at > starts_at)
    ).first()
    if overlapping is not None:
        raise EconomyValueError(f"season {name!r} overlaps season {overlapping.name!r}")
    season = Season(
        name=name,
        starts_at=starts_at,
        ends_at=ends_at,
        emission_budget=str(emission_budget),
        emitted="0",
    )
    session.add(season)
    session.flush()
    return season


def schedule_seasons(
    *,
    session: Session,
    first_starts_at: datetime,
    count: int,
    length: timedelta,
    emission_budget: int,
    name_prefix: str = "Season",
) -> list[Season]:
    """Back-to-back seasons ``<prefix> 1..count``, each ``length`` long with its own budget."""
    if not 1 <= count <= 100:
        raise EconomyValueError(f"count must be 1..100, got {count!r}")
    if length <= timedelta(0):
        raise EconomyValueError(f"season length must be positive, got {length!r}")
    return [
        create_season(
            session=session,
            name=f"{name_prefix} {i + 1}",
            starts_at=first_starts_at + i * length,
            ends_at=first_starts_at + (i + 1) * length,
            emission_budget=emission_budget,
        )
        for i in range(count)
    ]


def season_at(*, session: Session, when: datetime, lock: bool = False) -> Season | None:
    query = select(Season).where(Season.starts_at <= when, Season.ends_at > when)
    if lock:
        query = query.with_for_update()
    return session.scalars(query).first()


def get_season(*, session: Session, season_id: int) -> Season:
    season = session.get(Season, season_id)
    if season is None:
        raise SeasonNotFound(f"no season with id {season_id!r}")
    return season


def season_schedule(*, session: Session) -> list[dict[str, object]]:
    now = utcnow()
    out = []
    for s in session.scalars(select(Season).order_by(Season.starts_at)):
        starts, ends = aware(s.starts_at), aware(s.ends_at)
        state = "upcoming" if now < starts else "running" if now < ends else "finished"
        out.append(
            {
                "id": s.id,
                "name": s.name,
                "starts_at": starts,
                "ends_at": ends,
                "status": state,
                "emission_budget": int(s.emission_budget),
                "emitted": int(s.emitted),
                "remaining": int(s.emission_budget) - int(s.emitted),
            }
        )
    return out


# --- planning -----------------------------------------------------------------------------


def _agreement_at(session: Session, avatar_id: int, played_at_s: int) -> AgreementMirror | None:
    """The mirror's agreement in force at ``played_at_s``, as ``payeesAt`` finds it on chain:
    accepted by then and not yet ended (terminated, reclaimed or run out)."""
    return session.scalars(
        select(AgreementMirror).where(
            AgreementMirror.avatar_id == avatar_id,
            AgreementMirror.status.in_((AgreementStatus.ACTIVE, AgreementStatus.ENDED)),
            AgreementMirror.starts_at <= played_at_s,
            func.coalesce(AgreementMirror.ended_at, AgreementMirror.ends_at) > played_at_s,
        )
    ).first()


def _shares(agreement: AgreementMirror | None) -> AgreementShares | None:
    if agreement is None:
        return None
    terms = Terms.FIXED_RENT if agreement.terms == "fixed_rent" else Terms.REWARDS_DIVISION
    dust = {v: k for k, v in PARTY_NAMES.items()}[agreement.dust_to]
    return AgreementShares(terms, agreement.owner_bps, agreement.manager_bps, dust)


def _predicted_avatar_legs(
    session: Session,
    *,
    match_id: str,
    seat: int,
    avatar_id: int,
    amount: int,
    player: str,
    admitted_as: str | None,
    played_at_s: int,
) -> list[LedgerLeg]:
    """The split as the mirror expects it; rewritten from the chain's event once paid."""
    agreement = _agreement_at(session, avatar_id, played_at_s)
    owner_bps, manager_bps, dust_to = payee_shares(_shares(agreement))
    split = split_payout(amount, owner_bps=owner_bps, manager_bps=manager_bps, dust_to=dust_to)
    if agreement is not None:
        parties = [
            ("owner", agreement.owner, split.owner),
            ("manager", agreement.manager, split.manager),
            ("scholar", agreement.scholar, split.scholar),
        ]
    else:
        # No agreement in its term: everything goes to the owner, who is the player when the
        # seat was admitted as the avatar's owner (otherwise the last known owner).
        owner = player
        if admitted_as != "avatar_owner":
            last = session.scalars(
                select(AgreementMirror)
                .where(AgreementMirror.avatar_id == avatar_id)
                .order_by(AgreementMirror.id.desc())
            ).first()
            owner = last.owner if last is not None else player
        parties = [("owner", owner, split.owner)]
    return [
        LedgerLeg(
            match_id=match_id,
            seat=seat,
            avatar_id=avatar_id,
            agreement_id=agreement.id if agreement is not None else None,
            party=party,
            address=to_checksum_address(address),
            amount=str(value),
            status=LegStatus.PENDING,
        )
        for party, address, value in parties
        if value and address
    ]


@dataclass
class _Payouts:
    """One settlement's chain payouts, in order, and the pending ledger legs booking them
    (shared by matches and prizes). ``played_at`` dates avatar payouts (chain time)."""

    match_id: str
    played_at: int
    chain: list[outbox.Payout] = field(default_factory=list)
    legs: list[LedgerLeg] = field(default_factory=list)

    @classmethod
    def at(cls, match_id: str, finished_at: datetime, played_at_s: int | None) -> _Payouts:
        """``played_at_s`` if given, else ``finished_at``."""
        played_at = int(aware(finished_at).timestamp()) if played_at_s is None else played_at_s
        return cls(match_id, played_at)

    def to_avatar(
        self,
        session: Session,
        *,
        seat: int,
        avatar_id: int,
        amount: int,
        player: str,
        admitted_as: str | None,
    ) -> None:
        if admitted_as == OWNER_ADMISSION:
            # The gate admitted the player as the avatar's owner with no user (so no rental in
            # force) and re-checked it at the end: the owner at play time is the player. An
            # avatar payout would pay whoever owns the avatar when the batch lands (the
            # contract's no-agreement case), so a buyer could collect the seller's reward.
            # A plain wallet payout to the server's own record of the seat cannot move.
            self._pay_account(player, amount)
            self.legs.append(
                LedgerLeg(
                    match_id=self.match_id,
                    seat=seat,
                    avatar_id=avatar_id,
                    party="owner",
                    address=to_checksum_address(player),
                    amount=str(amount),
                    status=LegStatus.PENDING,
                )
            )
            return
        self.chain.append(
            outbox.Payout(amount=amount, avatar_id=avatar_id, played_at=self.played_at)
        )
        self.legs += _predicted_avatar_legs(
            session,
            match_id=self.match_id,
            seat=seat,
            avatar_id=avatar_id,
            amount=amount,
            player=player,
            admitted_as=admitted_as,
            played_at_s=self.played_at,
        )

    def _pay_account(self, address: str, amount: int) -> None:
        """One chain payout per wallet: a second leg to the same wallet (an owner's reward
        and their own stake back) adds to its payout, which saves a transfer's gas."""
        for i, payout in enumerate(self.chain):
            if (
                payout.account is not None
                and payout.account.lower() == address.lower()
                and payout.amount + amount <= MAX_PAYOUT_AMOUNT
            ):
                self.chain[i] = outbox.Payout(amount=payout.amount + amount, account=payout.account)
                return
        self.chain.append(outbox.Payout(amount=amount, account=address))

    def to_account(self, *, party: str, address: str, amount: int, seat: int | None = None) -> None:
        self._pay_account(address, amount)
        self.legs.append(
            LedgerLeg(
                match_id=self.match_id,
                seat=seat,
                party=party,
                address=to_checksum_address(address),
                amount=str(amount),
                status=LegStatus.PENDING,
            )
        )

    def submit(
        self,
        session: Session,
        settlement: PlannedSettlement,
        *,
        chain_match_id: str,
        result_hash: str,
        chain_id: int | None,
    ) -> None:
        """Book the legs as pending and queue the payouts as one ``settle`` entry, if any."""
        session.add_all(self.legs)
        if self.chain:
            request = outbox.request_settlement(
                session=session,
                match_id=chain_match_id,
                result_hash=result_hash,
                payouts=self.chain,
                chain_id=chain_id,
            )
            settlement.chain_request_id = request.id
            settlement.status = SettlementStatus.SUBMITTED
        session.flush()


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
) -> PlannedSettlement:
    """Plan a finished match's rewards, book them as pending and queue the on-chain settlement.

    ``emission_per_wallet_per_day`` bounds the emission one wallet earns per UTC day (the
    day its match finished), over all its seats: what exceeds it returns to the season.

    Idempotent per match: a second call returns the first plan unchanged. Emission is capped
    by what is left of the season the match finished in (none outside a season). Avatar
    rewards carry ``played_at_s``, the chain time the match was played at (default:
    ``finished_at``), and are split by the agreement in force then, however late they settle.
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
    payouts = _Payouts.at(match.match_id, finished_at, played_at_s)
    by_seat = {p.seat: p for p in plan.payouts}
    for s in match.seats:
        p = by_seat.get(s.seat)
        session.add(
            SeatRecord(
                match_id=match.match_id,
                seat=s.seat,
                season_id=settlement.season_id,
                address=to_checksum_address(s.address) if s.address else None,
                avatar_id=s.avatar_id,
                admitted_as=s.admitted_as,
                is_bot=s.is_bot,
                team=s.team,
                placement=s.placement,
                points=s.points,
                won=s.won,
                forfeited=s.forfeited,
                stake_share=str(p.stake_share if p else 0),
                emission_share=str(p.emission_share if p else 0),
                amount=str(p.amount if p else 0),
                to_avatar=bool(p and p.to_avatar),
                finished_at=finished_at,
            )
        )
        if p is None:
            continue
        assert p.address is not None  # plan_rewards never pays a bot
        # The emission share of an avatar seat goes to the avatar (split on chain); the stake
        # share (the player's own money) and any VIP seat's payout go to the wallet.
        to_wallet = p.amount
        if p.to_avatar:
            assert p.avatar_id is not None
            to_wallet = p.stake_share
            payouts.to_avatar(
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
        payouts.to_account(party="treasury", address=treasury, amount=plan.fee)
    payouts.submit(
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
    def to_avatar(self) -> bool:
        return self.avatar_id is not None and self.admitted_as in AVATAR_ADMISSIONS


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
) -> PlannedSettlement:
    """Book a competition's prizes as pending and queue them as one ``settle`` entry, through
    the same outbox, ledger and reconciliation as a match.

    ``key`` is the competition's stake-escrow key: the entry fees held under it must equal
    ``entry_fees`` (the vault never pays a pool nobody put in), and
    ``sum(prizes) + fee == entry_fees + added_prize``. The added prize was already charged to
    the season when the competition was created. Idempotent per key."""
    existing = session.get(PlannedSettlement, key)
    if existing is not None:
        return existing
    if not is_address(treasury):
        raise EconomyValueError(f"treasury is not an address: {treasury!r}")
    if min(entry_fees, added_prize, fee, *(p.amount for p in prizes), 0) < 0:
        raise EconomyValueError("prize amounts must be >= 0")
    held = sum(escrowed(session=session, match_id=key).values())
    if held != entry_fees:
        raise PolicyError(
            f"{key!r} holds {held} DEW wei of entry fees, the pool counts {entry_fees}"
        )
    total = sum(p.amount for p in prizes) + fee
    if total != entry_fees + added_prize:
        raise PolicyError(
            f"prizes {total - fee} + fee {fee} != entry fees {entry_fees} + added {added_prize}"
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
        stake_pot=str(entry_fees),
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
    payouts = _Payouts.at(key, finished_at, played_at_s)
    for p in prizes:
        if not p.amount:
            continue
        address = checksum(p.address)
        if p.to_avatar:
            assert p.avatar_id is not None
            payouts.to_avatar(
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
        payouts.to_account(party="treasury", address=treasury, amount=fee)
    payouts.submit(
        session,
        settlement,
        chain_match_id=chain_match_id,
        result_hash=result_hash,
        chain_id=chain_id,
    )
    logger.info("planned prizes %s: %d payouts, fee %s", key, len(payouts.chain), fee)
    return settlement


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


def _split_avatar_ids(session: Session, settlement: PlannedSettlement) -> set[int]:
    """The avatars this settlement paid through the contract's split (not straight to a
    wallet): their legs are what ``AvatarPayoutSplit`` says."""
    if settlement.chain_request_id is None:
        return set()
    request = session.get(ChainRequest, settlement.chain_request_id)
    return set(_payload_avatar_payouts(request.payload if request else None))


def _book_paid(session: Session, settlement: PlannedSettlement, event, report: SyncReport) -> None:
    now = utcnow()
    predicted = list(
        session.scalars(select(LedgerLeg).where(LedgerLeg.match_id == settlement.match_id))
    )
    # What was planned: the legs sum to the payouts (an avatar's predicted split sums to it).
    planned = sum(int(x.amount) for x in predicted)
    # The seat (a prize's place) of each avatar, from its predicted legs: a prize settlement
    # has no seat records.
    seats = {x.avatar_id: x.seat for x in predicted if x.avatar_id is not None}
    # Account legs (wallets, treasury, and an owner's reward paid straight to the owner at
    # play time) are paid exactly as planned; legs of avatar payouts are replaced by what the
    # contract actually split, to whom, under which agreement.
    split_avatars = _split_avatar_ids(session, settlement) | {x.avatar_id for x in event.splits}
    session.execute(
        delete(LedgerLeg).where(
            LedgerLeg.match_id == settlement.match_id, LedgerLeg.avatar_id.in_(split_avatars)
        )
    )
    for leg in session.scalars(select(LedgerLeg).where(LedgerLeg.match_id == settlement.match_id)):
        leg.status = LegStatus.PAID
        leg.updated_at = now
    for split in event.splits:
        for party, address, amount in (
            ("owner", split.owner, split.to_owner),
            ("manager", split.manager, split.to_manager),
            ("scholar", split.scholar, split.to_scholar),
        ):
            if amount and address:
                session.add(
                    LedgerLeg(
                        match_id=settlement.match_id,
                        seat=seats.get(split.avatar_id),
                        avatar_id=split.avatar_id,
                        agreement_id=split.agreement_id or None,
                        party=party,
                        address=address,
                        amount=str(amount),
                        status=LegStatus.PAID,
                        updated_at=now,
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
        leg = next(
            (
                x
                for x in legs
                if x.status == LegStatus.PAID
                and x.address.lower() == recipient.lower()
                and int(x.amount) == amount
            ),
            None,
        )
        if leg is None:
            report.mismatches.append(
                f"match {settlement.match_id}: {amount} withheld from {recipient}, no such leg"
            )
            continue
        leg.status = LegStatus.FAILED
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


# --- reports ------------------------------------------------------------------------------


def checksum(address: str) -> str:
    if not is_address(address):
        raise EconomyValueError(f"not an address: {address!r}")
    return to_checksum_address(address)


def wallet_summary(*, session: Session, address: str) -> dict[str, object]:
    """Earned (pending + paid), pending, paid and failed DEW of one wallet, by role."""
    address = checksum(address)
    totals = {"pending": 0, "paid": 0, "failed": 0}
    by_party: dict[str, dict[str, int]] = {}
    for leg in session.scalars(select(LedgerLeg).where(LedgerLeg.address == address)):
        totals[leg.status] += int(leg.amount)
        party = by_party.setdefault(leg.party, {"pending": 0, "paid": 0, "failed": 0})
        party[leg.status] += int(leg.amount)
    return {
        "address": address,
        "earned": totals["pending"] + totals["paid"],
        **totals,
        "by_role": by_party,
    }


def wallet_statement(
    *, session: Session, address: str, limit: int = 200
) -> list[dict[str, object]]:
    """A wallet's ledger lines, newest first: match, role, avatar, amount, status, tx hash."""
    address = checksum(address)
    rows = session.execute(
        select(LedgerLeg, PlannedSettlement.tx_hash, PlannedSettlement.finished_at)
        .join(PlannedSettlement, PlannedSettlement.match_id == LedgerLeg.match_id)
        .where(LedgerLeg.address == address)
        .order_by(PlannedSettlement.finished_at.desc(), LedgerLeg.id.desc())
        .limit(limit)
    ).all()
    return [
        {
            "match_id": leg.match_id,
            "role": leg.party,
            "avatar_id": leg.avatar_id,
            "agreement_id": leg.agreement_id,
            "amount": int(leg.amount),
            "status": leg.status,
            "tx_hash": tx_hash,
            "finished_at": aware(finished_at),
        }
        for leg, tx_hash, finished_at in rows
    ]


def agreement_status(agreement: AgreementMirror | None, now_s: int | None = None) -> str:
    """The mirror's status, with a term that ran out shown as ``expired`` before ``close``."""
    if agreement is None:
        return "none"
    now_s = int(time.time()) if now_s is None else now_s
    if agreement.status == AgreementStatus.ACTIVE and (agreement.ends_at or 0) <= now_s:
        return "expired"
    if agreement.status == AgreementStatus.ENDED:
        return agreement.ended_by or "ended"
    return agreement.status


def avatar_report(
    *, session: Session, avatar_id: int, now_s: int | None = None
) -> dict[str, object]:
    """Matches, wins, gross earnings and each party's share of one avatar.

    ``now_s`` is chain time (unix seconds) for judging expiry; default: the wall clock."""
    records = list(session.scalars(select(SeatRecord).where(SeatRecord.avatar_id == avatar_id)))
    legs = list(session.scalars(select(LedgerLeg).where(LedgerLeg.avatar_id == avatar_id)))
    shares = {"owner": 0, "manager": 0, "scholar": 0}
    for leg in legs:
        if leg.status != LegStatus.FAILED and leg.party in shares:
            shares[leg.party] += int(leg.amount)
    # The active agreement if any (a newer open offer must not hide it), else the latest.
    latest = session.scalars(
        select(AgreementMirror)
        .where(AgreementMirror.avatar_id == avatar_id)
        .order_by(
            (AgreementMirror.status == AgreementStatus.ACTIVE).desc(), AgreementMirror.id.desc()
        )
    ).first()
    gross = sum(
        int(r.emission_share)
        for r in records
        if r.to_avatar and _settlement_status(session, r.match_id) != SettlementStatus.FAILED
    )
    return {
        "avatar_id": avatar_id,
        "matches": len(records),
        "wins": sum(1 for r in records if r.won),
        "gross": gross,
        "owner_share": shares["owner"],
        "manager_share": shares["manager"],
        "scholar_share": shares["scholar"],
        "paid": sum(int(x.amount) for x in legs if x.status == LegStatus.PAID),
        "pending": sum(int(x.amount) for x in legs if x.status == LegStatus.PENDING),
        "agreement_id": latest.id if latest else None,
        "agreement_terms": latest.terms if latest else None,
        "agreement_status": agreement_status(latest, now_s),
        "scholar": latest.scholar if latest else None,
    }


def _settlement_status(session: Session, match_id: str) -> str:
    settlement = session.get(PlannedSettlement, match_id)
    return settlement.status if settlement else "unknown"


def owner_view(
    *, session: Session, owner: str, now_s: int | None = None
) -> list[dict[str, object]]:
    """One row per avatar the owner has offered or been paid for."""
    owner = checksum(owner)
    avatars = set(
        session.scalars(select(AgreementMirror.avatar_id).where(AgreementMirror.owner == owner))
    ) | set(
        session.scalars(
            select(LedgerLeg.avatar_id).where(
                LedgerLeg.address == owner,
                LedgerLeg.party == "owner",
                LedgerLeg.avatar_id.is_not(None),
            )
        )
    )
    return [avatar_report(session=session, avatar_id=a, now_s=now_s) for a in sorted(avatars)]


def scholar_earnings(
    *, session: Session, scholar: str, now_s: int | None = None
) -> dict[str, object]:
    """What a scholar earned, per avatar they played, plus the totals."""
    scholar = checksum(scholar)
    per_avatar: dict[int, dict[str, int]] = {}
    for leg in session.scalars(
        select(LedgerLeg).where(LedgerLeg.address == scholar, LedgerLeg.party == "scholar")
    ):
        row = per_avatar.setdefault(leg.avatar_id or 0, {"pending": 0, "paid": 0, "failed": 0})
        row[leg.status] += int(leg.amount)
    agreements = list(
        session.scalars(
            select(AgreementMirror)
            .where(AgreementMirror.scholar == scholar)
            .order_by(AgreementMirror.id)
        )
    )
    return {
        "address": scholar,
        "paid": sum(r["paid"] for r in per_avatar.values()),
        "pending": sum(r["pending"] for r in per_avatar.values()),
        "avatars": [{"avatar_id": a, **v} for a, v in sorted(per_avatar.items())],
        "agreements": [
            {
                "agreement_id": a.id,
                "avatar_id": a.avatar_id,
                "owner": a.owner,
                "terms": a.terms,
                "status": agreement_status(a, now_s),
                "ends_at": a.ends_at,
                "rent": int(a.rent),
                "rent_refunded": int(a.rent_refunded),
            }
            for a in agreements
        ],
    }


def season_leaderboard(
    *, session: Session, season_id: int, limit: int = 50
) -> list[dict[str, object]]:
    """Human players of a season by wins, then points (game points scored), then matches."""
    get_season(session=session, season_id=season_id)
    rows: dict[str, dict[str, int]] = {}
    for r in session.scalars(
        select(SeatRecord).where(SeatRecord.season_id == season_id, SeatRecord.is_bot.is_(False))
    ):
        assert r.address is not None
        row = rows.setdefault(r.address, {"matches": 0, "wins": 0, "points": 0, "earned": 0})
        row["matches"] += 1
        row["wins"] += int(r.won)
        row["points"] += r.points
        row["earned"] += int(r.amount)
    ranked = sorted(rows.items(), key=lambda kv: (-kv[1]["wins"], -kv[1]["points"], kv[0]))
    return [
        {"rank": i + 1, "address": address, **values}
        for i, (address, values) in enumerate(ranked[:limit])
    ]
