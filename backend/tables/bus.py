"""Redis pub/sub between server processes: "table X changed" and "match X has a new move".

Messages carry only ids; every receiver reads the truth from the database, so a lost or
duplicated message can delay an update but never corrupt one.
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
                await handler(data["t"], data["k"])
            except asyncio.CancelledError:
                await pubsub.aclose()
                raise
            except Exception:
                log.exception("redis bus message failed")
                await asyncio.sleep(0.5)

    async def publish(self, table_id: str, kind: str) -> None:
        payload = json.dumps({"t": table_id, "k": kind, "o": self._origin})
        try:
            await self._redis.publish(self._channel, payload)
        except Exception:
            # Other processes catch up from the database on their next read or timer.
            log.exception("redis publish failed for table %s", table_id)

    async def stop(self) -> None:
        if self._task:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        await self._redis.aclose()
