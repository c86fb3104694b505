"""Economy: match ids burned by someone else's settlement, and what they were re-issued as."""

from __future__ import annotations

from alembic import op

from backend.migrations.columns import (
    amount,
    big_integer,
    create_table,
    drop_index,
    each,
    hash32,
    integer,
    moment,
    string,
)

revision = "economy_h18settle_0001"
down_revision = "economy_0003"


def upgrade() -> None:
    create_table(
        "economy_burned_match_ids",
        hash32("chain_match_id"),
        string("match_id", 32),
        integer("request_id", nullable=True),
        *each(hash32, "foreign_tx_hash", "foreign_result_hash"),
        amount("foreign_paid"),
        big_integer("foreign_block"),
        hash32("reissued_as"),
        integer("reissue_request_id", nullable=True),
        moment("detected_at"),
        key="chain_match_id",
        references={"match_id": "economy_settlements.match_id"},
        uniques=["reissued_as"],
        indexes=["match_id"],
    )


def downgrade() -> None:
    drop_index("economy_burned_match_ids", "match_id")
    op.drop_table("economy_burned_match_ids")
