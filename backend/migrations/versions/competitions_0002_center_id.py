"""Competitions: the Game Center a Campeonato is run at (null: no center).

Revision ID: competitions_h20centers_0001
Revises: competitions_0001
Create Date: 2026-11-25

A plain indexed column for the same reason as ``tables_h20centers_0001``.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from backend.migrations.columns import create_index, drop_index

revision = "competitions_h20centers_0001"
down_revision = "competitions_0001"
branch_labels = None
depends_on = "centers_h20centers_0001"


def upgrade() -> None:
    op.add_column(
        "competitions_tournaments", sa.Column("center_id", sa.BigInteger(), nullable=True)
    )
    create_index("competitions_tournaments", "center_id")


def downgrade() -> None:
    drop_index("competitions_tournaments", "center_id")
    with op.batch_alter_table("competitions_tournaments") as batch:
        batch.drop_column("center_id")
