"""A socket's outbox as the server's fan-out fills it: a deque that one writer awaits.

Not an ``asyncio.Queue``: pushing is the hot path (a live table sends five messages per
move), so it is a deque plus one future that wakes the writer, which then takes what is
queued. The owners (``backend.tables.live.connections.Conn``,
``backend.competitions.watch.Watcher``) decide what a message is, when a slow reader is
cut off and how the close is said."""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Generic, TypeVar

T = TypeVar("T")


class Mailbox(Generic[T]):
    __slots__ = ("_pending", "_waiter")

    def __init__(self) -> None:
        self._pending: deque[T] = deque()
        self._waiter: asyncio.Future[None] | None = None

    def _wake(self) -> None:
        """Wake the writer if it waits (call after queueing)."""
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def _wait(self) -> None:
        """Until something is queued."""
        while not self._pending:
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
