"""Tables: the per-deployment sequence of earning matches' chain match ids.

Revision ID: tables_0002
Revises: tables_0001
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from backend.migrations.columns import primary_key

revision = "tables_0002"
down_revision = "tables_0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "chain_match_sequences",
        sa.Column("prefix", sa.String(length=16), nullable=False),
        sa.Column("last", sa.BigInteger(), nullable=False),
        primary_key("chain_match_sequences", "prefix"),
    )


def downgrade() -> None:
    op.drop_table("chain_match_sequences")
