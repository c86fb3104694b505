"""Economy: a season's reward table for its leaderboard's top places."""

from __future__ import annotations

from alembic import op

from backend.migrations.columns import (
    amount,
    create_table,
    integer,
    json,
    moment,
    string,
)

revision = "economy_h25seasonrewards_0001"
down_revision = "economy_h25screening_0001"


def upgrade() -> None:
    create_table(
        "economy_season_rewards",
        integer("season_id"),
        json("places"),
        amount("total"),
        string("settlement_key", 32),
        moment("planned_at", nullable=True),
        moment("created_at"),
        key="season_id",
        references={"season_id": "economy_seasons"},
        uniques=["settlement_key"],
    )


def downgrade() -> None:
    op.drop_table("economy_season_rewards")
