"""The shapes of ``/friends``: a wallet's lists, a request, a message and a page of a
conversation, a report of a message, an invitation to a table."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field

from backend.friends.models import MESSAGE_MAX_CHARS
from backend.friends.service import WHO_MAX_CHARS
from backend.kit.schemas import StrictIn


class FriendOut(BaseModel):
    address: str
    name: str | None = Field(description="the display name; null: none chosen")
    since: datetime = Field(description="friends since, asked at, or blocked at")


class CircleOut(BaseModel):
    friends: list[FriendOut]
    incoming: list[FriendOut] = Field(description="requests waiting for your answer")
    outgoing: list[FriendOut] = Field(description="your requests waiting for an answer")
    blocked: list[FriendOut] = Field(description="the wallets you blocked")


class RequestIn(StrictIn):
    # Bounded before it is read: the service cleans it, then reads it as an address or a name.
    who: str = Field(min_length=1, max_length=4 * WHO_MAX_CHARS, description="name or address")


class MessageIn(StrictIn):
    # The service counts characters once the text is cleaned; this bounds the raw body first.
    text: str = Field(min_length=1, max_length=4 * MESSAGE_MAX_CHARS)


class MessageOut(BaseModel):
    id: int
    sender: str
    recipient: str
    body: str | None = Field(description="null: removed when its author closed its account")
    created_at: datetime


class ConversationOut(BaseModel):
    messages: list[MessageOut] = Field(description="newest first")
    next_before: int | None = Field(
        description="pass as ?before= for the older messages; null: no more"
    )


class InviteIn(StrictIn):
    table_id: str = Field(pattern=r"^[0-9a-f]{32}$")


class InvitationOut(BaseModel):
    table_id: str
    preset: str
    seat_count: int
    creator: str | None
    creator_name: str | None
    invited_at: datetime
