"""Chain: one cursor table for every event follower (``chain_cursors``, ``backend.chain.follower``).

The economy's followers (registry, vault deposits, Game Centers, contributions) kept their
cursors in ``economy_indexer_cursors`` and the markets' follower in
``markets_indexer_cursors``. Both tables' rows move, names and next blocks unchanged, into
``chain_cursors`` (created here unless it exists), and the two old tables are dropped: every
follower goes on from the block it had reached.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from backend.migrations.columns import (
    big_integer,
    primary_key,
    string,
)

revision = "chain_0002"
down_revision = "chain_0001"
depends_on = ("economy_0001", "markets_h19markets_0001")

TABLE = "chain_cursors"
OLD_TABLES = ("economy_indexer_cursors", "markets_indexer_cursors")
# Where each old table's rows came from, on the way back: the markets' names start so.
MARKETS_PREFIX = "markets:"


def _cursors(name: str) -> sa.TableClause:
    return sa.table(name, sa.column("name", sa.String()), sa.column("next_block", sa.BigInteger()))


def upgrade() -> None:
    existing = set(sa.inspect(op.get_bind()).get_table_names())
    if TABLE not in existing:
        op.create_table(
            TABLE,
            string("name", 96),
            big_integer("next_block"),
            primary_key(TABLE, "name"),
        )
    new = _cursors(TABLE)
    for old_name in OLD_TABLES:
        if old_name not in existing:
            continue
        old = _cursors(old_name)
        op.execute(
            new.insert().from_select(
                ["name", "next_block"],
                sa.select(old.c.name, old.c.next_block).where(
                    old.c.name.not_in(sa.select(new.c.name))
                ),
            )
        )
        op.drop_table(old_name)


def downgrade() -> None:
    new = _cursors(TABLE)
    for old_name, length in zip(OLD_TABLES, (64, 96), strict=True):
        op.create_table(
            old_name,
            string("name", length),
            big_integer("next_block"),
            primary_key(old_name, "name"),
        )
        markets = new.c.name.like(MARKETS_PREFIX + "%")
        op.execute(
            _cursors(old_name)
            .insert()
            .from_select(
                ["name", "next_block"],
                sa.select(new.c.name, new.c.next_block).where(
                    markets if old_name.startswith("markets") else sa.not_(markets)
                ),
            )
        )
    op.drop_table(TABLE)
