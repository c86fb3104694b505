"""Tournament event sockets: one database poll per watched tournament, fanned out.

Each socket subscribes a ``Watcher`` to its tournament's ``Feed``. A feed's single task
polls the tournament (its ``version`` first, the four parts only when it moved) every
``DEW_SOCKETS_TOURNAMENT_POLL_S`` while anyone watches, and pushes each changed part to
every watcher; with nobody watching there is no task and no poll. Watchers are capped per
client address and per tournament, so an anonymous caller cannot make the server do more
than one poll per tournament, nor keep more than a few sockets of its own. The signed-in
entrants of a tournament are counted apart, each up to its own cap: however many
addresses fill the public sockets of a tournament, its players still get in.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import Counter
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from backend.competitions import exceptions as exc
from backend.competitions import service, views
from backend.competitions.models import Entrant, TournamentStatus
from backend.config import SocketSettings
from backend.kit.mailbox import Mailbox

log = logging.getLogger(__name__)

# Close codes of the tournament socket (docs/competitions.md, section 8).
CLOSE_NORMAL = 1000
CLOSE_GOING_AWAY = 1001
CLOSE_UNSUPPORTED = 1003
CLOSE_NOT_FOUND = 4404
CLOSE_SLOW_CONSUMER = 4408
CLOSE_TOO_MANY = 4429


class TooManySockets(Exception):
    """A socket over one of the caps; ``str()`` says which."""

    code = "too_many_sockets"


def is_entrant(*, session: Session, tournament_id: int, address: str) -> bool:
    """Whether ``address`` (EIP-55, as a verified token names it) entered the tournament."""
    query = select(Entrant.number).where(
        Entrant.tournament_id == tournament_id, Entrant.address == address
    )
    return session.scalar(query.limit(1)) is not None


def event_text(kind: str, tournament_id: int, data: Any) -> str:
    return json.dumps(
        {"v": 1, "type": kind, "tournament_id": tournament_id, "data": data}, default=str
    )


def error_text(code: str, message: str) -> str:
    return json.dumps(
        {"v": 1, "type": "error", "error": {"code": code, "message": message, "detail": None}}
    )


def poll_events(
    factory: sessionmaker[Session], tournament_id: int, seen: dict[str, Any]
) -> tuple[list[tuple[str, Any]], bool]:
    """The parts that changed since ``seen`` (updated), and whether the tournament is over."""
    with factory() as session:
        t = service.get_tournament(session=session, tournament_id=tournament_id)
        if seen.get("version") == t.version:
            return [], False
        parts: dict[str, Any] = {
            "tournament": views.summary(t),
            "registration": [
                views.entrant_view(e)
                for e in service.entrants_of(session=session, tournament_id=t.id)
            ],
            "bracket": views.bracket_view(session=session, tournament_id=t.id),
            "standings": views.standings_view(session=session, tournament=t),
        }
    changed = []
    for kind, data in parts.items():
        if seen.get(kind) != data:
            seen[kind] = data
            changed.append((kind, data))
    seen["version"] = parts["tournament"]["version"]
    over = parts["tournament"]["status"] in (TournamentStatus.FINISHED, TournamentStatus.CANCELLED)
    return changed, over


class Watcher(Mailbox[str | int]):
    """One socket's outbox: event texts, then an ``int`` close code as the last item."""

    __slots__ = (
        "address",
        "closed",
        "entrant",
        "max_queue",
        "tournament_id",
    )

    def __init__(
        self, tournament_id: int, address: str, max_queue: int, entrant: str | None = None
    ) -> None:
        super().__init__()
        self.tournament_id = tournament_id
        self.address = address
        # The entrant's wallet for a signed-in entrant's socket (its reserved slots).
        self.entrant = entrant
        self.max_queue = max_queue
        self.closed = False

    def push(self, text: str) -> None:
        if self.closed:
            return
        if len(self._pending) >= self.max_queue:
            # A client that does not read is cut off (it can reconnect for a fresh start).
            self._pending.clear()
            self.finish(CLOSE_SLOW_CONSUMER)
            return
        self._pending.append(text)
        self._wake()

    def finish(self, code: int) -> None:
        if self.closed:
            return
        self.closed = True
        self._pending.append(code)
        self._wake()

    async def next(self) -> str | int:
        await self._wait()
        return self._pending.popleft()


class Feed:
    """One watched tournament: its watchers, what they have been sent, and the poll task."""

    def __init__(self, tournament_id: int) -> None:
        self.tournament_id = tournament_id
        self.watchers: set[Watcher] = set()
        self.public = 0  # watchers that are not an entrant's
        self.seen: dict[str, Any] = {}
        # The last text of each part, for watchers that arrive between changes.
        self.latest: dict[str, str] = {}
        self.task: asyncio.Task[None] | None = None


