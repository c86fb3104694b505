"""Redis pub/sub between server processes: "table X changed" and "match X has a new move".

Messages carry only ids; every receiver reads the truth from the database, so a lost or
duplicated message can delay an update but never corrupt one. Moves are announced in
batches: every table with a new move since the last publish goes out in one message.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Awaitable, Callable

log = logging.getLogger(__name__)

Handler = Callable[[str, str], Awaitable[None]]


class RedisBus:
    def __init__(self, url: str, prefix: str, origin: str) -> None:
        import redis.asyncio as aioredis

        self._redis = aioredis.from_url(url)
        self._channel = f"{prefix}:tables"
        self._origin = origin
        self._task: asyncio.Task[None] | None = None
        self._soon: dict[tuple[str, str], None] = {}
        self._flusher: asyncio.Task[None] | None = None

    async def start(self, handler: Handler) -> None:
        pubsub = self._redis.pubsub()
        await pubsub.subscribe(self._channel)
        self._task = asyncio.create_task(self._listen(pubsub, handler), name="dew-redis-bus")

    async def _listen(self, pubsub, handler: Handler) -> None:  # type: ignore[no-untyped-def]
        while True:
            try:
                message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=1.0)
                if message is None:
                    continue
                data = json.loads(message["data"])
                if data.get("o") == self._origin:
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

    async def _flush(self) -> None:
        while self._soon:
            events = list(self._soon)
            self._soon.clear()
            await self._send(events)

    async def _send(self, events: list[tuple[str, str]]) -> None:
        payload = json.dumps({"e": events, "o": self._origin})
        try:
            await self._redis.publish(self._channel, payload)
        except Exception:
            # Other processes catch up from the database on their next read or timer.
            log.exception("redis publish failed for %d table events", len(events))

    async def stop(self) -> None:
        if self._flusher:
            self._flusher.cancel()
        if self._task:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        await self._redis.aclose()
