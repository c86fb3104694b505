"""Competitions: the Game Center a Campeonato is run at (null: no center).

Revision ID: competitions_h20centers_0001
Revises: competitions_0001
Create Date: 2026-11-25

A plain indexed column for the same reason as ``tables_h20centers_0001``.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "competitions_h20centers_0001"
down_revision = "competitions_0001"
branch_labels = None
depends_on = "centers_h20centers_0001"


def upgrade() -> None:
    op.add_column(
        "competitions_tournaments", sa.Column("center_id", sa.BigInteger(), nullable=True)
    )
    op.create_index(
        op.f("ix_competitions_tournaments_center_id"), "competitions_tournaments", ["center_id"]
    )


def downgrade() -> None:
    op.drop_index(
        op.f("ix_competitions_tournaments_center_id"), table_name="competitions_tournaments"
    )
    with op.batch_alter_table("competitions_tournaments") as batch:
        batch.drop_column("center_id")
