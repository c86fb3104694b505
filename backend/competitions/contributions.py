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
from backend.competitions.models import Tournament, TournamentStatus
from backend.db.base import Base, utcnow
from backend.economy.chain_reader import ChainReader

log = logging.getLogger(__name__)

POOLED = "pooled"
ORPHANED = "orphaned"


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
    open_ = t is not None and t.status in (TournamentStatus.REGISTERING, TournamentStatus.RUNNING)
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
