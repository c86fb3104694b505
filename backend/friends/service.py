"""Friends and private messages (seed 000, "Private Messaging"; seed 003 asks players to
share the game with friends).

A wallet asks another, found by display name or address, to be friends; the other accepts
or refuses; either removes the friendship; either blocks the other, which removes their
friendship and any request and lets nothing pass again, either way: no request, message or
invitation, and neither sees the other in its lists. One answer (``NotReachable``) refuses
both directions, so a wallet is not told which of the two blocked.

Messages go between friends only. Their text is cleaned as talk, reports and tickets are
(``backend.kit.text``) and bounded; the one gate (``backend.care.standing``) refuses a wallet
whose talk is closed (muted, suspended, banned, closed account) at the same door as table
talk; a wallet writes at most ``TalkSettings.friend_messages_per_minute`` messages a minute
and ``friend_messages_per_day`` a day, and sends at most ``friend_requests_per_day`` requests
a day with at most ``PENDING_MAX`` waiting, each cap counted under the wallet's lock
(``dialect.count_locked``: the same count reports and tickets use) so that
parallel writes cannot pass it together. Every list is bounded by a count.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from eth_utils.address import is_address, to_checksum_address
from sqlalchemy import ColumnElement, and_, delete, func, or_, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from backend.accounts import names
from backend.accounts.models import Account, DisplayName
from backend.care import standing
from backend.care.standing import Door
from backend.db import dialect
from backend.db.base import aware, utcnow
from backend.friends import exceptions as exc
from backend.friends.models import MESSAGE_MAX_CHARS, FriendBlock, FriendMessage, Friendship
from backend.kit.guests import is_guest_address
from backend.kit.text import clean_text

PENDING_MAX = 50  # requests one wallet has waiting at once
LIST_MAX = 500  # friends, requests or blocks listed at once
PAGE_MAX = 500  # messages of a conversation per page (the routes' ListLimit)
WHO_MAX_CHARS = 42  # a display name (20) or an address (42)


@dataclass(frozen=True)
class Friend:
    """Another wallet in one's lists: its name if it has one, since when."""

    address: str
    name: str | None
    since: datetime


@dataclass(frozen=True)
class Circle:
    """A wallet's lists: friends, requests to it and from it, the wallets it blocked."""

    friends: list[Friend]
    incoming: list[Friend]
    outgoing: list[Friend]
    blocked: list[Friend]


@dataclass(frozen=True)
class Message:
    id: int
    sender: str
    recipient: str
    body: str | None
    created_at: datetime


def me(address: str) -> str:
    """The caller's wallet, checksummed; a guest has no friends."""
    if is_guest_address(address):
        raise exc.GuestNotAllowed("friends and messages are between wallets: connect yours")
    return standing.wallet(address)


def pair(a: str, b: str) -> tuple[str, str]:
    """The two wallets in the order a pair is stored in."""
    return (a, b) if a.lower() <= b.lower() else (b, a)


def _the_pair(model: type[Friendship] | type[FriendMessage], a: str, b: str) -> ColumnElement[bool]:
    low, high = pair(a, b)
    return and_(model.low == low, model.high == high)


def find_player(session: Session, who: str) -> str:
    """The wallet ``who`` names: an address, or a display name (as names compare: case,
    accents and look-alikes folded). Only a wallet that signed in here is found."""
    text = clean_text(who) if isinstance(who, str) else ""
    if not text or len(text) > WHO_MAX_CHARS:
        raise exc.InvalidFriends(f"name a player by its name or address, not {who!r:.60}")
    address: str | None
    if text.lower().startswith("0x") and is_address(text):
        address = to_checksum_address(text)
    else:
        address = session.scalar(
            select(DisplayName.address).where(DisplayName.name_key == names.name_key(text))
        )
    if address is None or is_guest_address(address) or session.get(Account, address) is None:
        raise exc.PlayerNotFound(f"no player {text!r:.60} here")
    return address


def blocked_between(session: Session, a: str, b: str) -> bool:
    """Did either of the two block the other?"""
    either = or_(
        and_(FriendBlock.blocker == a, FriendBlock.blocked == b),
        and_(FriendBlock.blocker == b, FriendBlock.blocked == a),
    )
    return session.scalar(select(FriendBlock.blocker).where(either).limit(1)) is not None


def blocked_with(session: Session, address: str) -> set[str]:
    """The wallets ``address`` blocked or that blocked it, in one query: what a list of
    other wallets is filtered by."""
    rows = session.execute(
        select(FriendBlock.blocker, FriendBlock.blocked).where(
            or_(FriendBlock.blocker == address, FriendBlock.blocked == address)
        )
    )
    return {blocked if blocker == address else blocker for blocker, blocked in rows}


