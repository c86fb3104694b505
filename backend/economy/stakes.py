"""Entry stakes: deposits into the vault, escrow when a match starts, release and withdrawal.

A player stakes DEW they have deposited into the ``MatchSettlement`` vault (a plain token
transfer to its address; ``index_deposits`` credits it after confirmations). When a staked
match starts, the server calls :func:`escrow_stakes` in the transaction that starts it: every
human seat's stake moves from its balance into the match, all or nothing. The pot then leaves
the vault with the match's settlement (``plan_settlement`` refuses a staked match whose stakes
were not escrowed, so the vault never pays a pot nobody put in). An abandoned match gives
the stakes back with :func:`release_stakes`; :func:`request_withdrawal` pays a balance out
through the same outbox and ledger as a match. While a staked table is open, each seated
wallet's stake is held out of its balance (:func:`hold_stake`), so nobody can withdraw it
between sitting down and the start; the start turns the holds into the escrow.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from eth_utils.address import is_address, to_checksum_address
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from backend.chain import match_ids, outbox
from backend.chain.follower import follow
from backend.db.base import utcnow
from backend.economy.chain_reader import ChainReader
from backend.economy.exceptions import Conflict, EconomyError, EconomyValueError
from backend.economy.models import (
    LedgerLeg,
    LegStatus,
    PlannedSettlement,
    SettlementStatus,
    StakeEntry,
    StakeWallet,
)
from backend.economy.policy import MAX_PAYOUT_AMOUNT
from backend.kit import errors as kind

logger = logging.getLogger(__name__)


class InsufficientStake(EconomyError, kind.Conflict):
    """The wallet's stake balance is short of the hold or withdrawal asked for."""


class WithdrawalConflict(EconomyError, kind.Conflict, code="idempotency_conflict"):
    """A withdrawal key used again with another amount."""


class TooManyWithdrawals(EconomyError, kind.Conflict):
    """The wallet already has as many withdrawals in flight as it may."""


@dataclass(frozen=True)
class WithdrawalBounds:
    """What one withdrawal may be. Each is a settlement of its own, one of the vault's
    matches per window (``maxMatches``): without a floor and a cap on those in flight, one
    wallet could fill the window with dust and hold every match's payout back; and one above
    the vault's per-match limit would wait, debited, until the admin raised the limit."""

    min_amount: int = 1
    max_amount: int = MAX_PAYOUT_AMOUNT
    max_open: int | None = None
    max_per_day: int | None = None

    @classmethod
    def from_settings(cls, economy: Any) -> WithdrawalBounds:
        return cls(
            min_amount=economy.withdrawal_min,
            max_amount=economy.withdrawal_max,
            max_open=economy.withdrawals_open_per_wallet,
            max_per_day=economy.withdrawals_per_wallet_per_day,
        )


def _open_withdrawals(session: Session, address: str) -> int:
    """The wallet's withdrawals not yet paid or failed (counted under its row lock)."""
    return int(
        session.scalar(
            select(func.count())
            .select_from(StakeEntry)
            .join(PlannedSettlement, PlannedSettlement.match_id == StakeEntry.match_id)
            .where(
                StakeEntry.address == address,
                StakeEntry.kind == "withdrawal",
                PlannedSettlement.status.not_in((SettlementStatus.PAID, SettlementStatus.FAILED)),
            )
        )
        or 0
    )


def open_withdrawals(*, session: Session, address: str) -> int:
    """The wallet's withdrawals not yet paid or failed."""
    return _open_withdrawals(session, checksum(address))


def in_play(*, session: Session, address: str) -> dict[str, int]:
    """What the wallet has in play under each key: set aside for a seat (held) or escrowed
    for a match or a tournament, not given back and not yet settled."""
    signs = {"hold": 1, "escrow": 1, "unhold": -1, "release": -1}
    out: dict[str, int] = {}
    rows = session.execute(
        select(StakeEntry.match_id, StakeEntry.kind, StakeEntry.amount)
        .outerjoin(PlannedSettlement, PlannedSettlement.match_id == StakeEntry.match_id)
        .where(
            StakeEntry.address == checksum(address),
            StakeEntry.kind.in_(tuple(signs)),
            PlannedSettlement.match_id.is_(None),
        )
    )
    for key, entry_kind, amount in rows:
        out[key or ""] = out.get(key or "", 0) + signs[entry_kind] * int(amount)
    return {key: amount for key, amount in out.items() if amount > 0}


