"""A player closes its account (seed 000, "Elimination"): the wallet's own words are removed
and every door but a withdrawal is shut for good; what the ledger needs stays.

Refused while anything of the wallet's is still in play or in the vault: a stake balance, a
withdrawal not yet paid, a seat, a matchmaking ticket, a stake held or escrowed for a match
or a tournament not yet settled ("withdraw first": the refusal names what is left). Checked
under the wallet's gate lock (``care:<address>``, the one its deposits and stakes take), so a
deposit or a staked seat cannot slip in between the check and the closure.

Removed: the free text the wallet wrote and the server stored (its reports' notes, its
support messages, its appeals' words, its private messages' text; table talk is never
stored), its friendships, requests and blocks (either way), its table invitations,
the moderator's role, its sign-in time, and every session it holds (signed out at once).
Kept, as the ledger and the audit need them (docs/security.md, "Closing an account"): the
stake, market and reward ledgers, match results and seat records, agreements, terms
acceptances, sanctions (without the appeal's words), limits and breaks, support tickets
(without the player's words) and the closure itself.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete, or_, select, update
from sqlalchemy.orm import Session

from backend.accounts.models import Account, AuthSession, DisplayName
from backend.care import exceptions as care_exc
from backend.care.models import (
    ClosedAccount,
    Moderator,
    Sanction,
    SanctionAudit,
    SupportMessage,
)
from backend.care.standing import wallet
from backend.db import dialect
from backend.db.base import utcnow
from backend.economy import stakes
from backend.friends.models import FriendBlock, FriendMessage, Friendship
from backend.tables.models import EarningHold, MatchmakingTicket, TableInvitation, TableSeat
from backend.tables.moderation.complaints import Complaint


def left_in_play(session: Session, address: str) -> list[str]:
    """What stops the wallet's closure, in words (empty: nothing)."""
    left = []
    balance = stakes.stake_balance(session=session, address=address)
    if balance:
        left.append(f"a stake balance of {balance} DEW wei: withdraw it")
    if stakes.open_withdrawals(session=session, address=address):
        left.append("a withdrawal not yet paid: wait until it is")
    tables = sorted(
        set(session.scalars(select(TableSeat.table_id).where(TableSeat.address == address)))
        | set(session.scalars(select(EarningHold.table_id).where(EarningHold.address == address)))
    )
    if tables:
        left.append(f"a seat at table {', '.join(tables)}: leave it")
    waiting = session.scalar(
        select(MatchmakingTicket.id).where(
            MatchmakingTicket.address == address, MatchmakingTicket.status == "waiting"
        )
    )
    if waiting is not None:
        left.append("a matchmaking ticket: leave the queue")
    for key, amount in sorted(stakes.in_play(session=session, address=address).items()):
        left.append(f"{amount} DEW wei in play under {key}: let it finish or be given back")
    return left


def close_account(*, session: Session, address: str, now: datetime | None = None) -> datetime:
    """Close ``address``'s account; returns when. Committed; refused with nothing written
    (``WithdrawFirst``) while :func:`left_in_play` names anything."""
    address = wallet(address)
    now = now or utcnow()
    dialect.lock_key(session, f"care:{address.lower()}")
    if session.get(ClosedAccount, address) is not None:
        raise care_exc.AccountClosed(f"the account of {address} is already closed")
    left = left_in_play(session, address)
    if left:
        session.rollback()
        raise care_exc.WithdrawFirst(
            "an account is closed with nothing left in play; withdraw first. Left: "
            + "; ".join(left)
        )
    session.add(ClosedAccount(address=address, created_at=now))
    session.execute(
        update(AuthSession)
        .where(AuthSession.address == address, AuthSession.revoked_at.is_(None))
        .values(revoked_at=now)
    )
    session.execute(update(Account).where(Account.address == address).values(last_signin_at=None))
    session.execute(update(Complaint).where(Complaint.reporter == address).values(note=None))
    session.execute(
        update(SupportMessage)
        .where(SupportMessage.author == address, SupportMessage.staff.is_(False))
        .values(body=None)
    )
    session.execute(update(Sanction).where(Sanction.address == address).values(appeal=None))
    session.execute(
        update(SanctionAudit)
        .where(SanctionAudit.actor == address, SanctionAudit.action == "appeal")
        .values(note=None)
    )
    session.execute(update(FriendMessage).where(FriendMessage.sender == address).values(body=None))
    session.execute(
        delete(Friendship).where(or_(Friendship.low == address, Friendship.high == address))
    )
    session.execute(
        delete(FriendBlock).where(
            or_(FriendBlock.blocker == address, FriendBlock.blocked == address)
        )
    )
    session.execute(delete(TableInvitation).where(TableInvitation.address == address))
    session.execute(delete(Moderator).where(Moderator.address == address))
    # The profile: the name shown at tables and on leaderboards goes (free for another).
    session.execute(delete(DisplayName).where(DisplayName.address == address))
    session.commit()
    return now
