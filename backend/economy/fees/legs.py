"""A settlement's fee as legs: the treasury's, the hosting center's, and each referred
player's creator's, paid in the same ``settle`` batch as the match's other payouts.

The legs are kind-0 (account) payouts of the one batch, booked as ledger legs with the
parties ``treasury``, ``fee_center`` and ``fee_creator``: the ledger's per-match and
per-wallet reconciliation covers them like any other leg. A creator's earnings are capped
per season (``FeeSchedule.creator_cap_per_season``): what exceeds the cap goes to the
treasury. Plans of one season are serialized by its row lock (``season_at(lock=True)``),
so two plans cannot both spend the same allowance.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from eth_utils.address import to_checksum_address
from sqlalchemy import select
from sqlalchemy.orm import Session

from backend.economy.fees.schedule import (
    FeeRecipients,
    FeeSchedule,
    NoRecipients,
    creator_shares,
    split_fee,
)
from backend.economy.models import LedgerLeg, LegStatus, PlannedSettlement

CENTER_PARTY = "fee_center"
CREATOR_PARTY = "fee_creator"
TREASURY_PARTY = "treasury"
FEE_PARTIES = (TREASURY_PARTY, CENTER_PARTY, CREATOR_PARTY)


@dataclass(frozen=True)
class Payer:
    """Who paid into a fee: a seat (or a prize's entrant number) and its wallet."""

    key: int
    address: str
    paid_in: int


@dataclass
class FeePlan:
    """A fee's legs: ``treasury + center + sum(creators) == fee``."""

    fee: int
    treasury: int = 0
    center: int = 0
    center_id: int | None = None
    center_payee: str | None = None
    # (payer key, creator address, amount): one leg per referred payer.
    creators: list[tuple[int, str, int]] = field(default_factory=list)

    @property
    def total(self) -> int:
        return self.treasury + self.center + sum(x[2] for x in self.creators)


def creator_earned(session: Session, *, creator: str, season_id: int | None) -> int:
    """What ``creator`` earned in a season (its ``fee_creator`` legs not failed)."""
    query = (
        select(LedgerLeg.amount)
        .join(PlannedSettlement, PlannedSettlement.match_id == LedgerLeg.match_id)
        .where(
            LedgerLeg.party == CREATOR_PARTY,
            LedgerLeg.address == to_checksum_address(creator),
            LedgerLeg.status != LegStatus.FAILED,
        )
    )
    if season_id is None:
        query = query.where(PlannedSettlement.season_id.is_(None))
    else:
        query = query.where(PlannedSettlement.season_id == season_id)
    return sum(int(x) for x in session.scalars(query))


def plan_fee(
    session: Session,
    *,
    fee: int,
    payers: list[Payer],
    table_id: str | None,
    center_id: int | None = None,
    at: datetime,
    season_id: int | None,
    schedule: FeeSchedule,
    recipients: FeeRecipients | None,
) -> FeePlan:
    """Split ``fee`` into its legs: the center (``center_id``, or the one hosting
    ``table_id``) and the creator
    of each payer bound to one at ``at`` (capped per season), the treasury the rest."""
    recipients = recipients or NoRecipients()
    plan = FeePlan(fee=fee)
    if fee <= 0:
        return plan
    center = (
        recipients.center_payee(session, table_id=table_id, center_id=center_id, at=at)
        if table_id or center_id is not None
        else None
    )
    legs = split_fee(fee, schedule, center is not None, False)
    if center is not None and legs.center:
        plan.center_id, plan.center_payee = center[0], to_checksum_address(center[1])
        plan.center = legs.center
    creators: dict[int, str] = {}
    for payer in payers:
        creator = recipients.creator_of(session, player=payer.address, at=at)
        if creator is not None and creator.lower() != payer.address.lower():
            creators[payer.key] = to_checksum_address(creator)
    # Each payer's part of the fee, weighed by what it paid in; only referred ones are paid.
    shares = creator_shares(fee, {p.key: p.paid_in for p in payers}, schedule)
    allowance: dict[str, int] = {}
    for key, creator in sorted(creators.items()):
        share = shares.get(key, 0)
        if creator not in allowance:
            earned = creator_earned(session, creator=creator, season_id=season_id)
            allowance[creator] = max(0, schedule.creator_cap_per_season - earned)
        share = min(share, allowance[creator])
        allowance[creator] -= share
        if share:
            plan.creators.append((key, creator, share))
    plan.treasury = fee - plan.center - sum(x[2] for x in plan.creators)
    if plan.treasury < 0 or plan.total != fee:  # the shares always fit in the fee
        raise AssertionError(f"fee {fee} split into {plan}")
    return plan
