"""Which Game Center hosts a table: the lookup the fee routing is given
(``backend.creators.routing.FeeRouting``), which sits beside this package and may not import it."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from backend.tables.models import Table


def center_of_table(session: Session, table_id: str) -> int | None:
    """The center hosting ``table_id``, or None (no center, or no such table)."""
    return session.scalar(select(Table.center_id).where(Table.id == table_id))
