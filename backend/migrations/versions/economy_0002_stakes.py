"""Economy: stake balances (deposits into the vault) and their history."""

from __future__ import annotations

from alembic import op

from backend.migrations.columns import (
    address,
    amount,
    create_table,
    drop_indexes,
    integer,
    log_position,
    moment,
    serial_id,
    string,
)

revision = "economy_0002"
down_revision = "economy_0001"


def upgrade() -> None:
    create_table(
        "economy_stake_wallets",
        address("address"),
        amount("balance"),
        key="address",
    )
    create_table(
        "economy_stake_entries",
        serial_id(),
        address("address"),
        string("kind", 16),
        amount("amount"),
        string("match_id", 32, nullable=True),
        integer("seat", nullable=True),
        *log_position(nullable=True),
        moment("created_at"),
        key="id",
        uniques=[("kind", "match_id", "seat"), ("tx_hash", "log_index")],
        indexes=["address", "match_id"],
    )


def downgrade() -> None:
    drop_indexes("economy_stake_entries", "match_id", "address")
    op.drop_table("economy_stake_entries")
    op.drop_table("economy_stake_wallets")
