"""One settlement's chain payouts and the pending ledger legs booking them, shared by
matches and prizes (``backend.economy.settlement``): avatar payouts with their predicted
split, wallet payouts merged per wallet, and the fee as treasury, center and creator legs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from eth_utils.address import to_checksum_address
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from backend.chain import outbox
from backend.db.base import aware
from backend.economy.fees.legs import CENTER_PARTY, CREATOR_PARTY, TREASURY_PARTY, Payer, plan_fee
from backend.economy.fees.schedule import FeeRecipients, FeeSchedule
from backend.economy.models import (
    AgreementMirror,
    AgreementStatus,
    LedgerLeg,
    LegStatus,
    PlannedSettlement,
    SettlementStatus,
)
from backend.economy.policy import (
    MAX_PAYOUT_AMOUNT,
    PARTY_NAMES,
    AgreementShares,
    Terms,
    payee_shares,
    split_payout,
)

# The gate's admission of a wallet that owns the avatar it plays and has let nobody use it.
OWNER_ADMISSION = "avatar_owner"


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
            via_split=True,
        )
        for party, address, value in parties
        if value and address
    ]


@dataclass
class Payouts:
    """One settlement's chain payouts, in order, and the pending ledger legs booking them
    (shared by matches and prizes). ``played_at`` dates avatar payouts (chain time)."""

    match_id: str
    played_at: int
    chain: list[outbox.Payout] = field(default_factory=list)
    legs: list[LedgerLeg] = field(default_factory=list)

    @classmethod
    def at(cls, match_id: str, finished_at: datetime, played_at_s: int | None) -> Payouts:
        """``played_at_s`` if given, else ``finished_at``."""
        played_at = int(aware(finished_at).timestamp()) if played_at_s is None else played_at_s
        return cls(match_id, played_at)

    def pay_avatar(
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
            self.to_account(
                party="owner", address=player, amount=amount, seat=seat, avatar_id=avatar_id
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

    def _fits(self, address: str) -> bool:
        """A payout to ``address`` fits in the entry with room left for the treasury's."""
        payees = {p.account.lower() for p in self.chain if p.account is not None}
        return address.lower() in payees or len(self.chain) < outbox.MAX_PAYOUTS_PER_MATCH - 1

    def to_account(
        self,
        *,
        party: str,
        address: str,
        amount: int,
        seat: int | None = None,
        avatar_id: int | None = None,
    ) -> None:
        """A payout to a wallet, with its ledger leg (``avatar_id``: the avatar it is for)."""
        self._pay_account(address, amount)
        self.legs.append(
            LedgerLeg(
                match_id=self.match_id,
                seat=seat,
                avatar_id=avatar_id,
                party=party,
                address=to_checksum_address(address),
                amount=str(amount),
                status=LegStatus.PENDING,
            )
        )

    def to_fee_legs(
        self,
        session: Session,
        *,
        fee: int,
        at: datetime,
        payers: list[Payer],
        treasury: str,
        table_id: str | None,
        center_id: int | None,
        season_id: int | None,
        schedule: FeeSchedule | None,
        recipients: FeeRecipients | None,
    ) -> None:
        """The fee as treasury, center and creator legs of this same batch; ``at`` (server
        time, when the match finished) decides the center's payee and the players' creators."""
        plan = plan_fee(
            session,
            fee=fee,
            payers=payers,
            table_id=table_id,
            center_id=center_id,
            at=at,
            season_id=season_id,
            schedule=schedule or FeeSchedule(),
            recipients=recipients,
        )
        # One settle entry holds MAX_PAYOUTS_PER_MATCH payouts, one kept for the treasury: a
        # leg to a new payee that does not fit is the treasury's (a full prize table).
        rest = plan.treasury
        legs: list[tuple[str, int | None, str | None, int]] = [
            (CENTER_PARTY, None, plan.center_payee, plan.center)
        ]
        legs += [(CREATOR_PARTY, key, creator, amount) for key, creator, amount in plan.creators]
        for party, key, address, amount in legs:
            if not amount or address is None:
                continue
            if not self._fits(address):
                rest += amount
                continue
            self.to_account(party=party, address=address, amount=amount, seat=key)
        if rest:
            self.to_account(party=TREASURY_PARTY, address=treasury, amount=rest)

    def book_and_queue(
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
