"""DEW Contribution: DEW a creator (or anyone) adds to a tournament's prize pool on chain.

``Contributions.contribute(tournamentId, amount)`` moves the DEW straight into the reward
vault and emits ``Contributed``; :func:`index_contributions` books each confirmed event once
(keyed by its transaction hash and log index) under the tournament's row lock: ``pooled``
while the tournament is registering or running (its prizes then pay it out with the entry
fees and the added prize, fee-free), ``orphaned`` otherwise (an unknown, finished or
cancelled tournament: the DEW stays in the vault, reported, since the contract has no
refund). The vault-deposit indexer never credits these transfers as stake deposits
(``ChainReader.deposits``).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import BigInteger, DateTime, Integer, String, func, select
from sqlalchemy.orm import Mapped, Session, mapped_column, sessionmaker

from backend.chain.follower import claimed_range
from backend.chain.unsigned import TxBuilder, UnsignedTx
from backend.competitions import exceptions as exc
from backend.competitions.models import Tournament, TournamentStatus
from backend.db.base import Base, utcnow
from backend.economy.chain_reader import ChainReader

log = logging.getLogger(__name__)

POOLED = "pooled"
ORPHANED = "orphaned"
# Contributions.sol's bounds on one contribution (MIN_CONTRIBUTION, MAX_CONTRIBUTION).
MIN_CONTRIBUTION = 10**16
MAX_CONTRIBUTION = 1_000_000 * 10**18
OPEN = (TournamentStatus.REGISTERING, TournamentStatus.RUNNING)


class Contribution(Base):
    """One confirmed ``Contributed`` event, booked once."""

    __tablename__ = "competitions_contributions"

    tx_hash: Mapped[str] = mapped_column(String(66), primary_key=True)
    log_index: Mapped[int] = mapped_column(Integer, primary_key=True)
    tournament_id: Mapped[int] = mapped_column(BigInteger, index=True)
    contributor: Mapped[str] = mapped_column(String(42), index=True)
    amount: Mapped[str] = mapped_column(String(80))
    status: Mapped[str] = mapped_column(String(16))
    block_number: Mapped[int] = mapped_column(BigInteger)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


@dataclass
class ContributionReport:
    from_block: int
    to_block: int
    pooled: int
    orphaned: int


def contributed(*, session: Session, tournament_id: int) -> int:
    """DEW wei pooled into a tournament's prizes by contributions."""
    amounts = session.scalars(
        select(Contribution.amount).where(
            Contribution.tournament_id == tournament_id, Contribution.status == POOLED
        )
    )
    return sum(int(a) for a in amounts)


def _book(session: Session, event: Any) -> str | None:
    args = event["args"]
    key = ("0x" + bytes(event["transactionHash"]).hex(), int(event["logIndex"]))
    if session.get(Contribution, key) is not None:
        return None
    tournament_id = int(args["tournamentId"])
    t = (
        session.get(Tournament, tournament_id, with_for_update=True)
        if tournament_id <= 2**31 - 1
        else None
    )
    open_ = t is not None and t.status in OPEN
    status = POOLED if open_ else ORPHANED
    session.add(
        Contribution(
            tx_hash=key[0],
            log_index=key[1],
            tournament_id=tournament_id,
            contributor=args["from"],
            amount=str(int(args["amount"])),
            status=status,
            block_number=int(event["blockNumber"]),
        )
    )
    if t is not None and open_:
        t.version += 1  # watchers hear about the bigger pool
    session.flush()
    return status


def index_contributions(
    *, session_factory: sessionmaker[Session], reader: ChainReader, max_blocks: int = 5_000
) -> ContributionReport:
    """Book the confirmed ``Contributed`` events of the next block range (idempotent)."""
    c = reader.contracts
    name = f"contributions:{c.manifest.chain_id}:{c.contributions.address}"
    pooled = orphaned = 0
    with claimed_range(session_factory, name=name, reader=reader, max_blocks=max_blocks) as (
        session,
        blocks,
    ):
        if blocks.empty:
            return ContributionReport(blocks.start, blocks.start - 1, 0, 0)
        for event in reader.contributions(blocks.start, blocks.end):
            status = _book(session, event)
            pooled += status == POOLED
            orphaned += status == ORPHANED
    if orphaned:
        log.warning("%d contributions to no open tournament stay in the vault", orphaned)
    return ContributionReport(blocks.start, blocks.end, pooled, orphaned)


def orphaned_total(*, session: Session) -> int:
    """DEW wei contributed to no open tournament (in the vault, paid to nobody)."""
    amounts = session.scalars(select(Contribution.amount).where(Contribution.status == ORPHANED))
    return sum(int(a) for a in amounts)


def count(*, session: Session) -> int:
    return session.scalar(select(func.count()).select_from(Contribution)) or 0


def contributions_to(
    *, session: Session, tournament_id: int, limit: int = 100
) -> list[Contribution]:
    """The contributions pooled into a tournament's prizes, newest first, at most ``limit``
    (anyone can add many small ones: the total is ``contributed``, never this list's sum)."""
    return list(
        session.scalars(
            select(Contribution)
            .where(Contribution.tournament_id == tournament_id, Contribution.status == POOLED)
            .order_by(Contribution.block_number.desc(), Contribution.log_index.desc())
            .limit(limit)
        )
    )


class ContributionTxBuilder(TxBuilder):
    """The contributor's own transactions: a DEW approval when its allowance is short, then
    ``Contributions.contribute``."""

    refused = exc.ContributionRefused
    unavailable = exc.ChainUnavailable

    def settlement_limit(self) -> int:
        """The most one settlement entry may pay out of the vault (a tournament's prizes are
        one): ``MatchSettlement.limits()``'s per-match limit, or its per-window one if lower."""
        period_limit, max_per_match, _period, _matches = self._read(
            self.contracts.settlement.functions.limits()
        )
        return min(int(period_limit), int(max_per_match))

    def contribute(
        self, *, session: Session, tournament_id: int, contributor: str, amount: int
    ) -> list[UnsignedTx]:
        """A contribution of ``amount`` DEW wei to an open tournament's prizes, checked first
        against what its prizes can pay: the whole pool (every place's entry fee, the added
        prize, the contributions booked and this one) must fit in one settlement entry, or
        the prizes would wait in the vault for ever. A closed or unknown tournament is refused
        (the contract would take the DEW, and nobody would be paid it)."""
        if not MIN_CONTRIBUTION <= amount <= MAX_CONTRIBUTION:
            raise exc.InvalidTournament(
                f"a contribution is {MIN_CONTRIBUTION}..{MAX_CONTRIBUTION} DEW wei, got {amount}"
            )
        t = session.get(Tournament, tournament_id)
        if t is None:
            raise exc.TournamentNotFound(f"no tournament {tournament_id}")
        if t.status not in OPEN:
            raise exc.RegistrationClosed(
                f"tournament {tournament_id} is {t.status}: only a tournament that is taking "
                "entries or being played pools contributions"
            )
        booked = contributed(session=session, tournament_id=tournament_id)
        pool = t.max_entrants * int(t.entry_fee) + int(t.added_prize) + booked + amount
        limit = self.settlement_limit()
        if pool > limit:
            raise exc.ContributionRefused(
                f"the prize pool would be {pool} DEW wei, more than the {limit} the vault pays "
                f"in one settlement: at most {max(0, limit - pool + amount)} can be contributed"
            )
        return self._pay_then(
            contributor,
            self.contracts.contributions,
            amount,
            "contribute",
            [tournament_id, amount],
            f"contribute {amount} DEW wei to tournament {tournament_id}",
        )
