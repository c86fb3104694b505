"""Chain: the outbox, operator wallets (the nonce lock), signed transactions and their history."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from backend.migrations.columns import (
    address,
    big_integer,
    boolean,
    create_table,
    each,
    hash32,
    integer,
    json,
    moment,
    serial_id,
    string,
    text,
)

revision = "chain_0001"
down_revision = "0000_base"


def upgrade() -> None:
    create_table(
        "chain_wallets",
        serial_id(),
        big_integer("chain_id"),
        address("address"),
        big_integer("next_nonce"),
        string("lease_owner", 100, nullable=True),
        moment("lease_until", nullable=True),
        key="id",
        uniques=[("chain_id", "address")],
    )
    create_table(
        "chain_requests",
        serial_id(),
        string("idempotency_key", 200),
        string("kind", 16),
        big_integer("chain_id"),
        json("payload"),
        string("payload_digest", 64),
        string("status", 16),
        text("failure_reason", nullable=True),
        integer("wallet_id", nullable=True),
        big_integer("nonce", nullable=True),
        integer("position", nullable=True),
        integer("attempts"),
        boolean("alone"),
        json("result", nullable=True),
        hash32("tx_hash", nullable=True),
        *each(moment, "created_at", "updated_at"),
        *each(moment, "submitted_at", "confirmed_at", "failed_at", nullable=True),
        key="id",
        references={"wallet_id": "chain_wallets"},
        uniques=["idempotency_key"],
    )
    op.create_index("ix_chain_requests_slot", "chain_requests", ["wallet_id", "nonce"])
    op.create_index("ix_chain_requests_status_id", "chain_requests", ["status", "id"])
    create_table(
        "chain_txs",
        serial_id(),
        integer("wallet_id"),
        big_integer("nonce"),
        *each(string, "kind", "status", length=16),
        hash32("tx_hash"),
        sa.Column("raw", sa.LargeBinary(), nullable=False),
        address("to_address"),
        *each(big_integer, "gas_limit", "max_fee_per_gas", "max_priority_fee_per_gas"),
        integer("replaces_id", nullable=True),
        integer("request_count"),
        big_integer("block_number", nullable=True),
        hash32("block_hash", nullable=True),
        integer("receipt_status", nullable=True),
        big_integer("gas_used", nullable=True),
        text("failure_reason", nullable=True),
        *each(integer, "broadcasts", "reorgs"),
        *each(moment, "created_at", "updated_at", "signed_at"),
        *each(
            moment,
            "sent_at",
            "last_broadcast_at",
            "mined_at",
            "confirmed_at",
            "failed_at",
            "replaced_at",
            nullable=True,
        ),
        key="id",
        references={"replaces_id": "chain_txs", "wallet_id": "chain_wallets"},
        uniques=["tx_hash"],
        indexes=["status"],
    )
    op.create_index("ix_chain_txs_wallet_nonce", "chain_txs", ["wallet_id", "nonce"])
    create_table(
        "chain_tx_events",
        serial_id(),
        integer("tx_id"),
        string("status", 16),
        text("detail", nullable=True),
        moment("at"),
        key="id",
        references={"tx_id": "chain_txs"},
        indexes=["tx_id"],
    )


def downgrade() -> None:
    op.drop_table("chain_tx_events")
    op.drop_table("chain_txs")
    op.drop_table("chain_requests")
    op.drop_table("chain_wallets")
