"""Creators: register a code, bind a player to it once through a statement the player's
wallet signs (EIP-191), who earns from a player's fees (``beneficiary``), and the creator's
dashboard. Plain functions taking keyword-only ``session``; the three writes (``register``,
``issue_statement``, ``bind``) commit their own unit of work, as the other services do.

Farming is refused where the server can see it (docs/security.md, "Creators"): a creator
cannot bind itself, nor a wallet it is *linked* to: one that was ever a party (owner,
manager or scholar) of a scholarship agreement with it, or one the creator is bound to
through its chain of creators (a binding cycle of any length; binds are serialized, so
racing binds cannot close a ring together). Earnings are capped per creator per season by
the fee schedule (``backend.economy.fees.legs``).
"""

from __future__ import annotations

import re
import secrets
from datetime import UTC, datetime, timedelta

from eth_utils.address import is_address, to_checksum_address
from sqlalchemy import func, or_, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from backend.accounts.siwe_message import SignatureError, recover_signer_bytes
from backend.creators import exceptions as exc
from backend.creators.models import BindStatement, Creator, CreatorBinding
from backend.db import dialect
from backend.db.base import aware, get_or_raise, utcnow
from backend.economy.counts import Count
from backend.economy.fees.legs import CREATOR_PARTY
from backend.economy.fees.schedule import FeeSchedule
from backend.economy.models import (
    AgreementMirror,
    LedgerLeg,
    LegStatus,
    PlannedSettlement,
    Season,
    SeatRecord,
)

CODE_PATTERN = re.compile(r"^[A-Z0-9]{4,16}$")
# Codes a wallet may not take: they would pass for the platform speaking.
RESERVED_CODES = frozenset(
    {
        "ADMIN", "ADMINS", "DEW", "DEWDEW", "OFFICIAL", "OPERATOR", "SUPPORT", "SYSTEM",
        "TREASURY", "STAFF", "ROOT", "NULL", "NONE", "TEST", "HELP", "SERVER", "SECURITY",
        "MODERATOR", "BONUS", "FREE", "AIRDROP", "GAMECENTER", "CREATOR", "CREATORS",
    }
)  # fmt: skip
STATEMENT_TTL = timedelta(minutes=10)
MAX_OPEN_STATEMENTS = 5
# How far up a creator's own chain of creators a bind looks for a cycle; a longer chain is
# refused rather than walked (binds that close a ring of any length are refused).
MAX_CHAIN = 32
# The one lock every bind takes before its checks: two binds that together would close a
# ring (A to B's code while B binds to A's) cannot both pass (PostgreSQL; SQLite runs one
# writer at a time).
BIND_LOCK = "creators:bind"


def normalize_code(code: str) -> str:
    """The stored form of a code (upper case), or ``InvalidCode``."""
    if not isinstance(code, str) or len(code) > 16:
        raise exc.InvalidCode(f"a code is 4..16 letters or digits, got {code!r}")
    upper = code.upper()
    if not CODE_PATTERN.fullmatch(upper):
        raise exc.InvalidCode(f"a code is 4..16 letters or digits, got {code!r}")
    if upper in RESERVED_CODES or upper.startswith("DEW"):
        raise exc.InvalidCode(f"the code {upper!r} is reserved")
    return upper


def _address(text: str) -> str:
    if not isinstance(text, str) or not is_address(text):
        raise exc.BindRefused(f"{text!r} is not an address")
    return to_checksum_address(text)


def register(*, session: Session, address: str, code: str) -> Creator:
    """Register ``code`` for ``address``: one code per wallet, first come first served."""
    address, upper = _address(address), normalize_code(code)
    if session.scalar(select(Creator).where(Creator.address == address)) is not None:
        raise exc.AlreadyCreator(f"{address} already has a creator code")
    if session.get(Creator, upper) is not None:
        raise exc.CodeTaken(f"the code {upper!r} is taken")
    creator = Creator(code=upper, address=address, created_at=utcnow())
    try:
        with session.begin_nested():
            session.add(creator)
            session.flush()
    except IntegrityError:  # a racing registration of the same code or wallet won
        raise exc.CodeTaken(f"the code {upper!r} or the wallet is taken") from None
    session.commit()
    return creator


