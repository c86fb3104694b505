"""Column and constraint builders the migrations share.

Frozen: a migration that has run must keep producing the same DDL, so nothing here changes
once a migration uses it; a new shape gets a new builder. The names follow the metadata's
naming convention (``pk_<table>``, ``fk_<table>_<column>_<target>``, ``uq_<table>_<column>``,
``ix_<table>_<column>``). Every column is NOT NULL unless it says ``nullable=True``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

# Columns


def address(name: str, *, nullable: bool = False) -> sa.Column[str]:
    """A wallet or contract address (checksummed hex, 42 characters)."""
    return sa.Column(name, sa.String(length=42), nullable=nullable)


def moment(name: str, *, nullable: bool = False) -> sa.Column[object]:
    """A point in time, with its time zone."""
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def serial_id() -> sa.Column[int]:
    """The ``id`` surrogate key: an integer the database assigns."""
    return sa.Column("id", sa.Integer(), nullable=False)


def chain_key(name: str) -> sa.Column[int]:
    """A key the chain assigns (a token, listing, agreement or center id): stored, never made."""
    return sa.Column(name, sa.BigInteger(), autoincrement=False, nullable=False)


def amount(name: str, *, nullable: bool = False) -> sa.Column[str]:
    """A token amount in wei, as a decimal string (80 characters)."""
    return sa.Column(name, sa.String(length=80), nullable=nullable)


def hash32(name: str, *, nullable: bool = False) -> sa.Column[str]:
    """32 bytes in hex with their ``0x`` (66 characters): a tx hash, a chain match id."""
    return sa.Column(name, sa.String(length=66), nullable=nullable)


def string(name: str, length: int, *, nullable: bool = False) -> sa.Column[str]:
    return sa.Column(name, sa.String(length=length), nullable=nullable)


def text(name: str, *, nullable: bool = False) -> sa.Column[str]:
    return sa.Column(name, sa.Text(), nullable=nullable)


def integer(name: str, *, nullable: bool = False) -> sa.Column[int]:
    return sa.Column(name, sa.Integer(), nullable=nullable)


def big_integer(name: str, *, nullable: bool = False) -> sa.Column[int]:
    return sa.Column(name, sa.BigInteger(), nullable=nullable)


def boolean(name: str) -> sa.Column[bool]:
    return sa.Column(name, sa.Boolean(), nullable=False)


def json(name: str, *, nullable: bool = False) -> sa.Column[object]:
    return sa.Column(name, sa.JSON(), nullable=nullable)


# Columns that travel together, in this order


def each(build: Callable[..., sa.Column[Any]], *names: str, **options: Any) -> list[sa.Column[Any]]:
    """One column per name, in this order, all of one builder and its options:
    ``*each(moment, "sent_at", "mined_at", nullable=True)``."""
    return [build(name, **options) for name in names]


def log_position(*, nullable: bool = False) -> tuple[sa.Column[str], sa.Column[int]]:
    """Where a chain event stands: its transaction's hash and its index in the block's logs."""
    return hash32("tx_hash", nullable=nullable), integer("log_index", nullable=nullable)


def seat_occupant() -> tuple[sa.Column[Any], ...]:
    """Who sits in a seat: a wallet or a bot of a level, the avatar played, how it was admitted."""
    return (
        address("address", nullable=True),
        string("bot_level", 16, nullable=True),
        big_integer("avatar_id", nullable=True),
        string("admitted_as", 16, nullable=True),
    )


def seat_outcome() -> tuple[sa.Column[Any], ...]:
    """How a seat finished a match (the tables' results and the economy's seat records)."""
    return (
        boolean("is_bot"),
        integer("team", nullable=True),
        integer("placement"),
        integer("points"),
        boolean("won"),
        boolean("forfeited"),
    )


# Constraints


def primary_key(table: str, *columns: str) -> sa.PrimaryKeyConstraint:
    return sa.PrimaryKeyConstraint(*columns, name=op.f(f"pk_{table}"))


def foreign_key(table: str, column: str, target: str) -> sa.ForeignKeyConstraint:
    """``table.column`` refers to ``target.id``."""
    return sa.ForeignKeyConstraint(
        [column], [f"{target}.id"], name=op.f(f"fk_{table}_{column}_{target}")
    )


def foreign_key_to(
    table: str, column: str, target: str, target_column: str
) -> sa.ForeignKeyConstraint:
    """``table.column`` refers to ``target.target_column`` (a key other than ``id``)."""
    return sa.ForeignKeyConstraint(
        [column], [f"{target}.{target_column}"], name=op.f(f"fk_{table}_{column}_{target}")
    )


def unique(table: str, *columns: str) -> sa.UniqueConstraint:
    """Named after the first column, as the convention does: ``uq_<table>_<column>``."""
    return sa.UniqueConstraint(*columns, name=op.f(f"uq_{table}_{columns[0]}"))


# Tables


def create_table(
    table: str,
    *columns: sa.Column[Any],
    key: str | tuple[str, ...],
    references: Mapping[str, str] | None = None,
    uniques: Sequence[str | tuple[str, ...]] = (),
    indexes: Sequence[str] = (),
) -> None:
    """``op.create_table`` with its constraints named once, from ``table``, then a plain index
    on each of ``indexes`` in this order (as ``create_indexes``).

    ``references`` maps a column to ``target`` (its ``id``) or ``target.column``; an entry of
    ``uniques`` is a column or a tuple of columns. The DDL lists the foreign keys in the
    mapping's order, then the primary key ``key``, then the unique constraints.
    """
    foreign_keys = []
    for column, target in (references or {}).items():
        target_table, _, target_column = target.partition(".")
        foreign_keys.append(
            foreign_key_to(table, column, target_table, target_column)
            if target_column
            else foreign_key(table, column, target_table)
        )
    keys = (key,) if isinstance(key, str) else key
    constraints = [unique(table, *((u,) if isinstance(u, str) else u)) for u in uniques]
    op.create_table(table, *columns, *foreign_keys, primary_key(table, *keys), *constraints)
    create_indexes(table, *indexes)


# Indexes


def create_index(table: str, column: str, *, unique: bool = False) -> None:
    op.create_index(op.f(f"ix_{table}_{column}"), table, [column], unique=unique)


def drop_index(table: str, column: str) -> None:
    op.drop_index(op.f(f"ix_{table}_{column}"), table_name=table)


def create_indexes(table: str, *columns: str) -> None:
    """One plain index per column, made in this order."""
    for column in columns:
        create_index(table, column)


def drop_indexes(table: str, *columns: str) -> None:
    """One plain index per column, dropped in this order."""
    for column in columns:
        drop_index(table, column)


def create_unique_where(name: str, table: str, columns: list[str], where: str) -> None:
    """A partial unique index: unique among the rows ``where`` holds (both databases)."""
    clause = sa.text(where)
    op.create_index(name, table, columns, unique=True, postgresql_where=clause, sqlite_where=clause)


def add_indexed_column(table: str, column: sa.Column[Any]) -> None:
    """Add ``column`` to an existing table with a plain index on it (no batch copy on SQLite)."""
    op.add_column(table, column)
    create_index(table, column.name)


def drop_indexed_column(table: str, column: str) -> None:
    """Undo ``add_indexed_column``: the index, then the column (a batch copy on SQLite)."""
    drop_index(table, column)
    with op.batch_alter_table(table) as batch:
        batch.drop_column(column)
