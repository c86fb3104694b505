"""Competitions: tournaments, entrants and their games."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from backend.migrations.columns import (
    address,
    amount,
    boolean,
    create_table,
    drop_index,
    drop_indexes,
    each,
    integer,
    json,
    moment,
    seat_occupant,
    serial_id,
    string,
    text,
)

revision = "competitions_0001"
# Foreign keys to seasons (economy) and to tables and matches (tables): it comes after both.
# (Branching from 0000_base with depends_on on two sibling branches trips Alembic's head
# bookkeeping, KeyError '0000_base', so this revision merges them instead.)
down_revision = ("economy_0002", "tables_0001")
branch_labels = ("competitions",)


def upgrade() -> None:
    create_table(
        "competitions_tournaments",
        serial_id(),
        string("name", 64),
        *each(string, "tier", "format", length=16),
        string("preset", 64),
        json("options"),
        integer("season_id", nullable=True),
        *each(amount, "entry_fee", "added_prize"),
        integer("fee_bps"),
        json("prize_bps"),
        integer("qualify_top"),
        *each(integer, "qualifier_of", "max_rank", nullable=True),
        *each(boolean, "requires_vip", "requires_avatar"),
        *each(integer, "min_entrants", "max_entrants"),
        moment("starts_at"),
        sa.Column("round_every_s", sa.Float(), nullable=False),
        sa.Column("turn_timeout_s", sa.Float(), nullable=False),
        *each(string, "bot_level", "status", length=16),
        *each(integer, "rounds_total", "current_round", "version"),
        address("created_by", nullable=True),
        moment("finished_at", nullable=True),
        text("cancel_reason", nullable=True),
        moment("created_at"),
        key="id",
        references={"season_id": "economy_seasons", "qualifier_of": "competitions_tournaments"},
        uniques=["name"],
        indexes=["status"],
    )
    create_table(
        "competitions_entrants",
        *each(integer, "tournament_id", "number"),
        *seat_occupant(),
        amount("fee_paid"),
        *each(integer, "seed", "place", nullable=True),
        integer("score"),
        amount("prize"),
        boolean("qualified"),
        moment("registered_at"),
        key=("tournament_id", "number"),
        references={"tournament_id": "competitions_tournaments"},
        uniques=[("tournament_id", "address")],
        indexes=["address"],
    )
    create_table(
        "competitions_games",
        *each(integer, "tournament_id", "round", "board", "a"),
        integer("b", nullable=True),
        *each(string, "table_id", "match_id", length=32, nullable=True),
        string("status", 16),
        integer("winner", nullable=True),
        string("outcome", 16, nullable=True),
        key=("tournament_id", "round", "board"),
        references={
            "tournament_id": "competitions_tournaments",
            "table_id": "game_tables",
            "match_id": "matches",
        },
        indexes=["match_id", "status"],
    )


def downgrade() -> None:
    drop_indexes("competitions_games", "status", "match_id")
    op.drop_table("competitions_games")
    drop_index("competitions_entrants", "address")
    op.drop_table("competitions_entrants")
    drop_index("competitions_tournaments", "status")
    op.drop_table("competitions_tournaments")