def get_creator(*, session: Session, code: str) -> Creator:
    missing = exc.CreatorNotFound(f"no creator {code!r}")
    return get_or_raise(session, Creator, normalize_code(code), missing)


def creator_of_wallet(*, session: Session, address: str) -> Creator | None:
    return session.scalar(select(Creator).where(Creator.address == _address(address)))


def linked(*, session: Session, creator: str, player: str) -> str | None:
    """Why the server links ``player`` to ``creator`` (so the bind is refused), or ``None``."""
    creator, player = _address(creator), _address(player)
    if creator == player:
        return "a creator cannot bind its own wallet"
    parties = (AgreementMirror.owner, AgreementMirror.manager, AgreementMirror.scholar)
    shared = session.scalar(
        select(AgreementMirror.id)
        .where(or_(*(p == creator for p in parties)), or_(*(p == player for p in parties)))
        .limit(1)
    )
    if shared is not None:
        return f"the wallets share scholarship agreement #{shared}"
    # Walk the creator's own chain of bindings (each wallet is bound at most once, so it is
    # a path): binding the player would close a ring if the player is on it.
    wallet = creator
    for _ in range(MAX_CHAIN):
        upstream = session.get(CreatorBinding, wallet)
        if upstream is None:
            return None
        if upstream.creator == player:
            return "the creator is bound to this wallet through its creators (a binding cycle)"
        wallet = upstream.creator
    return f"the creator's chain of creators is longer than {MAX_CHAIN} wallets"


def statement_text(*, player: str, code: str, nonce: str, issued: datetime, expires: datetime,
                   chain_id: int) -> str:  # fmt: skip
    """The statement a player signs: who binds to which code, once, under a single-use nonce."""
    return (
        "DEW creator binding\n\n"
        f"I bind my wallet {player} to the creator code {code}.\n"
        "A wallet binds to one creator, once; the creator earns a share of my fees.\n\n"
        f"Code: {code}\n"
        f"Wallet: {player}\n"
        f"Chain ID: {chain_id}\n"
        f"Nonce: {nonce}\n"
        f"Issued At: {issued.astimezone(UTC).isoformat()}\n"
        f"Expiration Time: {expires.astimezone(UTC).isoformat()}"
    )


def issue_statement(
    *, session: Session, player: str, code: str, chain_id: int, now: datetime | None = None
) -> BindStatement:
    """A fresh statement for ``player`` to sign to bind to ``code`` (checks the bind first)."""
    player, now = _address(player), now or utcnow()
    creator = get_creator(session=session, code=code)
    _check_bind(session, creator, player)
    open_count = session.scalar(
        select(func.count()).where(
            BindStatement.player == player,
            BindStatement.used_at.is_(None),
            BindStatement.expires_at > now,
        )
    )
    if (open_count or 0) >= MAX_OPEN_STATEMENTS:
        raise exc.TooManyStatements(
            f"{player} has {open_count} open statements; sign one or wait for them to expire"
        )
    nonce = secrets.token_hex(16)
    expires = now + STATEMENT_TTL
    row = BindStatement(
        nonce=nonce,
        player=player,
        code=creator.code,
        message=statement_text(
            player=player, code=creator.code, nonce=nonce, issued=now, expires=expires,
            chain_id=chain_id,
        ),
        created_at=now,
        expires_at=expires,
    )  # fmt: skip
    session.add(row)
    session.commit()
    return row


def _check_bind(session: Session, creator: Creator, player: str) -> None:
    if session.get(CreatorBinding, player) is not None:
        raise exc.AlreadyBound(f"{player} is already bound to a creator")
    reason = linked(session=session, creator=creator.address, player=player)
    if reason is not None:
        raise exc.BindRefused(reason)


