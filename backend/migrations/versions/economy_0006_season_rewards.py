"""Economy: a season's reward table for its leaderboard's top places.

Revision ID: economy_h25seasonrewards_0001
Revises: economy_h25screening_0001
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from backend.migrations.columns import foreign_key, moment, primary_key

revision = "economy_h25seasonrewards_0001"
down_revision = "economy_h25screening_0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "economy_season_rewards",
        sa.Column("season_id", sa.Integer(), nullable=False),
        sa.Column("places", sa.JSON(), nullable=False),
        sa.Column("total", sa.String(length=80), nullable=False),
        sa.Column("settlement_key", sa.String(length=32), nullable=False),
        moment("planned_at", nullable=True),
        moment("created_at"),
        foreign_key("economy_season_rewards", "season_id", "economy_seasons"),
        primary_key("economy_season_rewards", "season_id"),
        sa.UniqueConstraint(
            "settlement_key", name=op.f("uq_economy_season_rewards_settlement_key")
        ),
    )


def downgrade() -> None:
    op.drop_table("economy_season_rewards")
