"""The one gate: whether a wallet may pass a door now, asked by every door on the server.

A door is a place where a wallet starts something: signing in, taking a seat, joining the
matchmaking queue, paying a tournament's entry fee, talking at a table, buying in the shop
or the market, and depositing into the vault. :func:`require` refuses a wallet that a
moderator's sanction, a break the player took (time-out, self-exclusion) or a limit the
player set keeps out of it, and every door of an account its player closed; a withdrawal
always passes (a balance is never held back).

Limits are counted race-free: :func:`require` locks the wallet's key (PostgreSQL's advisory
lock, SQLite's one writer) before it counts what the window holds, and the caller writes
the stake or the deposit in the same transaction, so parallel deposits or entries of one
wallet are counted one after another and cannot pass a limit together.

A stake counts what the stake ledger committed in the window net of what came back
unplayed: a seat's hold, less its release when the seat is left; a match's escrow, less its
release when the match is abandoned; a tournament's fee, less its refund. A deposit counts
what the deposit door built for the wallet to sign (:class:`DepositAsked`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any, TypeVar

from eth_utils.address import is_address, to_checksum_address
from sqlalchemy import ColumnElement, select
from sqlalchemy.orm import Session

from backend.care import exceptions as exc
from backend.care.models import ClosedAccount, DepositAsked, PlayerBreak, PlayerLimit, Sanction
from backend.db import dialect
from backend.db.base import aware, utcnow
from backend.economy.models import StakeEntry


class Door(StrEnum):
    SIGN_IN = "sign_in"
    SEAT = "seat"
    QUEUE = "queue"
    ENTRY = "entry"
    TALK = "talk"
    SHOP = "shop"
    MARKET = "market"
    DEPOSIT = "deposit"
    WITHDRAWAL = "withdrawal"


PLAY = frozenset({Door.SEAT, Door.QUEUE, Door.ENTRY})
STAKED = PLAY  # the doors whose amount is a stake
# What each sanction or break closes. A self-exclusion closes play only where it is staked
# (an amount above zero); a withdrawal is in none of them.
CLOSES: dict[str, frozenset[Door]] = {
    "warn": frozenset(),
    "mute": frozenset({Door.TALK}),
    "suspend": PLAY | {Door.TALK, Door.DEPOSIT},
    "ban": frozenset(Door) - {Door.WITHDRAWAL},
    "timeout": PLAY | {Door.DEPOSIT, Door.SHOP, Door.MARKET},
    "exclusion": PLAY | {Door.DEPOSIT},
}
REFUSAL: dict[str, type[exc.CareError]] = {
    "mute": exc.Muted,
    "suspend": exc.Suspended,
    "ban": exc.Banned,
    "timeout": exc.TimedOut,
    "exclusion": exc.SelfExcluded,
}
LIMIT_KINDS = ("deposit", "stake")
PERIODS: dict[str, timedelta] = {
    "day": timedelta(days=1),
    "week": timedelta(days=7),
    "month": timedelta(days=30),
}
# A raised or removed limit waits this long; a lowered one holds at once.
COOLING = timedelta(hours=24)
# Stake ledger entries that commit stake (+1) or give it back unplayed (-1).
_STAKE_SIGN = {"hold": 1, "unhold": -1, "escrow": 1, "release": -1}


def wallet(address: str) -> str:
    """``address`` checksummed; ``InvalidCare`` if it is not an address."""
    if not isinstance(address, str) or not is_address(address):
        raise exc.InvalidCare(f"not an address: {address!r:.60}")
    return to_checksum_address(address)


def check_duration(
    kind: str, duration: timedelta, bounds: dict[str, tuple[timedelta, timedelta]]
) -> None:
    """``InvalidCare`` unless ``kind`` is in ``bounds`` and ``duration`` within its own."""
    if kind not in bounds:
        raise exc.InvalidCare(f"unknown kind {kind!r:.20}: one of {', '.join(bounds)}")
    low, high = bounds[kind]
    if not low <= duration <= high:
        raise exc.InvalidCare(f"the {kind} lasts {low} to {high}, not {duration}")


def _when(moment: datetime) -> str:
    return f"{aware(moment):%Y-%m-%d %H:%M} UTC"


Held = TypeVar("Held", Sanction, PlayerBreak)


def _held(
    session: Session, model: type[Held], address: str, *in_force: ColumnElement[bool], order: Any
) -> list[Held]:
    """The wallet's rows of ``model`` that ``in_force`` holds for now, in ``order``."""
    query = select(model).where(model.address == address, *in_force).order_by(order)
    return list(session.scalars(query))


def active_sanctions(session: Session, address: str, now: datetime) -> list[Sanction]:
    in_force = (Sanction.lifted_at.is_(None), Sanction.expires_at > now)
    return _held(session, Sanction, address, *in_force, order=Sanction.id)


