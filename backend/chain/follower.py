"""The chain-follower kit: one cursor table, a confirmed-range claim and a base event reader.

A follower mirrors a contract's events into the database. Each run claims the next block
range from its cursor up to the confirmed head (the newest block with ``confirmations``
blocks on top, itself included), reads that range's logs and applies them in ONE
transaction that also advances the cursor. So a crash before the commit leaves the mirror
and the cursor as they were; blocks short of the confirmation depth are never read, so a
reorg above it leaves no trace; and two workers racing on one cursor are serialized by the
cursor row's lock (PostgreSQL) or the one write lock (SQLite): the second reads the range
after the first's, and no event is applied twice. Each package keeps its own follower and
supplies only what is its own: the cursor's name, the events it reads and how it applies
them.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from sqlalchemy import BigInteger, String, select
from sqlalchemy.orm import Mapped, Session, mapped_column, sessionmaker
from web3 import Web3
from web3.contract import Contract

from backend.chain.contracts import Contracts
from backend.db import dialect
from backend.db.base import Base

logger = logging.getLogger(__name__)

# Blocks per ``eth_getLogs`` call: nodes refuse or time out on wide ranges.
LOG_CHUNK = 2_000
ZERO_ADDRESS = "0x" + "00" * 20


class ChainCursor(Base):
    """The next block a follower reads; advanced in the same transaction as its effects."""

    __tablename__ = "chain_cursors"

    name: Mapped[str] = mapped_column(String(96), primary_key=True)
    next_block: Mapped[int] = mapped_column(BigInteger)


def topic_hex(value: Any) -> str:
    """A topic or hash (bytes or hex string) as ``0x`` + lowercase hex."""
    if isinstance(value, str):
        return "0x" + value.removeprefix("0x").lower()
    return "0x" + bytes(value).hex()


class EventSet:
    """The events a follower reads, by contract: decodes a log into ``(tag, event data)``.

    ``tag`` is the follower's own name for the contract (``"market"``, ``"registry"``); an
    event name missing from a contract's ABI is skipped (an older deployment)."""

    def __init__(self) -> None:
        self._by_key: dict[tuple[str, str], tuple[str, Any]] = {}
        self.addresses: list[str] = []

    def add(self, tag: str, contract: Contract, names: Iterable[str]) -> EventSet:
        present = {str(i.get("name")) for i in contract.abi if i.get("type") == "event"}
        if contract.address not in self.addresses:
            self.addresses.append(contract.address)
        for name in names:
            if name in present:
                event = getattr(contract.events, name)()
                self._by_key[(contract.address.lower(), topic_hex(event.topic))] = (tag, event)
        return self

    @property
    def topics(self) -> list[str]:
        return sorted({topic for _, topic in self._by_key})

    def decode(self, log: Any) -> tuple[str, Any] | None:
        found = self._by_key.get((str(log["address"]).lower(), topic_hex(log["topics"][0])))
        if found is None:
            return None
        tag, event = found
        return tag, event.process_log(log)


class EventReader:
    """Log queries over one deployment, never past the confirmed head unless asked."""

    def __init__(self, contracts: Contracts, *, confirmations: int = 1) -> None:
        self.contracts = contracts
        self.w3: Web3 = contracts.w3
        self.confirmations = max(1, confirmations)
        self.start_block = contracts.manifest.deployment_block

    def safe_head(self) -> int:
        """The newest block with ``confirmations`` blocks on top of it (itself included)."""
        return int(self.w3.eth.block_number) - (self.confirmations - 1)

    def raw_logs(
        self, address: str | Sequence[str], topics: Sequence[Any], start: int, end: int
    ) -> Iterator[Any]:
        """Undecoded logs of ``address`` matching ``topics`` in ``start..end``, chunked."""
        for lo in range(start, end + 1, LOG_CHUNK):
            hi = min(lo + LOG_CHUNK - 1, end)
            query: dict[str, Any] = {"address": address, "fromBlock": lo, "toBlock": hi}
            if topics:
                query["topics"] = list(topics)
            yield from self.w3.eth.get_logs(query)  # type: ignore[arg-type]

    def logs(
        self, event: Any, address: str, topics: Sequence[Any], start: int, end: int
    ) -> Iterator[Any]:
        """One event's decoded logs; ``topics`` are the indexed arguments after the first."""
        for log in self.raw_logs(address, [event.topic, *topics], start, end):
            yield event.process_log(log)

    def tagged_events(self, events: EventSet, start: int, end: int) -> list[tuple[str, Any]]:
        """Every event of ``events`` in ``start..end``, decoded and tagged, in chain order."""
        if not events.topics:
            return []
        out = [
            decoded
            for log in self.raw_logs(events.addresses, [events.topics], start, end)
            if (decoded := events.decode(log)) is not None
        ]
        out.sort(key=lambda pair: (int(pair[1]["blockNumber"]), int(pair[1]["logIndex"])))
        return out

    def decoded(self, events: EventSet, start: int, end: int) -> list[Any]:
        """As :meth:`tagged_events`, without the tags."""
        return [event for _, event in self.tagged_events(events, start, end)]


