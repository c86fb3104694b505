"""Tables: complaints (reports of players by their table mates, read with `dew complaints`).

Revision ID: tables_h25talk_0001
Revises: tables_h25tables_0001
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

revision = "tables_h25talk_0001"
down_revision = "tables_h25tables_0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "complaints",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        address("reporter"),
        address("reported"),
        sa.Column("table_id", sa.String(length=32), nullable=False),
        sa.Column("reason", sa.String(length=32), nullable=False),
        sa.Column("note", sa.String(length=280), nullable=True),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("resolution", sa.String(length=280), nullable=True),
        moment("closed_at", nullable=True),
        moment("created_at"),
        foreign_key("complaints", "table_id", "game_tables"),
        primary_key("complaints", "id"),
    )
    create_index("complaints", "reported")
    create_index("complaints", "status")
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
    drop_index("complaints", "status")
    drop_index("complaints", "reported")
    op.drop_table("complaints")
