"""Table talk over the play socket: quick-chat phrases and emotes, optional free text, mute.

Only a seated player talks; spectators see what the seats say (after the table's spectator
delay, like the moves) but cannot talk. Talk is a fixed catalogue of ids unless the
deployment allows free text (``TalkSettings.free_text``), which is cleaned of control
characters and bounded in length. Each seat of a table has one talk budget (``TalkBudget``),
on top of each socket's message limit: the sockets a wallet opens for its seat, one after
another or at once, on this process or another, share it; it outlives the table's cache (a
table nobody watches is forgotten and reloaded), and with several processes it lives in the
same store as the HTTP edge's budgets (Redis). Mutes belong to the socket that asked: a
muted seat's talk is never sent to it. Nothing of it is stored: talk lives only in the
sockets it is sent to.

With several server processes (``DEW_SERVER_REDIS_URL``) the speaker's process delivers the
talk to its own sockets of the table and relays it over the Redis bus
(``backend.tables.live.bus``); every other process hosting the table delivers it to its sockets
(``heard``), with the same mutes and spectator delay. A bus message is checked like a
client's talk (known table and seat, catalogue ids, the free-text rules of the receiving
process) before anything is delivered.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from limits import RateLimitItemPerSecond
from limits.aio.storage import MemoryStorage, Storage
from limits.aio.strategies import MovingWindowRateLimiter
from sqlalchemy.orm import Session, sessionmaker

from backend.care import standing
from backend.care.standing import Door
from backend.config import TalkSettings
from backend.kit.text import clean_text
from backend.protocol import messages as protocol
from backend.tables import exceptions as exc
from backend.tables.live.connections import Conn, encode
from backend.tables.live.state import LiveTable

_PHRASES = frozenset(protocol.TALK_PHRASES)
_EMOTES = frozenset(protocol.TALK_EMOTES)
_RELAYED_KEYS = frozenset(("table_id", "seat", "phrase", "emote", "text", "at_ms"))
# A relayed talk said longer ago (or later) than this is not delivered.
_RELAY_SKEW_MS = 60_000

log = logging.getLogger(__name__)

Relay = Callable[[dict[str, Any]], None]


@dataclass
class Listener:
    """One socket's talk state: the seats it muted."""

    muted: set[int] = field(default_factory=set)


def listener(conn: Conn) -> Listener:
    if conn.talk is None:
        conn.talk = Listener()
    talk: Listener = conn.talk
    return talk


class TalkBudget:
    """Talk's budget per (table, seat): at most ``rate_burst`` talk messages in any
    ``rate_burst / rate_per_s`` seconds (a burst, then ``rate_per_s`` on average).

    Kept in ``storage`` when the processes share one (Redis, the HTTP edge's budgets'
    store: one budget for all of them), else in this process's memory; a store that does
    not answer falls back to this process's memory, so talk stays bounded. Spectators do
    not talk, so there is no budget per spectator."""

    def __init__(self, settings: TalkSettings, storage: Storage | None = None) -> None:
        window = max(1, math.ceil(settings.rate_burst / settings.rate_per_s))
        self.item = RateLimitItemPerSecond(settings.rate_burst, window)
        self.local = MovingWindowRateLimiter(MemoryStorage())
        self.shared = MovingWindowRateLimiter(storage) if storage is not None else None

    async def take(self, table_id: str, seat: int) -> bool:
        """Spend one talk message of the seat's budget; False when it is spent."""
        if self.shared is not None:
            try:
                return await self.shared.hit(self.item, "talk", table_id, str(seat))
            except Exception:
                log.warning("talk_budget_storage_unavailable", exc_info=True)
        return await self.local.hit(self.item, "talk", table_id, str(seat))


def check(message: dict[str, Any], settings: TalkSettings) -> tuple[str | None, ...]:
    """``(phrase, emote, text)`` of a talk message, exactly one of them set; or refused."""
    given = {k: message.get(k) for k in ("phrase", "emote", "text") if message.get(k) is not None}
    if len(given) != 1:
        raise exc.InvalidTalk("a talk message carries exactly one of phrase, emote or text")
    ((kind, value),) = given.items()
    if not isinstance(value, str):
        raise exc.InvalidTalk(f"{kind} must be a string")
    if kind == "phrase":
        if value not in _PHRASES:
            raise exc.InvalidTalk(f"unknown phrase {value!r:.40}")
        return value, None, None
    if kind == "emote":
        if value not in _EMOTES:
            raise exc.InvalidTalk(f"unknown emote {value!r:.40}")
        return None, value, None
    if not settings.free_text:
        raise exc.FreeTextOff("free text is off at this server: use a phrase or an emote")
    limit = settings.free_text_max_chars
    if len(value) > 4 * limit:  # refused before any work on it
        raise exc.InvalidTalk(f"text is limited to {limit} characters")
    text = clean_text(value)
    if not text:
        raise exc.InvalidTalk("the text is empty once control characters are removed")
    if len(text) > limit:
        raise exc.InvalidTalk(f"text is limited to {limit} characters")
    return None, None, text


