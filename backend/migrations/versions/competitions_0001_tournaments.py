"""Competitions: tournaments, entrants and their games.

Revision ID: competitions_0001
Revises: economy_0002, tables_0001
Create Date: 2026-11-23
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

revision = "competitions_0001"
# Foreign keys to seasons (economy) and to tables and matches (tables): it comes after both.
# (Branching from 0000_base with depends_on on two sibling branches trips Alembic's head
# bookkeeping, KeyError '0000_base', so this revision merges them instead.)
down_revision = ("economy_0002", "tables_0001")
branch_labels = ("competitions",)
depends_on = None


def upgrade() -> None:
    op.create_table(
        "competitions_tournaments",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("tier", sa.String(length=16), nullable=False),
        sa.Column("format", sa.String(length=16), nullable=False),
        sa.Column("preset", sa.String(length=64), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("season_id", sa.Integer(), nullable=True),
        sa.Column("entry_fee", sa.String(length=80), nullable=False),
        sa.Column("added_prize", sa.String(length=80), nullable=False),
        sa.Column("fee_bps", sa.Integer(), nullable=False),
        sa.Column("prize_bps", sa.JSON(), nullable=False),
        sa.Column("qualify_top", sa.Integer(), nullable=False),
        sa.Column("qualifier_of", sa.Integer(), nullable=True),
        sa.Column("max_rank", sa.Integer(), nullable=True),
        sa.Column("requires_vip", sa.Boolean(), nullable=False),
        sa.Column("requires_avatar", sa.Boolean(), nullable=False),
        sa.Column("min_entrants", sa.Integer(), nullable=False),
        sa.Column("max_entrants", sa.Integer(), nullable=False),
        moment("starts_at"),
        sa.Column("round_every_s", sa.Float(), nullable=False),
        sa.Column("turn_timeout_s", sa.Float(), nullable=False),
        sa.Column("bot_level", sa.String(length=16), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("rounds_total", sa.Integer(), nullable=False),
        sa.Column("current_round", sa.Integer(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        address("created_by", nullable=True),
        moment("finished_at", nullable=True),
        sa.Column("cancel_reason", sa.Text(), nullable=True),
        moment("created_at"),
        foreign_key("competitions_tournaments", "season_id", "economy_seasons"),
        foreign_key("competitions_tournaments", "qualifier_of", "competitions_tournaments"),
        primary_key("competitions_tournaments", "id"),
        sa.UniqueConstraint("name", name=op.f("uq_competitions_tournaments_name")),
    )
    create_index("competitions_tournaments", "status")
    op.create_table(
        "competitions_entrants",
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        address("address", nullable=True),
        sa.Column("bot_level", sa.String(length=16), nullable=True),
        sa.Column("avatar_id", sa.BigInteger(), nullable=True),
        sa.Column("admitted_as", sa.String(length=16), nullable=True),
        sa.Column("fee_paid", sa.String(length=80), nullable=False),
        sa.Column("seed", sa.Integer(), nullable=True),
        sa.Column("place", sa.Integer(), nullable=True),
        sa.Column("score", sa.Integer(), nullable=False),
        sa.Column("prize", sa.String(length=80), nullable=False),
        sa.Column("qualified", sa.Boolean(), nullable=False),
        moment("registered_at"),
        foreign_key("competitions_entrants", "tournament_id", "competitions_tournaments"),
        primary_key("competitions_entrants", "tournament_id", "number"),
        sa.UniqueConstraint(
            "tournament_id", "address", name=op.f("uq_competitions_entrants_tournament_id")
        ),
    )
    create_index("competitions_entrants", "address")
    op.create_table(
        "competitions_games",
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("board", sa.Integer(), nullable=False),
        sa.Column("a", sa.Integer(), nullable=False),
        sa.Column("b", sa.Integer(), nullable=True),
        sa.Column("table_id", sa.String(length=32), nullable=True),
        sa.Column("match_id", sa.String(length=32), nullable=True),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("winner", sa.Integer(), nullable=True),
        sa.Column("outcome", sa.String(length=16), nullable=True),
        foreign_key("competitions_games", "tournament_id", "competitions_tournaments"),
        foreign_key("competitions_games", "table_id", "game_tables"),
        foreign_key("competitions_games", "match_id", "matches"),
        sa.PrimaryKeyConstraint(
            "tournament_id", "round", "board", name=op.f("pk_competitions_games")
        ),
    )
    create_index("competitions_games", "match_id")
    create_index("competitions_games", "status")


def downgrade() -> None:
    drop_index("competitions_games", "status")
    drop_index("competitions_games", "match_id")
    op.drop_table("competitions_games")
    drop_index("competitions_entrants", "address")
    op.drop_table("competitions_entrants")
    drop_index("competitions_tournaments", "status")
    op.drop_table("competitions_tournaments")
