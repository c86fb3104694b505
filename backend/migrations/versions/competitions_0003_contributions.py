"""Competitions: DEW contributions to tournaments' prize pools, booked once per event.

Revision ID: competitions_h20fees_0001
Revises: competitions_h20centers_0001
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from backend.migrations.columns import address, moment

revision = "competitions_h20fees_0001"
down_revision = "competitions_h20centers_0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "competitions_contributions",
        sa.Column("tx_hash", sa.String(length=66), nullable=False),
        sa.Column("log_index", sa.Integer(), nullable=False),
        sa.Column("tournament_id", sa.BigInteger(), nullable=False),
        address("contributor"),
        sa.Column("amount", sa.String(length=80), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("block_number", sa.BigInteger(), nullable=False),
        moment("created_at"),
        sa.PrimaryKeyConstraint("tx_hash", "log_index"),
    )
    op.create_index(
        "ix_competitions_contributions_tournament_id",
        "competitions_contributions",
        ["tournament_id"],
    )
    op.create_index(
        "ix_competitions_contributions_contributor", "competitions_contributions", ["contributor"]
    )


def downgrade() -> None:
    op.drop_table("competitions_contributions")