def active_breaks(session: Session, address: str, now: datetime) -> list[PlayerBreak]:
    in_force = (PlayerBreak.starts_at <= now, PlayerBreak.ends_at > now)
    return _held(session, PlayerBreak, address, *in_force, order=PlayerBreak.ends_at.desc())


@dataclass(frozen=True)
class Limit:
    """One limit as the player sees it: what holds now, and a raise waiting its cooling."""

    kind: str
    period: str
    amount: int | None
    pending: int | None
    pending_from: datetime | None
    used: int = 0


def _num(text: str | None) -> int | None:
    return None if text is None else int(text)


def in_force(row: PlayerLimit, now: datetime) -> int | None:
    """The limit that holds at ``now`` (a raise whose cooling has passed holds)."""
    if row.pending_from is not None and aware(row.pending_from) <= now:
        return _num(row.pending)
    return _num(row.amount)


def used(session: Session, address: str, kind: str, since: datetime) -> int:
    """What the wallet deposited (asked at the door) or staked since ``since``."""
    if kind == "deposit":
        amounts = session.scalars(
            select(DepositAsked.amount).where(
                DepositAsked.address == address, DepositAsked.created_at >= since
            )
        )
        return sum(int(a) for a in amounts)
    rows = session.execute(
        select(StakeEntry.kind, StakeEntry.amount).where(
            StakeEntry.address == address,
            StakeEntry.kind.in_(tuple(_STAKE_SIGN)),
            StakeEntry.created_at >= since,
        )
    )
    return max(0, sum(_STAKE_SIGN[k] * int(a) for k, a in rows))


def limits(session: Session, address: str, now: datetime | None = None) -> list[Limit]:
    """The wallet's limits with what each window has used."""
    now = now or utcnow()
    out = []
    for row in session.scalars(
        select(PlayerLimit).where(PlayerLimit.address == address).order_by(PlayerLimit.kind)
    ):
        force = in_force(row, now)
        waiting = row.pending_from is not None and aware(row.pending_from) > now
        out.append(
            Limit(
                kind=row.kind,
                period=row.period,
                amount=force,
                pending=_num(row.pending) if waiting else None,
                pending_from=aware(row.pending_from) if waiting else None,
                used=used(session, address, row.kind, now - PERIODS[row.period]),
            )
        )
    return out


def _check_limits(session: Session, address: str, kind: str, amount: int, now: datetime) -> None:
    for row in session.scalars(
        select(PlayerLimit).where(PlayerLimit.address == address, PlayerLimit.kind == kind)
    ):
        cap = in_force(row, now)
        if cap is None:
            continue
        spent = used(session, address, kind, now - PERIODS[row.period])
        if spent + amount > cap:
            raise exc.LimitReached(
                f"your {row.period}ly {kind} limit is {cap} DEW wei and {spent} is used: "
                f"{max(0, cap - spent)} is left, {amount} was asked"
            )


def require(
    session: Session,
    address: str,
    door: Door,
    *,
    amount: int = 0,
    now: datetime | None = None,
) -> None:
    """Refuse ``address`` at ``door`` if a sanction, a break or a limit closes it.

    ``amount`` is the stake (seat, queue, entry) or the deposit in DEW wei. A deposit that
    passes is recorded against the deposit limits; a stake is recorded by the stake ledger
    the caller writes in this same transaction. Neither commits."""
    if door is Door.WITHDRAWAL:
        return  # a balance is always paid out: no sanction, break or limit holds it
    if not isinstance(amount, int) or isinstance(amount, bool) or amount < 0:
        raise exc.InvalidCare(f"an amount is a whole number of DEW wei, got {amount!r:.40}")
    address = wallet(address)
    now = now or utcnow()
    money = amount > 0 and (door in STAKED or door is Door.DEPOSIT)
    if money:
        # Held to the commit: this wallet's deposits and stakes are counted one at a time.
        dialect.lock_key(session, f"care:{address.lower()}")
    closed = session.get(ClosedAccount, address)
    if closed is not None:
        raise exc.AccountClosed(
            f"this account was closed by its player on {_when(closed.created_at)}: "
            "only a withdrawal still passes"
        )
    for sanction in active_sanctions(session, address, now):
        if door in CLOSES[sanction.kind]:
            raise REFUSAL[sanction.kind](
                f"a moderator's {sanction.kind} until {_when(sanction.expires_at)} "
                f"(#{sanction.id}): {sanction.reason}"
            )
    for pause in active_breaks(session, address, now):
        if door not in CLOSES[pause.kind]:
            continue
        if pause.kind == "exclusion" and door in STAKED and amount == 0:
            continue  # free play stays open to a self-excluded player
        what = "time-out" if pause.kind == "timeout" else "self-exclusion"
        raise REFUSAL[pause.kind](f"your {what} lasts until {_when(pause.ends_at)}")
    if not money:
        return
    kind = "deposit" if door is Door.DEPOSIT else "stake"
    _check_limits(session, address, kind, amount, now)
    if door is Door.DEPOSIT:
        session.add(DepositAsked(address=address, amount=str(amount), created_at=now))
        session.flush()