def bind(
    *,
    session: Session,
    player: str,
    nonce: str,
    signature: str,
    schedule: FeeSchedule,
    now: datetime | None = None,
) -> CreatorBinding:
    """Bind ``player`` to the code of the statement ``nonce``, signed by the player's wallet.

    The statement must be the player's, unused and unexpired; the signature must recover to
    the player over its exact text. The nonce is used up in the same transaction as the
    binding, so a replayed statement binds nothing."""
    player, now = _address(player), now or utcnow()
    if not isinstance(nonce, str) or not re.fullmatch(r"[0-9a-f]{32}", nonce):
        raise exc.BadStatement("unknown statement")
    row = session.get(BindStatement, nonce, with_for_update=True)
    if row is None or row.player != player:
        raise exc.BadStatement("unknown statement")
    if row.used_at is not None:
        raise exc.BadStatement("this statement was used already")
    if aware(row.expires_at) <= now:
        raise exc.BadStatement("this statement expired; ask for a new one")
    try:
        signer = to_checksum_address(recover_signer_bytes(row.message, signature))
    except SignatureError as error:
        raise exc.BadStatement(f"bad signature: {error}") from None
    if signer != player:
        raise exc.BadStatement("the statement was not signed by the player's wallet")
    creator = get_creator(session=session, code=row.code)
    dialect.lock_key(session, BIND_LOCK)
    _check_bind(session, creator, player)
    row.used_at = now
    binding = CreatorBinding(
        player=player,
        code=creator.code,
        creator=creator.address,
        bound_at=now,
        earns_until=now + timedelta(days=schedule.creator_period_days),
        nonce=nonce,
        signature=signature[:132],
    )
    try:
        with session.begin_nested():
            session.add(binding)
            session.flush()
    except IntegrityError:  # a racing bind of the same player won
        raise exc.AlreadyBound(f"{player} is already bound to a creator") from None
    session.commit()
    return binding


def beneficiary(session: Session, player: str, at: datetime) -> str | None:
    """The creator earning from ``player``'s fees at ``at``: bound before, period not over."""
    if not is_address(player):
        return None
    binding = session.get(CreatorBinding, to_checksum_address(player))
    if binding is None or not aware(binding.bound_at) <= aware(at) < aware(binding.earns_until):
        return None
    return binding.creator


def public_view(*, session: Session, code: str) -> dict[str, object]:
    creator = get_creator(session=session, code=code)
    players = session.scalar(select(func.count()).where(CreatorBinding.code == creator.code))
    return {
        "code": creator.code,
        "address": creator.address,
        "players": int(players or 0),
        "created_at": creator.created_at,
    }


def dashboard(*, session: Session, address: str) -> dict[str, object]:
    """A creator's players (with their matches since binding that it earns from) and
    earnings per season."""
    creator = creator_of_wallet(session=session, address=address)
    if creator is None:
        raise exc.CreatorNotFound(f"{address} has no creator code")
    bindings = list(
        session.scalars(
            select(CreatorBinding)
            .where(CreatorBinding.code == creator.code)
            .order_by(CreatorBinding.bound_at)
            .limit(1_000)
        )
    )
    players = []
    for b in bindings:
        # The player's matches its creator earns from (the one rule, ``economy.counts``).
        matches = session.scalar(
            select(func.count()).where(
                SeatRecord.address == b.player,
                SeatRecord.finished_at >= b.bound_at,
                SeatRecord.counted_for(Count.CREATOR_EARNINGS),
            )
        )
        players.append(
            {
                "player": b.player,
                "bound_at": b.bound_at,
                "earns_until": b.earns_until,
                "matches": int(matches or 0),
            }
        )
    rows = session.execute(
        select(PlannedSettlement.season_id, Season.name, LedgerLeg.amount, LedgerLeg.status)
        .join(PlannedSettlement, PlannedSettlement.match_id == LedgerLeg.match_id)
        .outerjoin(Season, Season.id == PlannedSettlement.season_id)
        .where(LedgerLeg.party == CREATOR_PARTY, LedgerLeg.address == creator.address)
    ).all()
    paid: dict[int | None, int] = {}
    pending: dict[int | None, int] = {}
    names: dict[int | None, str | None] = {}
    for season_id, name, amount, status in rows:
        names[season_id] = name
        if status == LegStatus.PAID:
            paid[season_id] = paid.get(season_id, 0) + int(amount)
        elif status == LegStatus.PENDING:
            pending[season_id] = pending.get(season_id, 0) + int(amount)
    order = sorted(names, key=lambda s: (s is None, s or 0))
    return {
        "code": creator.code,
        "address": creator.address,
        "players": players,
        "earnings": [
            {
                "season_id": s,
                "season": names[s],
                "paid": paid.get(s, 0),
                "pending": pending.get(s, 0),
            }
            for s in order
        ],
    }
