"""Tables: the Game Center a table is hosted at (null: no center).

Revision ID: tables_h20centers_0001
Revises: tables_h25talk_0001
Create Date: 2026-11-25

A plain indexed column, not a foreign key: SQLite cannot add a foreign key to an existing
table without a batch copy (which would drop game_tables' dependants' constraints), and a
table gets a center id only after ``backend.centers.service.require_host`` found the
center's row in the same transaction.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from backend.migrations.columns import create_index, drop_index

revision = "tables_h20centers_0001"
down_revision = "tables_h25talk_0001"
branch_labels = None
depends_on = "centers_h20centers_0001"


def upgrade() -> None:
    op.add_column("game_tables", sa.Column("center_id", sa.BigInteger(), nullable=True))
    create_index("game_tables", "center_id")


def downgrade() -> None:
    drop_index("game_tables", "center_id")
    with op.batch_alter_table("game_tables") as batch:
        batch.drop_column("center_id")
