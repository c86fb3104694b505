"""The sockets of live tables as the hub sees them: outboxes, who watches a table, fan-out,
and the per-connection limits.

A socket's own reading and writing (Starlette) stays in ``backend.api.ws``: here a
connection is only a bounded outbox that the socket's writer drains, so nothing in
``backend.tables`` depends on the web framework.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections import Counter
from typing import Any

import orjson

from backend.kit.mailbox import Mailbox
from backend.protocol.messages import CLOSE_NORMAL

log = logging.getLogger(__name__)


def encode(message: dict[str, Any]) -> str:
    """A protocol message (built by ``backend.protocol.messages``) as compact JSON text
    (orjson: this runs five times per move)."""
    try:
        return orjson.dumps(message).decode()
    except orjson.JSONEncodeError:  # e.g. an int beyond 64 bits in a record: rare, not hot
        return json.dumps(message, separators=(",", ":"))


class Conn(Mailbox[str | None]):
    """One WebSocket as the hub sees it: a bounded outbox (a :class:`Mailbox`) that the
    socket's writer drains."""

    __slots__ = (
        "address",
        "close_code",
        "closed",
        "delayed",
        "max_queue",
        "overflowed",
        "seat",
        "table_id",
        "talk",
    )

    def __init__(self, address: str | None, max_queue: int = 512) -> None:
        super().__init__()
        self.address = address
        self.seat: int | None = None
        self.table_id: str | None = None
        self.talk: Any = None  # backend.tables.live.talk.Listener, made at its first talk or mute
        self.max_queue = max_queue
        self.overflowed = False
        self.closed = False
        self.close_code = CLOSE_NORMAL
        # Messages held back by the spectator delay: cancelled when the socket goes, so a
        # gone spectator leaves nothing behind.
        self.delayed: list[asyncio.TimerHandle] = []

    def push(self, text: str) -> None:
        if self.overflowed or self.closed:
            return
        if len(self._pending) >= self.max_queue:
            # A client that does not read is cut off; it can reconnect and resync.
            self.overflowed = True
            log.warning("closing slow connection of %s", self.address)
            self._pending.clear()
            self._pending.append(None)
        else:
            self._pending.append(text)
        self._wake()

    def push_later(self, delay: float, text: str) -> None:
        """``push`` after ``delay`` seconds (the spectator delay)."""
        if self.closed:
            return
        now = asyncio.get_running_loop().time()
        if len(self.delayed) >= 64:
            self.delayed = [h for h in self.delayed if h.when() > now and not h.cancelled()]
        self.delayed.append(asyncio.get_running_loop().call_later(delay, self.push, text))

    def close(self, code: int = CLOSE_NORMAL) -> None:
        """Ask the writer to close the socket after what is already queued."""
        if self.closed:
            return
        self.closed = True
        self.close_code = code
        for handle in self.delayed:
            handle.cancel()
        self.delayed.clear()
        if len(self._pending) >= self.max_queue:
            self.overflowed = True
            self._pending.clear()
        self._pending.append(None)
        self._wake()

    async def drain(self) -> list[str | None]:
        """Everything queued (waiting for at least one message); ``None`` means close."""
        await self._wait()
        batch = list(self._pending)
        self._pending.clear()
        return batch


class Watchers:
    """The sockets of one hosted table: each seat's (a wallet may have several) and the
    spectators'. A connection is filed by its ``seat`` (None: a spectator)."""

    __slots__ = ("seats", "spectators")

    def __init__(self) -> None:
        self.seats: dict[int, set[Conn]] = {}
        self.spectators: set[Conn] = set()

    def __bool__(self) -> bool:
        return any(self.seats.values()) or bool(self.spectators)

    def all(self) -> list[Conn]:
        return [c for conns in self.seats.values() for c in conns] + list(self.spectators)

    def add(self, conn: Conn) -> None:
        if conn.seat is None:
            self.spectators.add(conn)
        else:
            self.seats.setdefault(conn.seat, set()).add(conn)

    def discard(self, conn: Conn) -> None:
        self.spectators.discard(conn)
        if conn.seat is not None:
            self.seats.get(conn.seat, set()).discard(conn)

    def reseat(self, conn: Conn, seat: int | None) -> None:
        """File ``conn`` under ``seat`` (a spectator whose wallet was just seated, and back)."""
        if seat == conn.seat:
            return
        self.discard(conn)
        conn.seat = seat
        self.add(conn)

    def watched_seats(self) -> list[int]:
        """The seats with at least one socket."""
        return [s for s, conns in self.seats.items() if conns]

    def push_seat(self, seat: int, text: str) -> None:
        for conn in self.seats[seat]:
            conn.push(text)

    def push_spectators(self, text: str, delay: float) -> None:
        """``text`` to every spectator, ``delay`` seconds later if there is a delay."""
        for conn in self.spectators:
            if delay > 0:
                conn.push_later(delay, text)
            else:
                conn.push(text)

    def push_everyone(self, text: str, spectator_delay: float) -> None:
        """``text`` to every seat now, and to the spectators after their delay."""
        for conns in self.seats.values():
            for conn in conns:
                conn.push(text)
        self.push_spectators(text, spectator_delay)


class SocketCaps:
    """The caps on one process's table sockets (``SocketSettings``): spectators per client
    address and per table, and sockets per seat. A seated wallet's sockets never count
    against the spectators' caps, so a table full of watchers, or an address whose sockets
    someone else filled (a shared network), never keeps a player from its seat."""

    def __init__(self, per_address: int, per_table: int, per_seat: int) -> None:
        self.per_address = per_address
        self.per_table = per_table
        self.per_seat = per_seat
        self.by_address: Counter[str] = Counter()

    def spectators_full(self, client: str, watchers: Watchers | None) -> str | None:
        """Why one more spectator from ``client`` would be refused (None: it would not)."""
        if self.by_address[client] >= self.per_address:
            return (
                f"at most {self.per_address} sockets watch tables from one client address at once"
            )
        if watchers is not None and len(watchers.spectators) >= self.per_table:
            return f"at most {self.per_table} spectators watch one table at once"
        return None

    def admit(self, client: str, conn: Conn, watchers: Watchers) -> str | None:
        """Count ``conn`` (already filed in ``watchers``) in, or say why it is refused."""
        if conn.seat is not None:
            if len(watchers.seats.get(conn.seat, ())) > self.per_seat:
                return f"at most {self.per_seat} sockets play one seat at once"
            return None
        watchers.spectators.discard(conn)  # counted below as the one that would be added
        try:
            refusal = self.spectators_full(client, watchers)
        finally:
            watchers.spectators.add(conn)
        if refusal is None:
            self.by_address[client] += 1
        return refusal

    def release(self, client: str) -> None:
        """Forget a spectator's socket that ``admit`` counted."""
        self.by_address[client] -= 1
        if self.by_address[client] <= 0:
            del self.by_address[client]


class TokenBucket:
    """Per-connection rate limit: ``rate`` messages a second, bursts up to ``burst``."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.capacity = float(burst)
        self.tokens = float(burst)
        self.stamp = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.capacity, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False