def _withdrawals_today(session: Session, address: str) -> int:
    """The wallet's withdrawals asked for in the last 24 hours (under its row lock)."""
    since = utcnow() - timedelta(days=1)
    return int(
        session.scalar(
            select(func.count())
            .select_from(StakeEntry)
            .where(
                StakeEntry.address == address,
                StakeEntry.kind == "withdrawal",
                StakeEntry.created_at >= since,
            )
        )
        or 0
    )


def checksum(value: str) -> str:
    """``value`` as a checksummed address; ``EconomyValueError`` if it is not one."""
    if not isinstance(value, str) or not is_address(value):
        raise EconomyValueError(f"not an address: {value!r}")
    return to_checksum_address(value)


def _wallets(session: Session, addresses: Sequence[str]) -> dict[str, StakeWallet]:
    """Lock (creating if needed) the wallets' rows, in address order to avoid deadlocks."""
    wanted = sorted(set(addresses))
    for address in wanted:
        if session.get(StakeWallet, address) is None:
            session.add(StakeWallet(address=address, balance="0"))
    session.flush()
    rows = session.scalars(
        select(StakeWallet)
        .where(StakeWallet.address.in_(wanted))
        .order_by(StakeWallet.address)
        .with_for_update()
        .execution_options(populate_existing=True)
    )
    return {row.address: row for row in rows}


def stake_balance(*, session: Session, address: str) -> int:
    row = session.get(StakeWallet, checksum(address))
    return int(row.balance) if row else 0


def credit_deposit(
    *, session: Session, address: str, amount: int, tx_hash: str, log_index: int
) -> bool:
    """Credit one deposit event; False if that event was already credited."""
    address = checksum(address)
    if amount <= 0:
        raise EconomyValueError(f"deposit must be positive, got {amount!r}")
    seen = session.scalars(
        select(StakeEntry).where(StakeEntry.tx_hash == tx_hash, StakeEntry.log_index == log_index)
    ).first()
    if seen is not None:
        return False
    wallet = _wallets(session, [address])[address]
    wallet.balance = str(int(wallet.balance) + amount)
    session.add(
        StakeEntry(
            address=address,
            kind="deposit",
            amount=str(amount),
            tx_hash=tx_hash,
            log_index=log_index,
        )
    )
    session.flush()
    return True


def escrow_stakes(
    *, session: Session, match_id: str, seats: Sequence[tuple[int, str]], stake: int
) -> None:
    """Take ``stake`` from each ``(seat, address)`` for the match, all or nothing.

    Idempotent per (match, seat): a seat already escrowed is not charged again."""
    if not isinstance(stake, int) or stake <= 0:
        raise EconomyValueError(f"stake must be a positive integer, got {stake!r}")
    pairs = [(seat, checksum(address)) for seat, address in seats]
    done = set(
        session.scalars(
            select(StakeEntry.seat).where(
                StakeEntry.kind == "escrow", StakeEntry.match_id == match_id
            )
        )
    )
    todo = [(seat, address) for seat, address in pairs if seat not in done]
    wallets = _wallets(session, [address for _, address in todo])
    need: dict[str, int] = {}
    for _, address in todo:
        need[address] = need.get(address, 0) + stake
    for address, amount in need.items():
        have = int(wallets[address].balance)
        if have < amount:
            raise InsufficientStake(
                f"{address} has {have} DEW wei deposited, the stake needs {amount}"
            )
    for seat, address in todo:
        wallets[address].balance = str(int(wallets[address].balance) - stake)
        session.add(
            StakeEntry(
                address=address, kind="escrow", amount=str(stake), match_id=match_id, seat=seat
            )
        )
    session.flush()


def escrowed(*, session: Session, match_id: str) -> dict[int, int]:
    """Stake held for each seat of a match (escrowed and not released)."""
    held: dict[int, int] = {}
    for entry in session.scalars(select(StakeEntry).where(StakeEntry.match_id == match_id)):
        assert entry.seat is not None
        sign = 1 if entry.kind == "escrow" else -1 if entry.kind == "release" else 0
        held[entry.seat] = held.get(entry.seat, 0) + sign * int(entry.amount)
    return {seat: amount for seat, amount in held.items() if amount}


def hold_stake(*, session: Session, address: str, key: str, amount: int) -> None:
    """Set ``amount`` of the wallet's balance aside under ``key`` (a seat at an open staked
    table): it leaves the balance under the wallet's row lock, so a withdrawal (which takes
    the same lock) can no longer spend it, until :func:`release_held` gives it back or the
    match's start escrows it."""
    if not isinstance(amount, int) or amount <= 0:
        raise EconomyValueError(f"a hold must be a positive integer, got {amount!r}")
    address = checksum(address)
    wallet = _wallets(session, [address])[address]
    have = int(wallet.balance)
    if have < amount:
        raise InsufficientStake(f"{address} has {have} DEW wei deposited, the stake needs {amount}")
    wallet.balance = str(have - amount)
    # No seat: a seat left and taken again holds again, and (kind, key, seat) is unique.
    session.add(StakeEntry(address=address, kind="hold", amount=str(amount), match_id=key))
    session.flush()


