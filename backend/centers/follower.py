"""Follows the ``GameCenter`` events, after confirmations, into the centers mirror.

A follower of the chain kit (``backend.chain.follower``): each run applies the next confirmed
range (``backend.centers.mirror``) in the transaction that advances the cursor. The mirror
also remembers each event by ``(tx_hash, log_index)``, so a range read twice changes
nothing. A deployment from before the Game Centers has no GameCenter: there is nothing to
follow and the run is empty.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from backend.centers import mirror
from backend.chain.follower import EventReader, EventSet, FollowReport, follow


def _center_contract(reader: EventReader) -> Any | None:
    try:
        return reader.contracts.game_center
    except (AttributeError, KeyError, ValueError):
        return None


def cursor_name(reader: EventReader, address: str) -> str:
    return f"game_center:{reader.contracts.manifest.chain_id}:{address}"


def center_events(reader: EventReader, contract: Any, start: int, end: int) -> list[Any]:
    """The mirror's events of ``contract`` in ``start..end``, decoded, in chain order."""
    return reader.decoded(EventSet().add("center", contract, mirror.EVENT_NAMES), start, end)


def index_centers(
    *, session_factory: sessionmaker[Session], reader: EventReader, max_blocks: int = 5_000
) -> FollowReport:
    """Apply the next confirmed range of GameCenter events; returns what was applied."""
    contract = _center_contract(reader)
    if contract is None:
        return FollowReport(0, -1, 0)
    return follow(
        session_factory,
        name=cursor_name(reader, contract.address),
        reader=reader,
        max_blocks=max_blocks,
        read=lambda start, end: center_events(reader, contract, start, end),
        apply=mirror.apply_events,
    )
