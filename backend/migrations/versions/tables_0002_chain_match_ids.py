"""Tables: the per-deployment sequence of earning matches' chain match ids."""

from __future__ import annotations

from alembic import op

from backend.migrations.columns import (
    big_integer,
    create_table,
    string,
)

revision = "tables_0002"
down_revision = "tables_0001"


def upgrade() -> None:
    create_table(
        "chain_match_sequences",
        string("prefix", 16),
        big_integer("last"),
        key="prefix",
    )


def downgrade() -> None:
    op.drop_table("chain_match_sequences")
