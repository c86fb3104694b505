"""Friends and private messages (``/friends``): the wallet's lists, requests by name or
address, accept, refuse, remove, block; one-to-one messages between friends, in pages, and
the report of one received; invitations of a friend to a table, and the tables the wallet
is invited to.

Every route acts for the bearer's wallet only (a guest has no friends). Every refusal is the
services' (``backend.friends``, ``backend.tables``): blocked either way, not friends, the
gate's mute, the rates.
"""

from __future__ import annotations

from fastapi import APIRouter

from backend.api.deps import CurrentPlayer, SessionDep, SettingsDep
from backend.api.params import AddressPath, Before, Id31, ListLimit, error_responses, out_of
from backend.friends import service as friends
from backend.friends.schemas import (
    CircleOut,
    ConversationOut,
    FriendOut,
    InvitationOut,
    InviteIn,
    MessageIn,
    MessageOut,
    RequestIn,
)
from backend.tables import invitations as tables
from backend.tables.moderation import complaints
from backend.tables.schemas import ComplaintOut, MessageReportIn

router = APIRouter(prefix="/friends", tags=["friends"])
_ERRORS = error_responses(401, 403, 404, 409, 422)
_CAPPED = error_responses(401, 403, 404, 409, 422, 429)


@router.get("", response_model=CircleOut, responses=_ERRORS)
def my_friends(session: SessionDep, player: CurrentPlayer, limit: ListLimit = 200) -> CircleOut:
    """Your friends, the requests to you and from you, and the wallets you blocked (each
    newest first, at most ``limit``)."""
    found = friends.circle(session=session, address=player.address, limit=limit)
    return CircleOut(
        **{
            part: [out_of(FriendOut, f) for f in getattr(found, part)]
            for part in ("friends", "incoming", "outgoing", "blocked")
        }
    )


@router.post("/requests", response_model=FriendOut, status_code=201, responses=_CAPPED)
def ask(
    body: RequestIn, session: SessionDep, player: CurrentPlayer, settings: SettingsDep
) -> FriendOut:
    """Ask a player, by display name or address, to be friends (their own request to you is
    accepted instead)."""
    row = friends.request(
        session=session,
        address=player.address,
        who=body.who,
        per_day=settings.talk.friend_requests_per_day,
    )
    return out_of(FriendOut, row)


@router.post("/requests/{address}/accept", response_model=FriendOut, responses=_ERRORS)
def accept(address: AddressPath, session: SessionDep, player: CurrentPlayer) -> FriendOut:
    row = friends.accept(session=session, address=player.address, other=address)
    return out_of(FriendOut, row)


@router.post("/requests/{address}/refuse", status_code=204, responses=_ERRORS)
def refuse(address: AddressPath, session: SessionDep, player: CurrentPlayer) -> None:
    friends.refuse(session=session, address=player.address, other=address)


@router.delete("/{address}", status_code=204, responses=_ERRORS)
def remove(address: AddressPath, session: SessionDep, player: CurrentPlayer) -> None:
    """End a friendship, or withdraw your request."""
    friends.remove(session=session, address=player.address, other=address)


@router.put("/blocks/{address}", status_code=204, responses=_ERRORS)
def block(address: AddressPath, session: SessionDep, player: CurrentPlayer) -> None:
    """Block a wallet: your friendship or request goes, and nothing passes between you two."""
    friends.block(session=session, address=player.address, other=address)


@router.delete("/blocks/{address}", status_code=204, responses=_ERRORS)
def unblock(address: AddressPath, session: SessionDep, player: CurrentPlayer) -> None:
    friends.unblock(session=session, address=player.address, other=address)


@router.get("/{address}/messages", response_model=ConversationOut, responses=_ERRORS)
def conversation(
    address: AddressPath,
    session: SessionDep,
    player: CurrentPlayer,
    limit: ListLimit = 50,
    before: Before = None,
) -> ConversationOut:
    """The messages between you and ``address``, newest first, a page at a time."""
    rows = friends.conversation(
        session=session, address=player.address, other=address, limit=limit, before=before
    )
    return ConversationOut(
        messages=[out_of(MessageOut, m) for m in rows],
        next_before=rows[-1].id if len(rows) == limit else None,
    )


@router.post("/{address}/messages", response_model=MessageOut, status_code=201, responses=_CAPPED)
def write(
    address: AddressPath,
    body: MessageIn,
    session: SessionDep,
    player: CurrentPlayer,
    settings: SettingsDep,
) -> MessageOut:
    """Write to a friend (refused to anyone else, and while your talk is muted)."""
    row = friends.send(
        session=session,
        address=player.address,
        other=address,
        text=body.text,
        per_minute=settings.talk.friend_messages_per_minute,
        per_day=settings.talk.friend_messages_per_day,
    )
    return out_of(MessageOut, row)


@router.post(
    "/messages/{message_id}/report", response_model=ComplaintOut, status_code=201, responses=_CAPPED
)
def report(
    message_id: Id31,
    body: MessageReportIn,
    session: SessionDep,
    player: CurrentPlayer,
    settings: SettingsDep,
) -> ComplaintOut:
    """Report a message sent to you; the moderators read it with your report."""
    row = complaints.report_message(
        session=session,
        reporter=player.address,
        message_id=message_id,
        reason=body.reason,
        note=body.note,
        per_day=settings.talk.reports_per_day,
    )
    return out_of(ComplaintOut, row)


@router.post(
    "/{address}/invitations", response_model=InvitationOut, status_code=201, responses=_ERRORS
)
def invite(
    address: AddressPath, body: InviteIn, session: SessionDep, player: CurrentPlayer
) -> InvitationOut:
    """Invite a friend to a table you created; they see it under ``GET
    /friends/invitations``."""
    row = tables.invite_friend(
        session=session, table_id=body.table_id, by=player.address, friend=address
    )
    return out_of(InvitationOut, row)


@router.get("/invitations", response_model=list[InvitationOut], responses=_ERRORS)
def invitations(
    session: SessionDep, player: CurrentPlayer, limit: ListLimit = 50
) -> list[InvitationOut]:
    """The open tables you are invited to, newest first."""
    rows = tables.invitations_of(session=session, address=player.address, limit=limit)
    return [out_of(InvitationOut, r) for r in rows]
