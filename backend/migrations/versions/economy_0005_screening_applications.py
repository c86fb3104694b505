"""Economy: owners' screening applications and how screeners decided them."""

from __future__ import annotations

from alembic import op

from backend.migrations.columns import (
    address,
    big_integer,
    create_indexes,
    create_unique_where,
    drop_indexes,
    hash32,
    moment,
    primary_key,
    serial_id,
    string,
    text,
    unique,
)

revision = "economy_h25screening_0001"
down_revision = "economy_h18settle_0001"

TABLE = "economy_screening_applications"


def upgrade() -> None:
    op.create_table(
        TABLE,
        serial_id(),
        address("applicant"),
        text("statement"),
        string("status", 16),
        text("reason", nullable=True),
        address("decided_by", nullable=True),
        hash32("tx_hash", nullable=True),
        big_integer("block_number", nullable=True),
        moment("created_at"),
        moment("decided_at", nullable=True),
        primary_key(TABLE, "id"),
        unique(TABLE, "tx_hash", "applicant"),
    )
    create_indexes(TABLE, "applicant", "status")
    create_unique_where(
        "uq_economy_screening_applications_open", TABLE, ["applicant"], "status = 'pending'"
    )


def downgrade() -> None:
    op.drop_index("uq_economy_screening_applications_open", table_name=TABLE)
    drop_indexes(TABLE, "status", "applicant")
    op.drop_table(TABLE)
