"""Economy: seasons, planned settlements, the per-wallet ledger and the scholarship mirror."""

from __future__ import annotations

from alembic import op

from backend.migrations.columns import (
    address,
    amount,
    big_integer,
    boolean,
    chain_key,
    create_table,
    drop_index,
    drop_indexes,
    each,
    hash32,
    integer,
    moment,
    seat_outcome,
    serial_id,
    string,
    text,
)

revision = "economy_0001"
down_revision = "0000_base"


def upgrade() -> None:
    create_table(
        "economy_agreements",
        chain_key("id"),
        big_integer("avatar_id"),
        address("owner"),
        address("scholar", nullable=True),
        string("terms", 24),
        big_integer("duration_s"),
        amount("rent"),
        *each(integer, "owner_bps", "manager_bps"),
        address("manager", nullable=True),
        *each(string, "dust_to", "status", length=16),
        *each(big_integer, "starts_at", "ends_at", nullable=True),
        *each(amount, "rent_escrowed", "rent_paid", "rent_refunded"),
        string("ended_by", 16, nullable=True),
        *each(big_integer, "offered_block", "updated_block"),
        key="id",
        indexes=["avatar_id", "owner", "scholar", "status"],
    )
    create_table(
        "economy_indexer_cursors",
        string("name", 64),
        big_integer("next_block"),
        key="name",
    )
    create_table(
        "economy_screened_owners",
        address("address"),
        boolean("approved"),
        address("screener"),
        big_integer("block_number"),
        key="address",
    )
    create_table(
        "economy_seasons",
        serial_id(),
        string("name", 64),
        *each(moment, "starts_at", "ends_at"),
        *each(amount, "emission_budget", "emitted"),
        moment("created_at"),
        key="id",
        uniques=["name"],
        indexes=["starts_at"],
    )
    create_table(
        "economy_settlements",
        string("match_id", 32),
        *each(hash32, "chain_match_id", "result_hash"),
        integer("season_id", nullable=True),
        string("economy", 16),
        string("preset", 64),
        moment("finished_at"),
        *each(amount, "stake_pot", "emission", "fee", "returned", "paid"),
        string("status", 16),
        integer("chain_request_id", nullable=True),
        hash32("tx_hash", nullable=True),
        big_integer("block_number", nullable=True),
        text("failure_reason", nullable=True),
        *each(moment, "created_at", "updated_at"),
        key="match_id",
        references={"season_id": "economy_seasons"},
        uniques=["chain_match_id"],
        indexes=["season_id", "status"],
    )
    create_table(
        "economy_ledger_legs",
        serial_id(),
        string("match_id", 32),
        integer("seat", nullable=True),
        *each(big_integer, "avatar_id", "agreement_id", nullable=True),
        string("party", 16),
        address("address"),
        amount("amount"),
        string("status", 16),
        moment("updated_at"),
        key="id",
        references={"match_id": "economy_settlements.match_id"},
        indexes=["address", "avatar_id", "match_id", "status"],
    )
    create_table(
        "economy_seat_records",
        string("match_id", 32),
        integer("seat"),
        integer("season_id", nullable=True),
        address("address", nullable=True),
        big_integer("avatar_id", nullable=True),
        string("admitted_as", 16, nullable=True),
        *seat_outcome(),
        *each(amount, "stake_share", "emission_share", "amount"),
        boolean("to_avatar"),
        moment("finished_at"),
        key=("match_id", "seat"),
        references={"match_id": "economy_settlements.match_id"},
        indexes=["address", "avatar_id"],
    )
    op.create_index(
        "ix_economy_seat_records_season_address", "economy_seat_records", ["season_id", "address"]
    )


def downgrade() -> None:
    op.drop_index("ix_economy_seat_records_season_address", table_name="economy_seat_records")
    drop_indexes("economy_seat_records", "avatar_id", "address")
    op.drop_table("economy_seat_records")
    drop_indexes("economy_ledger_legs", "status", "match_id", "avatar_id", "address")
    op.drop_table("economy_ledger_legs")
    drop_indexes("economy_settlements", "status", "season_id")
    op.drop_table("economy_settlements")
    drop_index("economy_seasons", "starts_at")
    op.drop_table("economy_seasons")
    op.drop_table("economy_screened_owners")
    op.drop_table("economy_indexer_cursors")
    drop_indexes("economy_agreements", "status", "scholar", "owner", "avatar_id")
    op.drop_table("economy_agreements")
