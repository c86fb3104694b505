"""Chain: outbox requests, operator wallets (the nonce lock), signed transactions and their history.

Revision ID: chain_0001
Revises: 0000_base
Create Date: 2026-11-21
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "chain_0001"
down_revision = "0000_base"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "chain_wallets",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("chain_id", sa.BigInteger(), nullable=False),
        sa.Column("address", sa.String(length=42), nullable=False),
        sa.Column("next_nonce", sa.BigInteger(), nullable=False),
        sa.Column("lease_owner", sa.String(length=100), nullable=True),
        sa.Column("lease_until", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_chain_wallets")),
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
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("submitted_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("confirmed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("failed_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["wallet_id"],
            ["chain_wallets.id"],
            name=op.f("fk_chain_requests_wallet_id_chain_wallets"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_chain_requests")),
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
        sa.Column("to_address", sa.String(length=42), nullable=False),
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
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("signed_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_broadcast_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("mined_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("confirmed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("failed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("replaced_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["replaces_id"], ["chain_txs.id"], name=op.f("fk_chain_txs_replaces_id_chain_txs")
        ),
        sa.ForeignKeyConstraint(
            ["wallet_id"], ["chain_wallets.id"], name=op.f("fk_chain_txs_wallet_id_chain_wallets")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_chain_txs")),
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
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["tx_id"], ["chain_txs.id"], name=op.f("fk_chain_tx_events_tx_id_chain_txs")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_chain_tx_events")),
    )
    op.create_index(op.f("ix_chain_tx_events_tx_id"), "chain_tx_events", ["tx_id"], unique=False)


def downgrade() -> None:
    op.drop_table("chain_tx_events")
    op.drop_table("chain_txs")
    op.drop_table("chain_requests")
    op.drop_table("chain_wallets")
