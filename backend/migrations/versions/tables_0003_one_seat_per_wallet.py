"""Tables: one waiting matchmaking ticket per wallet, one earning table per wallet and avatar."""

from __future__ import annotations

from alembic import op

from backend.migrations.columns import (
    address,
    create_table,
    create_unique_where,
    drop_index,
    moment,
    string,
)

revision = "tables_h17tables_0001"
down_revision = "tables_0002"


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
    create_unique_where(
        "uq_matchmaking_tickets_waiting_address",
        "matchmaking_tickets",
        ["address"],
        "status = 'waiting'",
    )
    create_table(
        "earning_holds",
        string("holder", 64),
        string("table_id", 32),
        address("address"),
        moment("created_at"),
        key="holder",
        references={"table_id": "game_tables"},
        indexes=["table_id"],
    )


def downgrade() -> None:
    drop_index("earning_holds", "table_id")
    op.drop_table("earning_holds")
    op.drop_index("uq_matchmaking_tickets_waiting_address", table_name="matchmaking_tickets")
