"""Tables: one waiting matchmaking ticket per wallet, one earning table per wallet and avatar.

Revision ID: tables_h17tables_0001
Revises: tables_0002
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from backend.migrations.columns import (
    address,
    create_index,
    drop_index,
    foreign_key,
    moment,
    primary_key,
)

revision = "tables_h17tables_0001"
down_revision = "tables_0002"
branch_labels = None
depends_on = None

_WAITING = sa.text("status = 'waiting'")


def upgrade() -> None:
    # Tickets a race let through before the index existed: the oldest per wallet keeps waiting.
    op.execute(
        """
        UPDATE matchmaking_tickets SET status = 'cancelled'
        WHERE status = 'waiting' AND EXISTS (
            SELECT 1 FROM matchmaking_tickets AS older
            WHERE older.address = matchmaking_tickets.address AND older.status = 'waiting'
              AND (older.created_at < matchmaking_tickets.created_at
                   OR (older.created_at = matchmaking_tickets.created_at
                       AND older.id < matchmaking_tickets.id))
        )
        """
    )
    op.create_index(
        "uq_matchmaking_tickets_waiting_address",
        "matchmaking_tickets",
        ["address"],
        unique=True,
        postgresql_where=_WAITING,
        sqlite_where=_WAITING,
    )
    op.create_table(
        "earning_holds",
        sa.Column("holder", sa.String(length=64), nullable=False),
        sa.Column("table_id", sa.String(length=32), nullable=False),
        address("address"),
        moment("created_at"),
        foreign_key("earning_holds", "table_id", "game_tables"),
        primary_key("earning_holds", "holder"),
    )
    create_index("earning_holds", "table_id")


def downgrade() -> None:
    drop_index("earning_holds", "table_id")
    op.drop_table("earning_holds")
    op.drop_index("uq_matchmaking_tickets_waiting_address", table_name="matchmaking_tickets")
