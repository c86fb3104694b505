"""Tables: complaints (reports of players by their table mates, read with `dew complaints`)."""

from __future__ import annotations

from alembic import op

from backend.migrations.columns import (
    address,
    create_table,
    drop_indexes,
    each,
    moment,
    serial_id,
    string,
)

revision = "tables_h25talk_0001"
down_revision = "tables_h25tables_0001"


def upgrade() -> None:
    create_table(
        "complaints",
        serial_id(),
        *each(address, "reporter", "reported"),
        *each(string, "table_id", "reason", length=32),
        string("note", 280, nullable=True),
        string("status", 16),
        string("resolution", 280, nullable=True),
        moment("closed_at", nullable=True),
        moment("created_at"),
        key="id",
        references={"table_id": "game_tables"},
        indexes=["reported", "status"],
    )
    op.create_index("ix_complaints_reporter_created_at", "complaints", ["reporter", "created_at"])
    op.create_index(
        "uq_complaints_reporter_reported_table",
        "complaints",
        ["reporter", "reported", "table_id"],
        unique=True,
    )


def downgrade() -> None:
    op.drop_index("uq_complaints_reporter_reported_table", table_name="complaints")
    op.drop_index("ix_complaints_reporter_created_at", table_name="complaints")
    drop_indexes("complaints", "status", "reported")
    op.drop_table("complaints")