def held(*, session: Session, key: str) -> dict[str, int]:
    """What each wallet has set aside under ``key`` and not had back."""
    out: dict[str, int] = {}
    for entry in session.scalars(
        select(StakeEntry).where(
            StakeEntry.match_id == key, StakeEntry.kind.in_(("hold", "unhold"))
        )
    ):
        sign = 1 if entry.kind == "hold" else -1
        out[entry.address] = out.get(entry.address, 0) + sign * int(entry.amount)
    return {address: amount for address, amount in out.items() if amount > 0}


def release_held(*, session: Session, key: str, address: str | None = None) -> int:
    """Give back what is set aside under ``key`` (every wallet's, or ``address``'s); returns
    the amount given back. Idempotent: what was given back is not held any more."""
    todo = held(session=session, key=key)
    if address is not None:
        todo = {a: v for a, v in todo.items() if a == checksum(address)}
    if not todo:
        return 0
    wallets = _wallets(session, list(todo))
    for holder, amount in todo.items():
        wallets[holder].balance = str(int(wallets[holder].balance) + amount)
        session.add(StakeEntry(address=holder, kind="unhold", amount=str(amount), match_id=key))
    session.flush()
    return sum(todo.values())


def release_stakes(*, session: Session, match_id: str, seats: Collection[int] | None = None) -> int:
    """Give an abandoned match's stakes back to the balances; returns the amount released.
    ``seats``: only theirs (a tournament entrant who left before it started)."""
    if session.get(PlannedSettlement, match_id) is not None:
        raise Conflict(f"match {match_id!r} is already settled; its stakes are in its payouts")
    entries = list(
        session.scalars(
            select(StakeEntry).where(StakeEntry.match_id == match_id, StakeEntry.kind == "escrow")
        )
    )
    released = {
        e.seat
        for e in session.scalars(
            select(StakeEntry).where(StakeEntry.match_id == match_id, StakeEntry.kind == "release")
        )
    }
    todo = [e for e in entries if e.seat not in released and (seats is None or e.seat in seats)]
    wallets = _wallets(session, [e.address for e in todo])
    for e in todo:
        wallets[e.address].balance = str(int(wallets[e.address].balance) + int(e.amount))
        session.add(
            StakeEntry(
                address=e.address, kind="release", amount=e.amount, match_id=match_id, seat=e.seat
            )
        )
    session.flush()
    return sum(int(e.amount) for e in todo)