def _friendship(session: Session, a: str, b: str, *, lock: bool = False) -> Friendship | None:
    query = select(Friendship).where(_the_pair(Friendship, a, b))
    return session.scalar(dialect.for_update(session, query) if lock else query)


def require_friends(session: Session, address: str, other: str) -> None:
    """Refuse unless the two are friends and neither blocked the other."""
    if blocked_between(session, address, other):
        raise exc.NotReachable("you cannot reach this player")
    row = _friendship(session, address, other)
    if row is None or row.status != "friends":
        raise exc.NotFriends("messages and invitations go to your friends only")


def request(*, session: Session, address: str, who: str, per_day: int) -> Friend:
    """Ask ``who`` to be friends; committed. A request the other already sent is accepted
    instead. Returns the other, as the caller's lists will show it."""
    address = me(address)
    other = find_player(session, who)
    if other == address:
        raise exc.InvalidFriends("you cannot befriend yourself")
    if blocked_between(session, address, other):
        raise exc.NotReachable("you cannot reach this player")
    sent = dialect.count_locked(
        session,
        f"friends:{address.lower()}",
        Friendship.created_at,
        utcnow() - timedelta(days=1),
        Friendship.requester == address,
    )
    existing = _friendship(session, address, other, lock=True)
    if existing is not None:
        if existing.status == "friends":
            raise exc.AlreadyFriends("you are friends already")
        if existing.requester == address:
            raise exc.AlreadyRequested("your request waits for an answer")
        return _accept(session, existing, address, other)
    if sent >= per_day:
        raise exc.TooManyFriendRequests(f"at most {per_day} friend requests in 24 hours")
    waiting = session.scalar(
        select(func.count()).where(Friendship.requester == address, Friendship.status == "pending")
    )
    if (waiting or 0) >= PENDING_MAX:
        raise exc.TooManyFriendRequests(f"at most {PENDING_MAX} requests waiting at once")
    low, high = pair(address, other)
    now = utcnow()
    session.add(Friendship(low=low, high=high, requester=address, status="pending", created_at=now))
    try:
        session.flush()
    except IntegrityError:  # the other's request, or ours, committed in between
        session.rollback()
        raise exc.AlreadyRequested("a request between you two was just sent") from None
    session.commit()
    return _one(session, other, now)


def _one(session: Session, other: str, since: datetime) -> Friend:
    return Friend(
        address=other,
        name=names.names_of(session=session, addresses=[other]).get(other),
        since=aware(since),
    )


def _accept(session: Session, row: Friendship, address: str, other: str) -> Friend:
    now = utcnow()
    row.status, row.accepted_at = "friends", now
    session.flush()
    friend = _one(session, other, now)
    session.commit()
    return friend


def _incoming(session: Session, address: str, other: str) -> Friendship:
    other = standing.wallet(other)
    row = _friendship(session, address, other, lock=True)
    if row is None or row.status != "pending" or row.requester != other:
        raise exc.FriendNotFound(f"no request from {other} to you")
    return row


def accept(*, session: Session, address: str, other: str) -> Friend:
    """Accept ``other``'s request; committed."""
    address = me(address)
    row = _incoming(session, address, other)
    return _accept(session, row, address, row.requester)


def refuse(*, session: Session, address: str, other: str) -> None:
    """Refuse ``other``'s request (it may ask again); committed."""
    address = me(address)
    session.delete(_incoming(session, address, other))
    session.commit()


def remove(*, session: Session, address: str, other: str) -> None:
    """End a friendship, or withdraw one's own request; committed."""
    address, other = me(address), standing.wallet(other)
    row = _friendship(session, address, other, lock=True)
    if row is None or (row.status == "pending" and row.requester != address):
        raise exc.FriendNotFound(f"no friendship or request of yours with {other}")
    session.delete(row)
    session.commit()


def block(*, session: Session, address: str, other: str) -> None:
    """Block ``other``: their friendship or request goes, nothing passes again; committed.
    Blocking twice changes nothing."""
    address, other = me(address), standing.wallet(other)
    if other == address:
        raise exc.InvalidFriends("you cannot block yourself")
    session.execute(delete(Friendship).where(_the_pair(Friendship, address, other)))
    if session.get(FriendBlock, (address, other)) is None:
        session.add(FriendBlock(blocker=address, blocked=other, created_at=utcnow()))
    try:
        session.flush()
    except IntegrityError:  # the same block, committed in between
        session.rollback()
        return
    session.commit()


