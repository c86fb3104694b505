"""Chain: outbox requests, operator wallets (the nonce lock), signed transactions and their history.

Revision ID: chain_0001
Revises: 0000_base
Create Date: 2026-11-21
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from backend.migrations.columns import address, create_index, foreign_key, moment, primary_key

revision = "chain_0001"
down_revision = "0000_base"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "chain_wallets",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("chain_id", sa.BigInteger(), nullable=False),
        address("address"),
        sa.Column("next_nonce", sa.BigInteger(), nullable=False),
        sa.Column("lease_owner", sa.String(length=100), nullable=True),
        moment("lease_until", nullable=True),
        primary_key("chain_wallets", "id"),
        sa.UniqueConstraint("chain_id", "address", name=op.f("uq_chain_wallets_chain_id")),
    )
    op.create_table(
        "chain_requests",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("idempotency_key", sa.String(length=200), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("chain_id", sa.BigInteger(), nullable=False),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.Column("payload_digest", sa.String(length=64), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("failure_reason", sa.Text(), nullable=True),
        sa.Column("wallet_id", sa.Integer(), nullable=True),
        sa.Column("nonce", sa.BigInteger(), nullable=True),
        sa.Column("position", sa.Integer(), nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("alone", sa.Boolean(), nullable=False),
        sa.Column("result", sa.JSON(), nullable=True),
        sa.Column("tx_hash", sa.String(length=66), nullable=True),
        moment("created_at"),
        moment("updated_at"),
        moment("submitted_at", nullable=True),
        moment("confirmed_at", nullable=True),
        moment("failed_at", nullable=True),
        foreign_key("chain_requests", "wallet_id", "chain_wallets"),
        primary_key("chain_requests", "id"),
        sa.UniqueConstraint("idempotency_key", name=op.f("uq_chain_requests_idempotency_key")),
    )
    op.create_index(
        "ix_chain_requests_slot", "chain_requests", ["wallet_id", "nonce"], unique=False
    )
    op.create_index("ix_chain_requests_status_id", "chain_requests", ["status", "id"], unique=False)
    op.create_table(
        "chain_txs",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("wallet_id", sa.Integer(), nullable=False),
        sa.Column("nonce", sa.BigInteger(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("tx_hash", sa.String(length=66), nullable=False),
        sa.Column("raw", sa.LargeBinary(), nullable=False),
        address("to_address"),
        sa.Column("gas_limit", sa.BigInteger(), nullable=False),
        sa.Column("max_fee_per_gas", sa.BigInteger(), nullable=False),
        sa.Column("max_priority_fee_per_gas", sa.BigInteger(), nullable=False),
        sa.Column("replaces_id", sa.Integer(), nullable=True),
        sa.Column("request_count", sa.Integer(), nullable=False),
        sa.Column("block_number", sa.BigInteger(), nullable=True),
        sa.Column("block_hash", sa.String(length=66), nullable=True),
        sa.Column("receipt_status", sa.Integer(), nullable=True),
        sa.Column("gas_used", sa.BigInteger(), nullable=True),
        sa.Column("failure_reason", sa.Text(), nullable=True),
        sa.Column("broadcasts", sa.Integer(), nullable=False),
        sa.Column("reorgs", sa.Integer(), nullable=False),
        moment("created_at"),
        moment("updated_at"),
        moment("signed_at"),
        moment("sent_at", nullable=True),
        moment("last_broadcast_at", nullable=True),
        moment("mined_at", nullable=True),
        moment("confirmed_at", nullable=True),
        moment("failed_at", nullable=True),
        moment("replaced_at", nullable=True),
        foreign_key("chain_txs", "replaces_id", "chain_txs"),
        foreign_key("chain_txs", "wallet_id", "chain_wallets"),
        primary_key("chain_txs", "id"),
        sa.UniqueConstraint("tx_hash", name=op.f("uq_chain_txs_tx_hash")),
    )
    op.create_index("ix_chain_txs_status", "chain_txs", ["status"], unique=False)
    op.create_index("ix_chain_txs_wallet_nonce", "chain_txs", ["wallet_id", "nonce"], unique=False)
    op.create_table(
        "chain_tx_events",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tx_id", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("detail", sa.Text(), nullable=True),
        moment("at"),
        foreign_key("chain_tx_events", "tx_id", "chain_txs"),
        primary_key("chain_tx_events", "id"),
    )
    create_index("chain_tx_events", "tx_id")


def downgrade() -> None:
    op.drop_table("chain_tx_events")
    op.drop_table("chain_txs")
    op.drop_table("chain_requests")
    op.drop_table("chain_wallets")
