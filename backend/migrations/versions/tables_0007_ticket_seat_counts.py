"""Tables: the number of seats a matchmaking ticket waits for (null: the preset's usual
table, 4 seats where it has them, as every ticket before this one waited for)."""

from __future__ import annotations

from alembic import op

from backend.migrations.columns import integer

revision = "tables_0007_ticket_seat_counts"
down_revision = "tables_h20centers_0001"


def upgrade() -> None:
    op.add_column("matchmaking_tickets", integer("seat_count", nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("matchmaking_tickets") as batch_op:
        batch_op.drop_column("seat_count")
