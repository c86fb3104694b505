"""Competitions: tournaments, entrants and their games.

Revision ID: competitions_0001
Revises: economy_0002, tables_0001
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

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
        sa.Column("starts_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("round_every_s", sa.Float(), nullable=False),
        sa.Column("turn_timeout_s", sa.Float(), nullable=False),
        sa.Column("bot_level", sa.String(length=16), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("rounds_total", sa.Integer(), nullable=False),
        sa.Column("current_round", sa.Integer(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("created_by", sa.String(length=42), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("cancel_reason", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["season_id"],
            ["economy_seasons.id"],
            name=op.f("fk_competitions_tournaments_season_id_economy_seasons"),
        ),
        sa.ForeignKeyConstraint(
            ["qualifier_of"],
            ["competitions_tournaments.id"],
            name=op.f("fk_competitions_tournaments_qualifier_of_competitions_tournaments"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_competitions_tournaments")),
        sa.UniqueConstraint("name", name=op.f("uq_competitions_tournaments_name")),
    )
    op.create_index(
        op.f("ix_competitions_tournaments_status"),
        "competitions_tournaments",
        ["status"],
        unique=False,
    )
    op.create_table(
        "competitions_entrants",
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("address", sa.String(length=42), nullable=True),
        sa.Column("bot_level", sa.String(length=16), nullable=True),
        sa.Column("avatar_id", sa.BigInteger(), nullable=True),
        sa.Column("admitted_as", sa.String(length=16), nullable=True),
        sa.Column("fee_paid", sa.String(length=80), nullable=False),
        sa.Column("seed", sa.Integer(), nullable=True),
        sa.Column("place", sa.Integer(), nullable=True),
        sa.Column("score", sa.Integer(), nullable=False),
        sa.Column("prize", sa.String(length=80), nullable=False),
        sa.Column("qualified", sa.Boolean(), nullable=False),
        sa.Column("registered_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["competitions_tournaments.id"],
            name=op.f("fk_competitions_entrants_tournament_id_competitions_tournaments"),
        ),
        sa.PrimaryKeyConstraint("tournament_id", "number", name=op.f("pk_competitions_entrants")),
        sa.UniqueConstraint(
            "tournament_id", "address", name=op.f("uq_competitions_entrants_tournament_id")
        ),
    )
    op.create_index(
        op.f("ix_competitions_entrants_address"), "competitions_entrants", ["address"], unique=False
    )
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
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["competitions_tournaments.id"],
            name=op.f("fk_competitions_games_tournament_id_competitions_tournaments"),
        ),
        sa.ForeignKeyConstraint(
            ["table_id"],
            ["game_tables.id"],
            name=op.f("fk_competitions_games_table_id_game_tables"),
        ),
        sa.ForeignKeyConstraint(
            ["match_id"], ["matches.id"], name=op.f("fk_competitions_games_match_id_matches")
        ),
        sa.PrimaryKeyConstraint(
            "tournament_id", "round", "board", name=op.f("pk_competitions_games")
        ),
    )
    op.create_index(
        op.f("ix_competitions_games_match_id"), "competitions_games", ["match_id"], unique=False
    )
    op.create_index(
        op.f("ix_competitions_games_status"), "competitions_games", ["status"], unique=False
    )


def downgrade() -> None:
    op.drop_index(op.f("ix_competitions_games_status"), table_name="competitions_games")
    op.drop_index(op.f("ix_competitions_games_match_id"), table_name="competitions_games")
    op.drop_table("competitions_games")
    op.drop_index(op.f("ix_competitions_entrants_address"), table_name="competitions_entrants")
    op.drop_table("competitions_entrants")
    op.drop_index(op.f("ix_competitions_tournaments_status"), table_name="competitions_tournaments")
    op.drop_table("competitions_tournaments")
