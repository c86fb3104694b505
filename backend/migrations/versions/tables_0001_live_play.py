"""Tables: tables, seats, invitations, matchmaking, matches, move logs, results, settlement outbox.

Revision ID: tables_0001
Revises: 0000_base
Create Date: 2026-11-21
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "tables_0001"
down_revision = "0000_base"
branch_labels = ("tables",)
depends_on = None


def upgrade() -> None:
    op.create_table(
        "game_tables",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("preset", sa.String(length=64), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("seat_count", sa.Integer(), nullable=False),
        sa.Column("stake", sa.String(length=80), nullable=False),
        sa.Column("earning", sa.Boolean(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("visibility", sa.String(length=16), nullable=False),
        sa.Column("invite_code", sa.String(length=32), nullable=False),
        sa.Column("creator", sa.String(length=42), nullable=True),
        sa.Column("bot_level", sa.String(length=16), nullable=False),
        sa.Column("turn_timeout_s", sa.Float(), nullable=False),
        sa.Column("spectators_allowed", sa.Boolean(), nullable=False),
        sa.Column("spectator_delay_s", sa.Float(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("match_id", sa.String(length=32), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_game_tables")),
        sa.UniqueConstraint("invite_code", name=op.f("uq_game_tables_invite_code")),
    )
    op.create_index(op.f("ix_game_tables_status"), "game_tables", ["status"], unique=False)
    op.create_table(
        "matchmaking_tickets",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("address", sa.String(length=42), nullable=False),
        sa.Column("preset", sa.String(length=64), nullable=False),
        sa.Column("earning", sa.Boolean(), nullable=False),
        sa.Column("avatar_id", sa.BigInteger(), nullable=True),
        sa.Column("admitted_as", sa.String(length=16), nullable=True),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("table_id", sa.String(length=32), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_matchmaking_tickets")),
    )
    op.create_index(
        op.f("ix_matchmaking_tickets_address"), "matchmaking_tickets", ["address"], unique=False
    )
    op.create_index(
        op.f("ix_matchmaking_tickets_status"), "matchmaking_tickets", ["status"], unique=False
    )
    op.create_table(
        "matches",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("table_id", sa.String(length=32), nullable=False),
        sa.Column("preset", sa.String(length=64), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("seats", sa.JSON(), nullable=False),
        sa.Column("seed", sa.String(length=64), nullable=False),
        sa.Column("seed_commitment", sa.String(length=64), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("result", sa.JSON(), nullable=True),
        sa.Column("record", sa.JSON(), nullable=True),
        sa.Column("result_hash", sa.String(length=66), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["table_id"], ["game_tables.id"], name=op.f("fk_matches_table_id_game_tables")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_matches")),
    )
    op.create_index(op.f("ix_matches_status"), "matches", ["status"], unique=False)
    op.create_index(op.f("ix_matches_table_id"), "matches", ["table_id"], unique=False)
    op.create_table(
        "table_invitations",
        sa.Column("table_id", sa.String(length=32), nullable=False),
        sa.Column("address", sa.String(length=42), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["table_id"], ["game_tables.id"], name=op.f("fk_table_invitations_table_id_game_tables")
        ),
        sa.PrimaryKeyConstraint("table_id", "address", name=op.f("pk_table_invitations")),
    )
    op.create_table(
        "table_seats",
        sa.Column("table_id", sa.String(length=32), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("address", sa.String(length=42), nullable=True),
        sa.Column("bot_level", sa.String(length=16), nullable=True),
        sa.Column("avatar_id", sa.BigInteger(), nullable=True),
        sa.Column("admitted_as", sa.String(length=16), nullable=True),
        sa.Column("joined_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["table_id"], ["game_tables.id"], name=op.f("fk_table_seats_table_id_game_tables")
        ),
        sa.PrimaryKeyConstraint("table_id", "seat", name=op.f("pk_table_seats")),
    )
    op.create_index(op.f("ix_table_seats_address"), "table_seats", ["address"], unique=False)
    op.create_table(
        "match_moves",
        sa.Column("match_id", sa.String(length=32), nullable=False),
        sa.Column("ply", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("move", sa.JSON(), nullable=True),
        sa.Column("actor", sa.String(length=16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["match_id"], ["matches.id"], name=op.f("fk_match_moves_match_id_matches")
        ),
        sa.PrimaryKeyConstraint("match_id", "ply", name=op.f("pk_match_moves")),
    )
    op.create_table(
        "match_results",
        sa.Column("match_id", sa.String(length=32), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("address", sa.String(length=42), nullable=True),
        sa.Column("avatar_id", sa.BigInteger(), nullable=True),
        sa.Column("is_bot", sa.Boolean(), nullable=False),
        sa.Column("team", sa.Integer(), nullable=True),
        sa.Column("placement", sa.Integer(), nullable=False),
        sa.Column("points", sa.Integer(), nullable=False),
        sa.Column("won", sa.Boolean(), nullable=False),
        sa.Column("forfeited", sa.Boolean(), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["match_id"], ["matches.id"], name=op.f("fk_match_results_match_id_matches")
        ),
        sa.PrimaryKeyConstraint("match_id", "seat", name=op.f("pk_match_results")),
    )
    op.create_index(op.f("ix_match_results_address"), "match_results", ["address"], unique=False)
    op.create_index(
        op.f("ix_match_results_avatar_id"), "match_results", ["avatar_id"], unique=False
    )
    op.create_table(
        "settlement_requests",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("idempotency_key", sa.String(length=64), nullable=False),
        sa.Column("match_id", sa.String(length=32), nullable=False),
        sa.Column("chain_match_id", sa.String(length=66), nullable=False),
        sa.Column("table_id", sa.String(length=32), nullable=False),
        sa.Column("preset", sa.String(length=64), nullable=False),
        sa.Column("earning", sa.Boolean(), nullable=False),
        sa.Column("stake", sa.String(length=80), nullable=False),
        sa.Column("result_hash", sa.String(length=66), nullable=False),
        sa.Column("seats", sa.JSON(), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["match_id"], ["matches.id"], name=op.f("fk_settlement_requests_match_id_matches")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_settlement_requests")),
        sa.UniqueConstraint("chain_match_id", name=op.f("uq_settlement_requests_chain_match_id")),
        sa.UniqueConstraint("idempotency_key", name=op.f("uq_settlement_requests_idempotency_key")),
        sa.UniqueConstraint("match_id", name=op.f("uq_settlement_requests_match_id")),
    )
    op.create_index(
        op.f("ix_settlement_requests_status"), "settlement_requests", ["status"], unique=False
    )


def downgrade() -> None:

    op.drop_index(op.f("ix_settlement_requests_status"), table_name="settlement_requests")
    op.drop_table("settlement_requests")
    op.drop_index(op.f("ix_match_results_avatar_id"), table_name="match_results")
    op.drop_index(op.f("ix_match_results_address"), table_name="match_results")
    op.drop_table("match_results")
    op.drop_table("match_moves")
    op.drop_index(op.f("ix_table_seats_address"), table_name="table_seats")
    op.drop_table("table_seats")
    op.drop_table("table_invitations")
    op.drop_index(op.f("ix_matches_table_id"), table_name="matches")
    op.drop_index(op.f("ix_matches_status"), table_name="matches")
    op.drop_table("matches")
    op.drop_index(op.f("ix_matchmaking_tickets_status"), table_name="matchmaking_tickets")
    op.drop_index(op.f("ix_matchmaking_tickets_address"), table_name="matchmaking_tickets")
    op.drop_table("matchmaking_tickets")
    op.drop_index(op.f("ix_game_tables_status"), table_name="game_tables")
    op.drop_table("game_tables")
