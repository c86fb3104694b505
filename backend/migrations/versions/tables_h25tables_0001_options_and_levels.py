"""Tables: a bot level per seat; matchmaking tickets carry their rule options and stake.

Revision ID: tables_h25tables_0001
Revises: tables_h17tables_0001
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "tables_h25tables_0001"
down_revision = "tables_h17tables_0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("game_tables") as batch:
        batch.add_column(sa.Column("bot_levels", sa.JSON(), nullable=True))
    with op.batch_alter_table("matchmaking_tickets") as batch:
        # Tickets queued before this revision waited for the preset's default options.
        batch.add_column(
            sa.Column("options", sa.JSON(), nullable=False, server_default=sa.text("'{}'"))
        )
        batch.add_column(
            sa.Column("stake", sa.String(length=80), nullable=False, server_default="0")
        )


def downgrade() -> None:
    with op.batch_alter_table("matchmaking_tickets") as batch:
        batch.drop_column("stake")
        batch.drop_column("options")
    with op.batch_alter_table("game_tables") as batch:
        batch.drop_column("bot_levels")