def unblock(*, session: Session, address: str, other: str) -> None:
    """Lift one's own block of ``other``; committed."""
    address, other = me(address), standing.wallet(other)
    row = session.get(FriendBlock, (address, other))
    if row is None:
        raise exc.FriendNotFound(f"you did not block {other}")
    session.delete(row)
    session.commit()


def circle(*, session: Session, address: str, limit: int = LIST_MAX) -> Circle:
    """The wallet's friends, requests to it and from it, and the wallets it blocked, each
    newest first and at most ``limit`` long."""
    address = me(address)
    limit = max(1, min(limit, LIST_MAX))
    mine = or_(Friendship.low == address, Friendship.high == address)

    def rows(*where: ColumnElement[bool]) -> list[Friendship]:
        query = select(Friendship).where(mine, *where).order_by(Friendship.id.desc())
        return list(session.scalars(query.limit(limit)))

    friends = rows(Friendship.status == "friends")
    incoming = rows(Friendship.status == "pending", Friendship.requester != address)
    outgoing = rows(Friendship.status == "pending", Friendship.requester == address)
    blocks = list(
        session.scalars(
            select(FriendBlock)
            .where(FriendBlock.blocker == address)
            .order_by(FriendBlock.created_at.desc())
            .limit(limit)
        )
    )

    def other(row: Friendship) -> str:
        return row.high if row.low == address else row.low

    everyone = [other(r) for r in friends + incoming + outgoing] + [b.blocked for b in blocks]
    named = names.names_of(session=session, addresses=everyone)

    def listed(found: list[tuple[str, datetime]]) -> list[Friend]:
        return [Friend(address=a, name=named.get(a), since=aware(at)) for a, at in found]

    return Circle(
        friends=listed([(other(r), r.accepted_at or r.created_at) for r in friends]),
        incoming=listed([(other(r), r.created_at) for r in incoming]),
        outgoing=listed([(other(r), r.created_at) for r in outgoing]),
        blocked=listed([(b.blocked, b.created_at) for b in blocks]),
    )


def _message(row: FriendMessage) -> Message:
    return Message(
        id=row.id,
        sender=row.sender,
        recipient=row.recipient,
        body=row.body,
        created_at=aware(row.created_at),
    )


def send(
    *,
    session: Session,
    address: str,
    other: str,
    text: str,
    per_minute: int,
    per_day: int,
) -> Message:
    """``address`` writes to its friend ``other``; committed. Refused, with nothing written,
    to a wallet that is not a friend or that blocked it (or it blocked), to a wallet the
    gate keeps from talking, and over the rate."""
    words = clean_text(text) if isinstance(text, str) else ""
    if not words or len(words) > MESSAGE_MAX_CHARS:
        raise exc.InvalidFriends(f"a message is 1 to {MESSAGE_MAX_CHARS} characters")
    address, other = me(address), standing.wallet(other)
    standing.require(session, address, Door.TALK)
    require_friends(session, address, other)
    lock = f"friend-messages:{address.lower()}"
    now = utcnow()
    mine = FriendMessage.sender == address
    recent = dialect.count_locked(
        session, lock, FriendMessage.created_at, now - timedelta(minutes=1), mine
    )
    if recent >= per_minute:
        raise exc.TooManyMessages(f"at most {per_minute} messages a minute: wait a moment")
    today = dialect.count_locked(
        session, lock, FriendMessage.created_at, now - timedelta(days=1), mine
    )
    if today >= per_day:
        raise exc.TooManyMessages(f"at most {per_day} messages in 24 hours: try later")
    low, high = pair(address, other)
    row = FriendMessage(
        sender=address, recipient=other, low=low, high=high, body=words, created_at=now
    )
    session.add(row)
    session.flush()
    message = _message(row)
    session.commit()
    return message


def conversation(
    *, session: Session, address: str, other: str, limit: int = 50, before: int | None = None
) -> list[Message]:
    """The messages between the two, newest first: at most ``limit``, those older than the
    message ``before`` when it is given (the page after one that ended with it)."""
    address, other = me(address), standing.wallet(other)
    query = select(FriendMessage).where(_the_pair(FriendMessage, address, other))
    if before is not None:
        query = query.where(FriendMessage.id < before)
    query = query.order_by(FriendMessage.id.desc()).limit(max(1, min(limit, PAGE_MAX)))
    return [_message(m) for m in session.scalars(query)]


def received(session: Session, address: str, message_id: int) -> FriendMessage:
    """A message sent to ``address`` (what it may report); another's is not found."""
    row = session.get(FriendMessage, message_id)
    if row is None or row.recipient != me(address):
        raise exc.FriendNotFound(f"no message {message_id} to you")
    return row
