"""Taking seats and starting matches: what creating, joining, matchmaking and the matches
other packages start have in common.

A seat at an earning table holds its wallet and its avatar (``EarningHold``) until the
seat is left or the match ends: each sits at one earning table at a time. A seat at a staked
table holds its stake out of the wallet's balance while the table is open; starting a match
escrows the entry stakes in the same transaction (``backend.economy.stakes``).
None of these commit: the calling service owns the unit of work.
"""

from __future__ import annotations

import logging
import secrets
import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from backend.db.base import utcnow
from backend.economy import stakes
from backend.economy.policy import AVATAR_ADMISSIONS
from backend.tables import exceptions as exc
from backend.tables import play
from backend.tables.models import EarningHold, Match, Table, TableSeat

log = logging.getLogger(__name__)


def seats_of(*, session: Session, table_id: str) -> list[TableSeat]:
    return list(
        session.scalars(
            select(TableSeat).where(TableSeat.table_id == table_id).order_by(TableSeat.seat)
        )
    )


def holders(address: str, admission: Any) -> list[str]:
    """What a seat at an earning table holds: its wallet, and the avatar it plays."""
    holders = [f"wallet:{address}"]
    avatar = getattr(admission, "avatar_id", None)
    if avatar is not None and getattr(admission, "admitted_as", None) in AVATAR_ADMISSIONS:
        holders.append(f"avatar:{avatar}")
    return holders


def holding_table(session: Session, holders: list[str]) -> str | None:
    return session.scalar(select(EarningHold.table_id).where(EarningHold.holder.in_(holders)))


def release_holds(session: Session, table_id: str, address: str | None = None) -> None:
    """The table's earning holds (all, or one wallet's) end: they may sit elsewhere; the
    stakes held for their seats go back to their balances."""
    statement = delete(EarningHold).where(EarningHold.table_id == table_id)
    if address is not None:
        statement = statement.where(EarningHold.address == address)
    session.execute(statement)
    stakes.release_held(session=session, key=table_id, address=address)


@dataclass(frozen=True)
class SeatSpec:
    """Who sits in one seat of a table seated when it is made (matchmaking, matches other
    packages start): a wallet or a bot."""

    address: str | None = None
    bot_level: str | None = None
    avatar_id: int | None = None
    admitted_as: str | None = None


def take_seat(
    session: Session,
    table: Table,
    seat: int,
    address: str | None,
    admission: Any = None,
    *,
    bot_level: str | None = None,
    joined_at: datetime | None = None,
) -> None:
    """Take ``seat`` for a wallet (``admission``: anything with ``avatar_id`` and
    ``admitted_as``, a gate's Admission or a SeatSpec) or a bot (``bot_level``).

    At an earning table the wallet and its avatar are held there until the seat is left or
    the match ends: each sits at one earning table at a time (``AlreadyPlaying``). At a
    staked table the seat's stake is held out of the wallet's balance until the seat is
    left, the table is cancelled, or the match starts and escrows it (``InsufficientStake``,
    with nothing written, when the balance is short)."""
    if table.earning and address is not None:
        held = holders(address, admission)
        elsewhere = holding_table(session, held)
        if elsewhere is not None:
            raise exc.AlreadyPlaying(
                f"this wallet or its avatar already sits at earning table {elsewhere!r}: "
                "one earning table at a time"
            )
        for holder in held:
            session.add(
                EarningHold(holder=holder, table_id=table.id, address=address, created_at=utcnow())
            )
        stake = int(table.stake)
        if stake > 0:
            # The stake leaves the balance now, not at the start: a wallet that sat down and
            # then withdrew it would leave a listed table every joiner is refused at.
            try:
                stakes.hold_stake(session=session, address=address, key=table.id, amount=stake)
            except stakes.InsufficientStake as error:
                session.rollback()
                raise exc.InsufficientStake(
                    f"this table's stake is held while you sit at it: {error}; "
                    "deposit DEW into the vault first"
                ) from None
    session.add(
        TableSeat(
            table_id=table.id,
            seat=seat,
            address=address,
            bot_level=bot_level,
            avatar_id=admission.avatar_id if admission else None,
            admitted_as=admission.admitted_as if admission else None,
            joined_at=joined_at or utcnow(),
        )
    )


def fill_with_bots(session: Session, table: Table, level: str) -> None:
    """Bots in the empty seats: each at its seat's level (``table.bot_levels``), else
    ``level``."""
    session.flush()
    taken = {s.seat for s in seats_of(session=session, table_id=table.id)}
    levels = table.bot_levels or []
    for seat in range(table.seat_count):
        if seat not in taken:
            seat_level = levels[seat] if seat < len(levels) else level
            take_seat(session, table, seat, None, bot_level=seat_level)


def seated_table(
    session: Session,
    *,
    preset: str,
    options: dict[str, Any],
    seat_count: int,
    seats: list[SeatSpec],
    earning: bool,
    kind: str,
    visibility: str,
    bot_level: str,
    turn_timeout_s: float,
    now: datetime,
    stake: int = 0,
) -> Table:
    """An open table nobody created, with ``seats`` taken from seat 0 on (matchmaking and
    matches other packages start; the caller fills or starts it). Only matchmaking passes a
    ``stake``: starting the match escrows it (``start_match``)."""
    table = Table(
        id=uuid.uuid4().hex,
        preset=preset,
        options=options,
        seat_count=seat_count,
        stake=str(stake),
        earning=earning,
        kind=kind,
        visibility=visibility,
        invite_code=secrets.token_urlsafe(12),
        creator=None,
        bot_level=bot_level,
        turn_timeout_s=turn_timeout_s,
        spectators_allowed=True,
        spectator_delay_s=0.0,
        status="open",
        created_at=now,
    )
    session.add(table)
    session.flush()
    for number, spec in enumerate(seats):
        take_seat(
            session, table, number, spec.address, spec, bot_level=spec.bot_level, joined_at=now
        )
    return table


def start_match(session: Session, table: Table) -> Match:
    session.flush()
    seats = seats_of(session=session, table_id=table.id)
    seed, commitment = play.new_seed()
    match = Match(
        id=uuid.uuid4().hex,
        table_id=table.id,
        preset=table.preset,
        options=table.options,
        seats=[
            {
                "seat": s.seat,
                "address": s.address,
                "bot_level": s.bot_level,
                "avatar_id": s.avatar_id,
                "admitted_as": s.admitted_as,
            }
            for s in seats
        ],
        seed=seed,
        seed_commitment=commitment,
        status="live",
        created_at=utcnow(),
    )
    session.add(match)
    table.status = "playing"
    table.match_id = match.id
    stake = int(table.stake)
    humans = [(s.seat, s.address) for s in seats if s.address is not None]
    if table.earning and stake > 0 and humans:
        session.flush()
        try:
            # The seats' holds become the match's escrow (a seat written without a hold, as
            # before holds existed, is escrowed from its balance all the same).
            stakes.release_held(session=session, key=table.id)
            stakes.escrow_stakes(session=session, match_id=match.id, seats=humans, stake=stake)
        except stakes.InsufficientStake as error:
            # Nothing of the start (nor of the join that triggered it) may remain.
            session.rollback()
            raise exc.InsufficientStake(
                f"the match cannot start: {error}; deposit DEW into the vault first"
            ) from None
    log.info("match %s started at table %s", match.id, table.id)
    return match
