"""Redis pub/sub between server processes: "table X changed", "match X has a new move", and
table talk.

Table events carry only ids; every receiver reads the truth from the database, so a lost or
duplicated message can delay an update but never corrupt one. Moves are announced in
batches: every table with a new move since the last publish goes out in one message.

Talk is not stored anywhere, so a talk message carries the talk itself (table, seat, the
phrase/emote id or the cleaned text, the time): one message per talk, on the same channel,
read by the other processes only (each process skips its own). A receiver treats it as
input from a stranger: oversized messages are dropped here, and ``backend.tables.live.talk``
checks the rest as it would a client's talk before delivering it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

log = logging.getLogger(__name__)

Handler = Callable[[str, str], Awaitable[None]]
TalkHandler = Callable[[dict[str, Any]], Awaitable[None]]

# A relayed talk is a few short fields and at most a few hundred characters of text (JSON
# escapes included); anything larger is not one of ours.
MAX_MESSAGE_BYTES = 8192
MAX_PENDING_TALKS = 1_000


class RedisBus:
    def __init__(self, url: str, prefix: str, origin: str) -> None:
        import redis.asyncio as aioredis

        self._redis = aioredis.from_url(url)
        self._channel = f"{prefix}:tables"
        self._origin = origin
        self._task: asyncio.Task[None] | None = None
        self._soon: dict[tuple[str, str], None] = {}
        # Talk waiting for Redis, bounded: while Redis is slow or down the oldest is dropped
        # (talk is best effort) instead of growing without end.
        self._talks: deque[dict[str, Any]] = deque(maxlen=MAX_PENDING_TALKS)
        self._on_talk: TalkHandler | None = None
        self._flusher: asyncio.Task[None] | None = None

    async def start(self, handler: Handler, on_talk: TalkHandler | None = None) -> None:
        self._on_talk = on_talk
        pubsub = self._redis.pubsub()
        await pubsub.subscribe(self._channel)
        self._task = asyncio.create_task(self._listen(pubsub, handler), name="dew-redis-bus")

    async def _listen(self, pubsub, handler: Handler) -> None:  # type: ignore[no-untyped-def]
        while True:
            try:
                message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=1.0)
                if message is None:
                    continue
                raw = message["data"]
                if not isinstance(raw, bytes | str) or len(raw) > MAX_MESSAGE_BYTES:
                    log.warning("redis bus message dropped: not a short JSON message")
                    continue
                data = json.loads(raw)
                if not isinstance(data, dict) or data.get("o") == self._origin:
                    continue
                if "talk" in data:
                    if self._on_talk is not None:
                        await self._on_talk(data["talk"])
                    continue
                events = data["e"] if "e" in data else [[data["t"], data["k"]]]
                for table_id, kind in events:
                    await handler(table_id, kind)
            except asyncio.CancelledError:
                await pubsub.aclose()
                raise
            except Exception:
                log.exception("redis bus message failed")
                await asyncio.sleep(0.5)

    async def publish(self, table_id: str, kind: str) -> None:
        await self._send([(table_id, kind)])

    def publish_soon(self, table_id: str, kind: str) -> None:
        """Announce without waiting: joins the next batch (one Redis round trip for all the
        tables that moved meanwhile)."""
        self._soon[(table_id, kind)] = None
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.get_running_loop().create_task(self._flush())

    def publish_talk(self, talk: dict[str, Any]) -> None:
        """Relay a talk to the other processes without waiting (in the order said)."""
        self._talks.append(talk)
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.get_running_loop().create_task(self._flush())

    async def _flush(self) -> None:
        while self._soon or self._talks:
            if self._soon:
                events = list(self._soon)
                self._soon.clear()
                await self._send(events)
            while self._talks:
                await self._publish(json.dumps({"talk": self._talks.popleft(), "o": self._origin}))

    async def _send(self, events: list[tuple[str, str]]) -> None:
        # Other processes catch up from the database on their next read or timer.
        await self._publish(json.dumps({"e": events, "o": self._origin}))

    async def _publish(self, payload: str) -> None:
        try:
            await self._redis.publish(self._channel, payload)
        except Exception:
            # Table events: the others catch up from the database; talk: it is lost.
            log.exception("redis publish failed (%d bytes)", len(payload))

    async def stop(self) -> None:
        if self._flusher:
            self._flusher.cancel()
        if self._task:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        await self._redis.aclose()
