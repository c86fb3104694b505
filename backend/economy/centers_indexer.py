"""Follows the ``GameCenter`` events, after confirmations, into the centers mirror.

Like the registry indexer (``backend.economy.scholarships.indexer``): each run reads the
blocks from its cursor up to the confirmed head and applies them (``backend.centers.mirror``) in one
transaction that also advances the cursor. The mirror also remembers each event by
``(tx_hash, log_index)``, so a range read twice changes nothing. A deployment from before
the Game Centers has no GameCenter: there is nothing to follow and the run is empty.
"""

from __future__ import annotations

import logging
from typing import Any

from hexbytes import HexBytes
from sqlalchemy.orm import Session, sessionmaker

from backend.centers import mirror
from backend.economy.chain_reader import ChainReader
from backend.economy.cursor import claim_block_range
from backend.economy.scholarships.indexer import IndexReport

logger = logging.getLogger(__name__)
LOG_CHUNK = 2_000


def _center_contract(reader: ChainReader) -> Any | None:
    try:
        return reader.contracts.game_center
    except (AttributeError, KeyError, ValueError):
        return None


def cursor_name(reader: ChainReader, address: str) -> str:
    return f"game_center:{reader.contracts.manifest.chain_id}:{address}"


def center_events(reader: ChainReader, contract: Any, start: int, end: int) -> list[Any]:
    """The mirror's events of ``contract`` in ``start..end``, decoded, in chain order."""
    decoders = [getattr(contract.events, name)() for name in mirror.EVENT_NAMES]
    by_topic = {HexBytes(d.topic): d for d in decoders}
    out: list[Any] = []
    for lo in range(start, end + 1, LOG_CHUNK):
        hi = min(lo + LOG_CHUNK - 1, end)
        for log in reader.w3.eth.get_logs(
            {"address": contract.address, "fromBlock": lo, "toBlock": hi}
        ):
            decoder = by_topic.get(HexBytes(log["topics"][0]))
            if decoder is not None:
                out.append(decoder.process_log(log))
    out.sort(key=lambda e: (e["blockNumber"], e["logIndex"]))
    return out


def index_centers(
    *, session_factory: sessionmaker[Session], reader: ChainReader, max_blocks: int = 5_000
) -> IndexReport:
    """Apply the next confirmed range of GameCenter events; returns what was read."""
    contract = _center_contract(reader)
    if contract is None:
        return IndexReport(0, -1, 0)
    with session_factory() as session, session.begin():
        cursor, start, end = claim_block_range(
            session,
            name=cursor_name(reader, contract.address),
            reader=reader,
            max_blocks=max_blocks,
        )
        if end < start:
            return IndexReport(start, start - 1, 0)
        applied = mirror.apply_events(session, center_events(reader, contract, start, end))
        cursor.next_block = end + 1
    if applied:
        logger.info("centers indexer: %d events in blocks %d..%d", applied, start, end)
    return IndexReport(start, end, applied)
