"""Centers: the GameCenter NFT mirror and the events it applied.

Revision ID: centers_h20centers_0001
Revises: 0000_base
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from backend.migrations.columns import address, create_index, drop_index, moment, primary_key

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
        address("owner"),
        address("renter", nullable=True),
        moment("rented_until", nullable=True),
        sa.Column("minted_block", sa.BigInteger(), nullable=False),
        sa.Column("updated_block", sa.BigInteger(), nullable=False),
        moment("updated_at"),
        primary_key("game_centers", "center_id"),
    )
    op.create_index("ix_game_centers_lat_lon", "game_centers", ["lat_e2", "lon_e2"])
    create_index("game_centers", "name")
    create_index("game_centers", "owner")
    create_index("game_centers", "renter")
    op.create_table(
        "game_center_events",
        sa.Column("tx_hash", sa.String(length=66), nullable=False),
        sa.Column("log_index", sa.Integer(), nullable=False),
        sa.Column("center_id", sa.BigInteger(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("block_number", sa.BigInteger(), nullable=False),
        primary_key("game_center_events", "tx_hash", "log_index"),
    )
    create_index("game_center_events", "center_id")


def downgrade() -> None:
    drop_index("game_center_events", "center_id")
    op.drop_table("game_center_events")
    drop_index("game_centers", "renter")
    drop_index("game_centers", "owner")
    drop_index("game_centers", "name")
    op.drop_index("ix_game_centers_lat_lon", table_name="game_centers")
    op.drop_table("game_centers")
