"""Competitions: DEW contributions to tournaments' prize pools, booked once per event."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from backend.migrations.columns import (
    address,
    amount,
    big_integer,
    create_indexes,
    log_position,
    moment,
    string,
)

revision = "competitions_h20fees_0001"
down_revision = "competitions_h20centers_0001"


def upgrade() -> None:
    op.create_table(
        "competitions_contributions",
        *log_position(),
        big_integer("tournament_id"),
        address("contributor"),
        amount("amount"),
        string("status", 16),
        big_integer("block_number"),
        moment("created_at"),
        sa.PrimaryKeyConstraint("tx_hash", "log_index"),
    )
    create_indexes("competitions_contributions", "tournament_id", "contributor")


def downgrade() -> None:
    op.drop_table("competitions_contributions")
