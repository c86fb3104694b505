"""Care: players' support tickets and their threads, and accounts closed by their players
(backend/care/models.py)."""

from __future__ import annotations

from alembic import op

from backend.migrations.columns import (
    address,
    boolean,
    create_table,
    drop_indexes,
    integer,
    moment,
    serial_id,
    string,
)

revision = "care_h32support_0002"
down_revision = "care_h32standing_0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    create_table(
        "care_tickets",
        serial_id(),
        address("address"),
        string("about", 16),
        string("ref", 80),
        string("subject", 120),
        string("status", 16),
        moment("closed_at", nullable=True),
        moment("created_at"),
        key="id",
        indexes=("status",),
    )
    op.create_index("ix_care_tickets_address_created_at", "care_tickets", ["address", "created_at"])
    create_table(
        "care_ticket_messages",
        serial_id(),
        integer("ticket_id"),
        address("author"),
        boolean("staff"),
        string("body", 2000, nullable=True),
        moment("created_at"),
        key="id",
        references={"ticket_id": "care_tickets"},
        indexes=("ticket_id",),
    )
    create_table(
        "care_closed_accounts",
        address("address"),
        moment("created_at"),
        key="address",
    )


def downgrade() -> None:
    drop_indexes("care_ticket_messages", "ticket_id")
    op.drop_table("care_ticket_messages")
    op.drop_index("ix_care_tickets_address_created_at", table_name="care_tickets")
    drop_indexes("care_tickets", "status")
    op.drop_table("care_tickets")
    op.drop_table("care_closed_accounts")
