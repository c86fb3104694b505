"""Tables: tables, seats, invitations, matchmaking, matches, move logs, results, settlement outbox.

Revision ID: tables_0001
Revises: 0000_base
Create Date: 2026-11-21
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
        address("creator", nullable=True),
        sa.Column("bot_level", sa.String(length=16), nullable=False),
        sa.Column("turn_timeout_s", sa.Float(), nullable=False),
        sa.Column("spectators_allowed", sa.Boolean(), nullable=False),
        sa.Column("spectator_delay_s", sa.Float(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("match_id", sa.String(length=32), nullable=True),
        moment("created_at"),
        primary_key("game_tables", "id"),
        sa.UniqueConstraint("invite_code", name=op.f("uq_game_tables_invite_code")),
    )
    create_index("game_tables", "status")
    op.create_table(
        "matchmaking_tickets",
        sa.Column("id", sa.String(length=32), nullable=False),
        address("address"),
        sa.Column("preset", sa.String(length=64), nullable=False),
        sa.Column("earning", sa.Boolean(), nullable=False),
        sa.Column("avatar_id", sa.BigInteger(), nullable=True),
        sa.Column("admitted_as", sa.String(length=16), nullable=True),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("table_id", sa.String(length=32), nullable=True),
        moment("created_at"),
        primary_key("matchmaking_tickets", "id"),
    )
    create_index("matchmaking_tickets", "address")
    create_index("matchmaking_tickets", "status")
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
        moment("finished_at", nullable=True),
        sa.Column("result", sa.JSON(), nullable=True),
        sa.Column("record", sa.JSON(), nullable=True),
        sa.Column("result_hash", sa.String(length=66), nullable=True),
        moment("created_at"),
        foreign_key("matches", "table_id", "game_tables"),
        primary_key("matches", "id"),
    )
    create_index("matches", "status")
    create_index("matches", "table_id")
    op.create_table(
        "table_invitations",
        sa.Column("table_id", sa.String(length=32), nullable=False),
        address("address"),
        moment("created_at"),
        foreign_key("table_invitations", "table_id", "game_tables"),
        primary_key("table_invitations", "table_id", "address"),
    )
    op.create_table(
        "table_seats",
        sa.Column("table_id", sa.String(length=32), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        address("address", nullable=True),
        sa.Column("bot_level", sa.String(length=16), nullable=True),
        sa.Column("avatar_id", sa.BigInteger(), nullable=True),
        sa.Column("admitted_as", sa.String(length=16), nullable=True),
        moment("joined_at"),
        foreign_key("table_seats", "table_id", "game_tables"),
        primary_key("table_seats", "table_id", "seat"),
    )
    create_index("table_seats", "address")
    op.create_table(
        "match_moves",
        sa.Column("match_id", sa.String(length=32), nullable=False),
        sa.Column("ply", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("move", sa.JSON(), nullable=True),
        sa.Column("actor", sa.String(length=16), nullable=False),
        moment("created_at"),
        foreign_key("match_moves", "match_id", "matches"),
        primary_key("match_moves", "match_id", "ply"),
    )
    op.create_table(
        "match_results",
        sa.Column("match_id", sa.String(length=32), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        address("address", nullable=True),
        sa.Column("avatar_id", sa.BigInteger(), nullable=True),
        sa.Column("is_bot", sa.Boolean(), nullable=False),
        sa.Column("team", sa.Integer(), nullable=True),
        sa.Column("placement", sa.Integer(), nullable=False),
        sa.Column("points", sa.Integer(), nullable=False),
        sa.Column("won", sa.Boolean(), nullable=False),
        sa.Column("forfeited", sa.Boolean(), nullable=False),
        moment("finished_at"),
        foreign_key("match_results", "match_id", "matches"),
        primary_key("match_results", "match_id", "seat"),
    )
    create_index("match_results", "address")
    create_index("match_results", "avatar_id")
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
        moment("finished_at"),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("last_error", sa.Text(), nullable=True),
        moment("updated_at", nullable=True),
        moment("created_at"),
        foreign_key("settlement_requests", "match_id", "matches"),
        primary_key("settlement_requests", "id"),
        sa.UniqueConstraint("chain_match_id", name=op.f("uq_settlement_requests_chain_match_id")),
        sa.UniqueConstraint("idempotency_key", name=op.f("uq_settlement_requests_idempotency_key")),
        sa.UniqueConstraint("match_id", name=op.f("uq_settlement_requests_match_id")),
    )
    create_index("settlement_requests", "status")


def downgrade() -> None:

    drop_index("settlement_requests", "status")
    op.drop_table("settlement_requests")
    drop_index("match_results", "avatar_id")
    drop_index("match_results", "address")
    op.drop_table("match_results")
    op.drop_table("match_moves")
    drop_index("table_seats", "address")
    op.drop_table("table_seats")
    op.drop_table("table_invitations")
    drop_index("matches", "table_id")
    drop_index("matches", "status")
    op.drop_table("matches")
    drop_index("matchmaking_tickets", "status")
    drop_index("matchmaking_tickets", "address")
    op.drop_table("matchmaking_tickets")
    drop_index("game_tables", "status")
    op.drop_table("game_tables")