@dataclass(frozen=True)
class BlockRange:
    """The blocks ``start..end`` a follower claimed; empty (``end < start``) when no block
    past the cursor is confirmed yet."""

    start: int
    end: int

    @property
    def empty(self) -> bool:
        return self.end < self.start


@dataclass
class FollowReport:
    """What one run of a follower did: the range it read and how many events it applied."""

    from_block: int
    to_block: int
    events: int


def claim_range(
    session: Session, *, name: str, reader: EventReader, max_blocks: int
) -> tuple[ChainCursor, BlockRange]:
    """Lock the cursor ``name`` (created at the reader's start block) and return it with the
    next confirmed range, at most ``max_blocks`` long. The caller applies the range and
    advances the cursor in the same transaction (:func:`claimed_range` does both)."""
    if max_blocks < 1:
        raise ValueError(f"max_blocks must be at least 1, got {max_blocks!r}")
    # Created without a read-then-insert race: a second creator waits for the first's commit.
    session.execute(
        dialect.insert(session, ChainCursor)
        .values(name=name, next_block=reader.start_block)
        .on_conflict_do_nothing(index_elements=["name"])
    )
    cursor = session.scalars(
        dialect.for_update(
            session, select(ChainCursor).where(ChainCursor.name == name)
        ).execution_options(populate_existing=True)
    ).one()
    start = cursor.next_block
    return cursor, BlockRange(start, min(reader.safe_head(), start + max_blocks - 1))


@contextmanager
def claimed_range(
    session_factory: sessionmaker[Session], *, name: str, reader: EventReader, max_blocks: int
) -> Iterator[tuple[Session, BlockRange]]:
    """A transaction holding the cursor ``name`` and its next confirmed range: the body
    applies the range's events through the session, and the cursor moves past the range in
    the same commit. An exception in the body rolls back both."""
    with session_factory() as session, session.begin():
        cursor, blocks = claim_range(session, name=name, reader=reader, max_blocks=max_blocks)
        yield session, blocks
        if not blocks.empty:
            cursor.next_block = blocks.end + 1


def follow(
    session_factory: sessionmaker[Session],
    *,
    name: str,
    reader: EventReader,
    max_blocks: int,
    read: Callable[[int, int], list[Any]],
    apply: Callable[[Session, list[Any]], int],
) -> FollowReport:
    """One run of a follower: ``read(start, end)`` fetches the claimed range's events and
    ``apply(session, events)`` writes them, returning how many it applied."""
    with claimed_range(session_factory, name=name, reader=reader, max_blocks=max_blocks) as (
        session,
        blocks,
    ):
        if blocks.empty:
            return FollowReport(blocks.start, blocks.start - 1, 0)
        applied = apply(session, read(blocks.start, blocks.end))
    if applied:
        logger.info("%s: %d events in blocks %d..%d", name, applied, blocks.start, blocks.end)
    return FollowReport(blocks.start, blocks.end, applied)


def cursor_positions(session: Session) -> dict[str, int]:
    """Every follower's next block, by cursor name (the operator's indexer lag)."""
    return {c.name: c.next_block for c in session.scalars(select(ChainCursor))}