class TournamentWatch:
    """Every tournament feed of one server process, and the socket caps."""

    def __init__(self, settings: SocketSettings, session_factory: sessionmaker[Session]) -> None:
        self.settings = settings
        self.session_factory = session_factory
        self.feeds: dict[int, Feed] = {}
        self.by_address: Counter[str] = Counter()
        self.by_entrant: Counter[tuple[int, str]] = Counter()

    def subscribe(self, tournament_id: int, address: str, entrant: str | None = None) -> Watcher:
        """A new watcher of the tournament (its feed started if needed); ``TooManySockets``
        when the client address or the tournament is at its cap. ``entrant``: the wallet of
        a signed-in entrant of this tournament, which has slots of its own instead
        (``tournament_per_entrant``), whatever the other caps."""
        feed = self.feeds.get(tournament_id)
        if entrant is not None:
            per_entrant = self.settings.tournament_per_entrant
            if self.by_entrant[(tournament_id, entrant)] >= per_entrant:
                raise TooManySockets(
                    f"at most {per_entrant} sockets of one entrant watch its tournament"
                )
        else:
            per_address = self.settings.tournament_per_address
            if self.by_address[address] >= per_address:
                raise TooManySockets(
                    f"at most {per_address} tournament sockets per client address are open at once"
                )
            per_tournament = self.settings.tournament_per_tournament
            if feed is not None and feed.public >= per_tournament:
                raise TooManySockets(
                    f"at most {per_tournament} sockets watch one tournament (its signed-in "
                    "entrants have slots of their own)"
                )
        if feed is None:
            feed = self.feeds[tournament_id] = Feed(tournament_id)
            feed.task = asyncio.create_task(
                self._poll(feed), name=f"dew-tournament-feed-{tournament_id}"
            )
        watcher = Watcher(tournament_id, address, self.settings.tournament_max_queue, entrant)
        for text in feed.latest.values():
            watcher.push(text)
        feed.watchers.add(watcher)
        if entrant is not None:
            self.by_entrant[(tournament_id, entrant)] += 1
        else:
            feed.public += 1
            self.by_address[address] += 1
        return watcher

    def unsubscribe(self, watcher: Watcher) -> None:
        """Forget a watcher (idempotent); a feed with nobody left stops polling."""
        watcher.closed = True
        feed = self.feeds.get(watcher.tournament_id)
        if feed is not None and watcher in feed.watchers:
            feed.watchers.discard(watcher)
            if watcher.entrant is None:
                feed.public -= 1
            if not feed.watchers:
                self._drop(feed)
        counter: Counter[Any]
        key: Any
        if watcher.entrant is not None:
            counter, key = self.by_entrant, (watcher.tournament_id, watcher.entrant)
        else:
            counter, key = self.by_address, watcher.address
        if key in counter:
            counter[key] -= 1
            if counter[key] <= 0:
                del counter[key]

    def _drop(self, feed: Feed) -> None:
        if self.feeds.get(feed.tournament_id) is feed:
            del self.feeds[feed.tournament_id]
        if feed.task is not None and feed.task is not asyncio.current_task():
            feed.task.cancel()

    async def stop(self) -> None:
        """Close every watcher and stop every poll (server shutdown)."""
        feeds = list(self.feeds.values())
        for feed in feeds:
            for watcher in feed.watchers:
                watcher.finish(CLOSE_GOING_AWAY)
            self._drop(feed)
        tasks = [f.task for f in feeds if f.task is not None]
        await asyncio.gather(*tasks, return_exceptions=True)

    async def _poll(self, feed: Feed) -> None:
        tid = feed.tournament_id
        try:
            while feed.watchers:
                try:
                    changed, over = await asyncio.to_thread(
                        poll_events, self.session_factory, tid, feed.seen
                    )
                except exc.CompetitionsError as error:
                    text = error_text(error.code, str(error))
                    for watcher in feed.watchers:
                        watcher.push(text)
                        watcher.finish(CLOSE_NOT_FOUND)
                    return
                except Exception:
                    # A database hiccup: keep the watchers and try again at the next tick.
                    log.exception("tournament feed %d: poll failed", tid)
                    changed, over = [], False
                for kind, data in changed:
                    text = event_text(kind, tid, data)
                    feed.latest[kind] = text
                    for watcher in feed.watchers:
                        watcher.push(text)
                if over:
                    for watcher in feed.watchers:
                        watcher.finish(CLOSE_NORMAL)
                    return
                await asyncio.sleep(self.settings.tournament_poll_s)
        finally:
            self._drop(feed)
