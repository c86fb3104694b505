"""Care: moderators' sanctions and their audit, moderators, players' own limits and breaks,
and the deposits asked for at the deposit door (backend/care)."""

from __future__ import annotations

from alembic import op

from backend.migrations.columns import (
    address,
    amount,
    create_indexes,
    foreign_key,
    integer,
    moment,
    primary_key,
    serial_id,
    string,
)

revision = "care_h32standing_0001"
down_revision = "0000_base"
branch_labels = ("care",)
# A sanction names the complaint it answers (tables' complaints, by id).
depends_on = "tables_h20centers_0001"


def upgrade() -> None:
    op.create_table(
        "care_sanctions",
        serial_id(),
        address("address"),
        string("kind", 16),
        string("reason", 280),
        integer("complaint_id", nullable=True),
        address("imposed_by"),
        moment("expires_at"),
        moment("lifted_at", nullable=True),
        string("appeal", 560, nullable=True),
        moment("appealed_at", nullable=True),
        string("answer", 280, nullable=True),
        address("answered_by", nullable=True),
        moment("answered_at", nullable=True),
        moment("created_at"),
        primary_key("care_sanctions", "id"),
    )
    op.create_index(
        "ix_care_sanctions_address_expires_at", "care_sanctions", ["address", "expires_at"]
    )
    op.create_table(
        "care_audit",
        serial_id(),
        integer("sanction_id"),
        string("action", 16),
        address("actor"),
        string("note", 560, nullable=True),
        moment("created_at"),
        foreign_key("care_audit", "sanction_id", "care_sanctions"),
        primary_key("care_audit", "id"),
    )
    create_indexes("care_audit", "sanction_id")
    op.create_table(
        "care_moderators",
        address("address"),
        address("granted_by"),
        moment("created_at"),
        primary_key("care_moderators", "address"),
    )
    op.create_table(
        "care_limits",
        address("address"),
        string("kind", 16),
        string("period", 8),
        amount("amount", nullable=True),
        amount("pending", nullable=True),
        moment("pending_from", nullable=True),
        moment("created_at"),
        primary_key("care_limits", "address", "kind", "period"),
    )
    op.create_table(
        "care_breaks",
        serial_id(),
        address("address"),
        string("kind", 16),
        moment("starts_at"),
        moment("ends_at"),
        moment("created_at"),
        primary_key("care_breaks", "id"),
    )
    op.create_index("ix_care_breaks_address_ends_at", "care_breaks", ["address", "ends_at"])
    op.create_table(
        "care_deposits",
        serial_id(),
        address("address"),
        amount("amount"),
        moment("created_at"),
        primary_key("care_deposits", "id"),
    )
    op.create_index(
        "ix_care_deposits_address_created_at", "care_deposits", ["address", "created_at"]
    )


def downgrade() -> None:
    op.drop_index("ix_care_deposits_address_created_at", table_name="care_deposits")
    op.drop_table("care_deposits")
    op.drop_index("ix_care_breaks_address_ends_at", table_name="care_breaks")
    op.drop_table("care_breaks")
    op.drop_table("care_limits")
    op.drop_table("care_moderators")
    op.drop_index("ix_care_audit_sanction_id", table_name="care_audit")
    op.drop_table("care_audit")
    op.drop_index("ix_care_sanctions_address_expires_at", table_name="care_sanctions")
    op.drop_table("care_sanctions")
