"""Centers: the GameCenter NFT mirror and the events it applied."""

from __future__ import annotations

from alembic import op

from backend.migrations.columns import (
    address,
    big_integer,
    chain_key,
    create_indexes,
    create_table,
    drop_index,
    drop_indexes,
    each,
    integer,
    log_position,
    moment,
    string,
)

revision = "centers_h20centers_0001"
down_revision = "0000_base"
branch_labels = ("centers",)


def upgrade() -> None:
    create_table(
        "game_centers",
        chain_key("center_id"),
        string("name", 64),
        string("country", 2),
        string("city", 64),
        *each(integer, "lat_e2", "lon_e2", "capacity"),
        address("owner"),
        address("renter", nullable=True),
        moment("rented_until", nullable=True),
        *each(big_integer, "minted_block", "updated_block"),
        moment("updated_at"),
        key="center_id",
    )
    op.create_index("ix_game_centers_lat_lon", "game_centers", ["lat_e2", "lon_e2"])
    create_indexes("game_centers", "name", "owner", "renter")
    create_table(
        "game_center_events",
        *log_position(),
        big_integer("center_id"),
        string("kind", 16),
        big_integer("block_number"),
        key=("tx_hash", "log_index"),
        indexes=["center_id"],
    )


def downgrade() -> None:
    drop_index("game_center_events", "center_id")
    op.drop_table("game_center_events")
    drop_indexes("game_centers", "renter", "owner", "name")
    op.drop_index("ix_game_centers_lat_lon", table_name="game_centers")
    op.drop_table("game_centers")
