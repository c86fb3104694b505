"""A friend's invitation to a table (from the friends list), and the open tables a wallet is
invited to: what ``/friends/.../invitations`` answers."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from backend.accounts import names
from backend.db.base import aware, utcnow
from backend.friends import service as friends
from backend.tables import exceptions as exc
from backend.tables.models import Table, TableInvitation
from backend.tables.service import get_table, invite

LIST_MAX = 500  # invitations listed at once (the routes' ListLimit)


@dataclass(frozen=True)
class Invitation:
    """An open table the wallet is invited to, and who created it."""

    table_id: str
    preset: str
    seat_count: int
    creator: str | None
    creator_name: str | None
    invited_at: datetime


def _invitations(session: Session, rows: list[tuple[datetime, Table]]) -> list[Invitation]:
    """Each (invited at, table) with its creator's display name, in one query for the names."""
    creators = [table.creator for _, table in rows if table.creator]
    named = names.names_of(session=session, addresses=creators)
    return [
        Invitation(
            table_id=table.id,
            preset=table.preset,
            seat_count=table.seat_count,
            creator=table.creator,
            creator_name=named.get(table.creator) if table.creator else None,
            invited_at=aware(at),
        )
        for at, table in rows
    ]


def invite_friend(*, session: Session, table_id: str, by: str, friend: str) -> Invitation:
    """The table's creator invites one of its friends (from the friends list); committed.
    Refused, with nothing written, for a wallet that is not a friend or that blocked it."""
    friend = friends.me(friend)
    friends.require_friends(session, friends.me(by), friend)
    table = get_table(session=session, table_id=table_id)
    if table.status != "open":
        raise exc.TableNotOpen(f"table {table_id} is not open: nobody can take a seat")
    invite(session=session, table_id=table_id, by=by, addresses=[friend])
    row = session.get(TableInvitation, (table_id, friend))  # now, or from an earlier invite
    return _invitations(session, [(row.created_at if row else utcnow(), table)])[0]


def invitations_of(*, session: Session, address: str, limit: int = 50) -> list[Invitation]:
    """The open tables ``address`` is invited to, newest invitation first (at most
    ``limit``); none from a creator it blocked or that blocked it."""
    rows = session.execute(
        select(TableInvitation.created_at, Table)
        .join(Table, Table.id == TableInvitation.table_id)
        .where(TableInvitation.address == address, Table.status == "open")
        .order_by(TableInvitation.created_at.desc())
        .limit(max(1, min(limit, LIST_MAX)))
    ).all()
    hidden = friends.blocked_with(session, address)
    return _invitations(session, [(at, t) for at, t in rows if t.creator not in hidden])
