"""Centers: the GameCenter NFT mirror and the events it applied.

Revision ID: centers_h20centers_0001
Revises: 0000_base
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "centers_h20centers_0001"
down_revision = "0000_base"
branch_labels = ("centers",)
depends_on = None


def upgrade() -> None:
    op.create_table(
        "game_centers",
        sa.Column("center_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("country", sa.String(length=2), nullable=False),
        sa.Column("city", sa.String(length=64), nullable=False),
        sa.Column("lat_e2", sa.Integer(), nullable=False),
        sa.Column("lon_e2", sa.Integer(), nullable=False),
        sa.Column("capacity", sa.Integer(), nullable=False),
        sa.Column("owner", sa.String(length=42), nullable=False),
        sa.Column("renter", sa.String(length=42), nullable=True),
        sa.Column("rented_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("minted_block", sa.BigInteger(), nullable=False),
        sa.Column("updated_block", sa.BigInteger(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("center_id", name=op.f("pk_game_centers")),
    )
    op.create_index("ix_game_centers_lat_lon", "game_centers", ["lat_e2", "lon_e2"])
    op.create_index(op.f("ix_game_centers_name"), "game_centers", ["name"])
    op.create_index(op.f("ix_game_centers_owner"), "game_centers", ["owner"])
    op.create_index(op.f("ix_game_centers_renter"), "game_centers", ["renter"])
    op.create_table(
        "game_center_events",
        sa.Column("tx_hash", sa.String(length=66), nullable=False),
        sa.Column("log_index", sa.Integer(), nullable=False),
        sa.Column("center_id", sa.BigInteger(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("block_number", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("tx_hash", "log_index", name=op.f("pk_game_center_events")),
    )
    op.create_index(op.f("ix_game_center_events_center_id"), "game_center_events", ["center_id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_game_center_events_center_id"), table_name="game_center_events")
    op.drop_table("game_center_events")
    op.drop_index(op.f("ix_game_centers_renter"), table_name="game_centers")
    op.drop_index(op.f("ix_game_centers_owner"), table_name="game_centers")
    op.drop_index(op.f("ix_game_centers_name"), table_name="game_centers")
    op.drop_index("ix_game_centers_lat_lon", table_name="game_centers")
    op.drop_table("game_centers")
