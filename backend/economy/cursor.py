"""Block cursors of the economy's event followers (registry indexer, vault deposits)."""

from __future__ import annotations

from sqlalchemy.orm import Session

from backend.economy.chain_reader import ChainReader
from backend.economy.models import IndexerCursor


def claim_block_range(
    session: Session, *, name: str, reader: ChainReader, max_blocks: int
) -> tuple[IndexerCursor, int, int]:
    """Lock the named cursor (creating it at the reader's start block) and return it with the
    next confirmed block range to read; ``end < start`` when nothing is confirmed yet. The
    caller applies the range and sets ``cursor.next_block = end + 1`` in the same transaction."""
    cursor = session.get(IndexerCursor, name, with_for_update=True)
    if cursor is None:
        cursor = IndexerCursor(name=name, next_block=reader.start_block)
        session.add(cursor)
    start = cursor.next_block
    return cursor, start, min(reader.safe_head(), start + max_blocks - 1)