async def say(
    lt: LiveTable,
    conn: Conn,
    message: dict[str, Any],
    settings: TalkSettings,
    budget: TalkBudget,
    relay: Relay | None = None,
    sessions: sessionmaker[Session] | None = None,
) -> None:
    """Deliver a seat's talk to the table's sockets that did not mute it (the speaker's own
    sockets included: that is its confirmation), and hand it to ``relay`` (the Redis bus)
    for the table's sockets on other processes."""
    if conn.seat is None:
        raise exc.Forbidden("spectators watch: only seated players talk")
    seat = conn.seat
    if sessions is not None and conn.address is not None:
        # The one gate: a muted, suspended or banned wallet's talk is refused (a read in a
        # worker thread, never on the event loop).
        await asyncio.to_thread(_may_talk, sessions, conn.address)
    if not await budget.take(lt.table_id, seat):
        raise exc.TalkRateLimited(
            f"at most {settings.rate_per_s:g} talk messages/s (bursts of {settings.rate_burst})"
        )
    phrase, emote, text = check(message, settings)
    at_ms = int(time.time() * 1000)
    _deliver(lt, seat, protocol.talk(seat=seat, phrase=phrase, emote=emote, text=text, at_ms=at_ms))
    if relay is not None:
        relay(
            {
                "table_id": lt.table_id,
                "seat": seat,
                "phrase": phrase,
                "emote": emote,
                "text": text,
                "at_ms": at_ms,
            }
        )


def _may_talk(sessions: sessionmaker[Session], address: str) -> None:
    with sessions() as session:
        standing.require(session, address, Door.TALK)


def heard(tables: dict[str, LiveTable], relayed: object, settings: TalkSettings) -> bool:
    """Deliver a talk another process relayed over the bus to this process's sockets of the
    table; ``False`` (and nothing delivered) for a table not hosted here or a message that
    is not a talk a seated client could have sent."""
    try:
        lt, seat, said, at_ms = _relayed(tables, relayed, settings)
    except exc.TablesError as refused:
        log.warning("relayed talk dropped: %s", refused.message)
        return False
    if lt is None:
        return False
    phrase, emote, text = said
    _deliver(lt, seat, protocol.talk(seat=seat, phrase=phrase, emote=emote, text=text, at_ms=at_ms))
    return True


def _relayed(
    tables: dict[str, LiveTable], relayed: object, settings: TalkSettings
) -> tuple[LiveTable | None, int, tuple[str | None, ...], int]:
    if not isinstance(relayed, dict) or not set(relayed) <= _RELAYED_KEYS:
        raise exc.InvalidTalk("not a talk object")
    table_id, seat, at_ms = relayed.get("table_id"), relayed.get("seat"), relayed.get("at_ms")
    if not isinstance(table_id, str) or len(table_id) > 64:
        raise exc.InvalidTalk("bad table id")
    lt = tables.get(table_id)
    if lt is None:
        return None, 0, (), 0
    if not isinstance(seat, int) or isinstance(seat, bool):
        raise exc.InvalidTalk("seat must be an integer")
    if not any(s.get("seat") == seat and s.get("address") for s in lt.seats):
        raise exc.InvalidTalk(f"no player in seat {seat} at table {table_id}")
    if not isinstance(at_ms, int) or isinstance(at_ms, bool):
        raise exc.InvalidTalk("at_ms must be an integer")
    if abs(at_ms - time.time() * 1000) > _RELAY_SKEW_MS:
        raise exc.InvalidTalk("at_ms is not now")
    said = check({k: relayed.get(k) for k in ("phrase", "emote", "text")}, settings)
    # Free text arrives cleaned: text that cleaning would change was not cleaned by us.
    if said[2] is not None and said[2] != relayed.get("text"):
        raise exc.InvalidTalk("text is not clean")
    return lt, seat, said, at_ms


def _deliver(lt: LiveTable, seat: int, message: dict[str, Any]) -> None:
    """Send one talk to the table's sockets here, minus those that muted the seat;
    spectators after the table's spectator delay."""
    out = encode(message)
    delay = float(lt.table.get("spectator_delay_s") or 0.0)
    for other in lt.watchers.all():
        muted = other.talk is not None and seat in other.talk.muted
        if muted:
            continue
        if other.seat is None and delay > 0:
            other.push_later(delay, out)
        else:
            other.push(out)


def mute(lt: LiveTable, conn: Conn, message: dict[str, Any]) -> None:
    """Mute or unmute a seat for this socket; answers with the socket's muted seats."""
    seat, on = message.get("seat"), message.get("muted")
    if not isinstance(seat, int) or isinstance(seat, bool):
        raise exc.InvalidRequest("seat must be an integer")
    if not isinstance(on, bool):
        raise exc.InvalidRequest("muted must be true or false")
    seat_count = int(lt.table.get("seat_count") or 0)
    if not 0 <= seat < seat_count:
        raise exc.InvalidRequest(f"no seat {seat} at this table (0 to {seat_count - 1})")
    if seat == conn.seat:
        raise exc.InvalidRequest("you cannot mute your own seat")
    state = listener(conn)
    if on:
        state.muted.add(seat)
    else:
        state.muted.discard(seat)
    conn.push(encode(protocol.muted(seats=sorted(state.muted))))
