"""Tables: a bot level per seat; matchmaking tickets carry their rule options and stake."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from backend.migrations.columns import (
    create_unique_where,
    json,
)

revision = "tables_h25tables_0001"
down_revision = "tables_h17tables_0001"


def upgrade() -> None:
    # Plain ADD COLUMN (SQLite has it): a batch copy of matchmaking_tickets would lose its
    # partial unique index's WHERE clause (one waiting ticket per wallet).
    op.add_column("game_tables", json("bot_levels", nullable=True))
    # Tickets queued before this revision waited for the preset's default options.
    op.add_column(
        "matchmaking_tickets",
        sa.Column("options", sa.JSON(), nullable=False, server_default=sa.text("'{}'")),
    )
    op.add_column(
        "matchmaking_tickets",
        sa.Column("stake", sa.String(length=80), nullable=False, server_default="0"),
    )


def downgrade() -> None:
    op.drop_index("uq_matchmaking_tickets_waiting_address", table_name="matchmaking_tickets")
    with op.batch_alter_table("matchmaking_tickets") as batch:
        batch.drop_column("stake")
        batch.drop_column("options")
    create_unique_where(
        "uq_matchmaking_tickets_waiting_address",
        "matchmaking_tickets",
        ["address"],
        "status = 'waiting'",
    )
    with op.batch_alter_table("game_tables") as batch:
        batch.drop_column("bot_levels")
