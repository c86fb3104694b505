"""Column and constraint builders the migrations share.

Frozen: a migration that has run must keep producing the same DDL, so nothing here changes
once a migration uses it; a new shape gets a new builder. The names follow the metadata's
naming convention (``pk_<table>``, ``fk_<table>_<column>_<target>``, ``ix_<table>_<column>``).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op


def address(name: str, *, nullable: bool = False) -> sa.Column[str]:
    """A wallet or contract address (checksummed hex, 42 characters)."""
    return sa.Column(name, sa.String(length=42), nullable=nullable)


def moment(name: str, *, nullable: bool = False) -> sa.Column[object]:
    """A point in time, with its time zone."""
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def primary_key(table: str, *columns: str) -> sa.PrimaryKeyConstraint:
    return sa.PrimaryKeyConstraint(*columns, name=op.f(f"pk_{table}"))


def foreign_key(table: str, column: str, target: str) -> sa.ForeignKeyConstraint:
    """``table.column`` refers to ``target.id``."""
    return sa.ForeignKeyConstraint(
        [column], [f"{target}.id"], name=op.f(f"fk_{table}_{column}_{target}")
    )


def create_index(table: str, column: str, *, unique: bool = False) -> None:
    op.create_index(op.f(f"ix_{table}_{column}"), table, [column], unique=unique)


def drop_index(table: str, column: str) -> None:
    op.drop_index(op.f(f"ix_{table}_{column}"), table_name=table)
