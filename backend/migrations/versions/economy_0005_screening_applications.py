"""Economy: owners' screening applications and how screeners decided them.

Revision ID: economy_h25screening_0001
Revises: economy_h18settle_0001
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from backend.migrations.columns import address, moment, primary_key

revision = "economy_h25screening_0001"
down_revision = "economy_h18settle_0001"
branch_labels = None
depends_on = None

TABLE = "economy_screening_applications"


def upgrade() -> None:
    op.create_table(
        TABLE,
        sa.Column("id", sa.Integer(), nullable=False),
        address("applicant"),
        sa.Column("statement", sa.Text(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("reason", sa.Text(), nullable=True),
        address("decided_by", nullable=True),
        sa.Column("tx_hash", sa.String(length=66), nullable=True),
        sa.Column("block_number", sa.BigInteger(), nullable=True),
        moment("created_at"),
        moment("decided_at", nullable=True),
        primary_key("economy_screening_applications", "id"),
        sa.UniqueConstraint(
            "tx_hash", "applicant", name=op.f("uq_economy_screening_applications_tx_hash")
        ),
    )
    op.create_index(op.f("ix_economy_screening_applications_applicant"), TABLE, ["applicant"])
    op.create_index(op.f("ix_economy_screening_applications_status"), TABLE, ["status"])
    op.create_index(
        "uq_economy_screening_applications_open",
        TABLE,
        ["applicant"],
        unique=True,
        sqlite_where=sa.text("status = 'pending'"),
        postgresql_where=sa.text("status = 'pending'"),
    )


def downgrade() -> None:
    op.drop_index("uq_economy_screening_applications_open", table_name=TABLE)
    op.drop_index(op.f("ix_economy_screening_applications_status"), table_name=TABLE)
    op.drop_index(op.f("ix_economy_screening_applications_applicant"), table_name=TABLE)
    op.drop_table(TABLE)
