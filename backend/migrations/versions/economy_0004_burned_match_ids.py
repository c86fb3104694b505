"""Economy: match ids burned by someone else's settlement, and what they were re-issued as.

Revision ID: economy_h18settle_0001
Revises: economy_0003
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from backend.migrations.columns import create_index, drop_index, moment, primary_key

revision = "economy_h18settle_0001"
down_revision = "economy_0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "economy_burned_match_ids",
        sa.Column("chain_match_id", sa.String(length=66), nullable=False),
        sa.Column("match_id", sa.String(length=32), nullable=False),
        sa.Column("request_id", sa.Integer(), nullable=True),
        sa.Column("foreign_tx_hash", sa.String(length=66), nullable=False),
        sa.Column("foreign_result_hash", sa.String(length=66), nullable=False),
        sa.Column("foreign_paid", sa.String(length=80), nullable=False),
        sa.Column("foreign_block", sa.BigInteger(), nullable=False),
        sa.Column("reissued_as", sa.String(length=66), nullable=False),
        sa.Column("reissue_request_id", sa.Integer(), nullable=True),
        moment("detected_at"),
        sa.ForeignKeyConstraint(
            ["match_id"],
            ["economy_settlements.match_id"],
            name=op.f("fk_economy_burned_match_ids_match_id_economy_settlements"),
        ),
        primary_key("economy_burned_match_ids", "chain_match_id"),
        sa.UniqueConstraint("reissued_as", name=op.f("uq_economy_burned_match_ids_reissued_as")),
    )
    create_index("economy_burned_match_ids", "match_id")


def downgrade() -> None:
    drop_index("economy_burned_match_ids", "match_id")
    op.drop_table("economy_burned_match_ids")