def request_withdrawal(
    *,
    session: Session,
    address: str,
    amount: int,
    key: str,
    chain_id: int | None = None,
    bounds: WithdrawalBounds = WithdrawalBounds(),
) -> PlannedSettlement:
    """Pay ``amount`` of a stake balance back to the wallet through the settlement outbox.

    ``key`` makes it idempotent: the same key returns the same withdrawal, and the same key
    with another amount is refused (:class:`WithdrawalConflict`). The balance is debited under
    the wallet's row lock (``FOR UPDATE`` on PostgreSQL, the ``BEGIN IMMEDIATE`` writer lock
    on SQLite) and the repeat is looked for only once the lock is held, so parallel requests
    of one balance pay once. Escrowed stake, and stake held for a seat at an open staked
    table, is not in the balance: it cannot be withdrawn."""
    address = checksum(address)
    if not isinstance(amount, int) or isinstance(amount, bool) or amount <= 0:
        raise EconomyValueError(f"withdrawal must be a positive integer, got {amount!r}")
    if amount > MAX_PAYOUT_AMOUNT:
        raise EconomyValueError(f"withdrawal above the vault's 2**88-1 per payout: {amount!r}")
    if not isinstance(key, str) or not 1 <= len(key) <= 64:
        raise EconomyValueError(f"withdrawal key must be 1..64 characters, got {key!r}")
    if not bounds.min_amount <= amount <= bounds.max_amount:
        raise EconomyValueError(
            f"a withdrawal is {bounds.min_amount}..{bounds.max_amount} DEW wei, got {amount}"
        )
    digest = hashlib.sha256(f"withdraw:{address}:{key}".encode()).digest()
    match_id = withdrawal_id(address, key)
    wallet = session.scalars(
        select(StakeWallet)
        .where(StakeWallet.address == address)
        .with_for_update()
        .execution_options(populate_existing=True)
    ).first()
    existing = session.get(PlannedSettlement, match_id, populate_existing=True)
    if existing is not None:
        if existing.economy != "withdrawal" or int(existing.stake_pot) != amount:
            raise WithdrawalConflict(
                f"withdrawal key {key!r} was used for {existing.stake_pot} DEW wei, not {amount}"
            )
        return existing
    if bounds.max_open is not None and _open_withdrawals(session, address) >= bounds.max_open:
        raise TooManyWithdrawals(
            f"{address} has {bounds.max_open} withdrawals in flight: wait until one is paid"
        )
    if (
        bounds.max_per_day is not None
        and _withdrawals_today(session, address) >= bounds.max_per_day
    ):
        raise TooManyWithdrawals(
            f"{address} made {bounds.max_per_day} withdrawals in the last 24 hours: try later"
        )
    have = int(wallet.balance) if wallet is not None else 0
    if wallet is None or have < amount:
        raise InsufficientStake(f"{address} has {have} DEW wei to withdraw, asked for {amount}")
    wallet.balance = str(have - amount)
    session.add(
        StakeEntry(
            address=address, kind="withdrawal", amount=str(amount), match_id=match_id, seat=0
        )
    )
    chain_match_id = match_ids.withdrawal_id(hashlib.sha256(b"dew-withdrawal" + digest).digest())
    settlement = PlannedSettlement(
        match_id=match_id,
        chain_match_id=chain_match_id,
        result_hash="0x" + digest.hex(),
        economy="withdrawal",
        finished_at=utcnow(),
        # The amount asked for (what a repeat of the key must match); ``paid`` is the chain's.
        stake_pot=str(amount),
        status=SettlementStatus.SUBMITTED,
    )
    session.add(settlement)
    session.flush()
    session.add(
        LedgerLeg(
            match_id=match_id,
            party="withdrawal",
            address=address,
            amount=str(amount),
            status=LegStatus.PENDING,
        )
    )
    request = outbox.request_settlement(
        session=session,
        match_id=chain_match_id,
        result_hash=settlement.result_hash,
        payouts=[outbox.Payout(amount=amount, account=address)],
        chain_id=chain_id,
    )
    settlement.chain_request_id = request.id
    session.flush()
    return settlement


def withdrawal_id(address: str, key: str) -> str:
    """The id of a wallet's withdrawal under ``key`` (``w`` + 31 hex digits)."""
    digest = hashlib.sha256(f"withdraw:{checksum(address)}:{key}".encode()).digest()
    return "w" + digest.hex()[:31]


def reverse_withdrawal(*, session: Session, match_id: str) -> int:
    """Credit a failed withdrawal back to its balance, once; returns the amount credited."""
    entry = session.scalars(
        select(StakeEntry).where(StakeEntry.kind == "withdrawal", StakeEntry.match_id == match_id)
    ).first()
    if entry is None:
        return 0
    done = session.scalars(
        select(StakeEntry).where(StakeEntry.kind == "reversal", StakeEntry.match_id == match_id)
    ).first()
    if done is not None:
        return 0
    wallet = _wallets(session, [entry.address])[entry.address]
    wallet.balance = str(int(wallet.balance) + int(entry.amount))
    session.add(
        StakeEntry(
            address=entry.address, kind="reversal", amount=entry.amount, match_id=match_id, seat=0
        )
    )
    session.flush()
    return int(entry.amount)


@dataclass
class DepositReport:
    from_block: int
    to_block: int
    credited: int


def index_deposits(
    *, session_factory: sessionmaker[Session], reader: ChainReader, max_blocks: int = 5_000
) -> DepositReport:
    """Credit confirmed DEW transfers into the vault as stake deposits (the vault's funding
    is minted, from the zero address, and is never anyone's deposit)."""
    c = reader.contracts
    report = follow(
        session_factory,
        name=f"deposits:{c.manifest.chain_id}:{c.settlement.address}",
        reader=reader,
        max_blocks=max_blocks,
        read=reader.deposits,
        apply=_credit_deposits,
    )
    return DepositReport(report.from_block, report.to_block, report.events)


def _credit_deposits(session: Session, events: list[Any]) -> int:
    return sum(
        credit_deposit(
            session=session,
            address=event["args"]["from"],
            amount=int(event["args"]["value"]),
            tx_hash="0x" + event["transactionHash"].hex().removeprefix("0x"),
            log_index=event["logIndex"],
        )
        for event in events
    )
