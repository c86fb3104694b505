"""Economy: stake balances (deposits into the vault) and their history.

Revision ID: economy_0002
Revises: economy_0001
Create Date: 2026-11-21
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from backend.migrations.columns import address, moment, primary_key

revision = "economy_0002"
down_revision = "economy_0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "economy_stake_wallets",
        address("address"),
        sa.Column("balance", sa.String(length=80), nullable=False),
        primary_key("economy_stake_wallets", "address"),
    )
    op.create_table(
        "economy_stake_entries",
        sa.Column("id", sa.Integer(), nullable=False),
        address("address"),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("amount", sa.String(length=80), nullable=False),
        sa.Column("match_id", sa.String(length=32), nullable=True),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("tx_hash", sa.String(length=66), nullable=True),
        sa.Column("log_index", sa.Integer(), nullable=True),
        moment("created_at"),
        primary_key("economy_stake_entries", "id"),
        sa.UniqueConstraint("kind", "match_id", "seat", name=op.f("uq_economy_stake_entries_kind")),
        sa.UniqueConstraint("tx_hash", "log_index", name=op.f("uq_economy_stake_entries_tx_hash")),
    )
    with op.batch_alter_table("economy_stake_entries", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_economy_stake_entries_address"), ["address"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_economy_stake_entries_match_id"), ["match_id"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("economy_stake_entries", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_economy_stake_entries_match_id"))
        batch_op.drop_index(batch_op.f("ix_economy_stake_entries_address"))
    op.drop_table("economy_stake_entries")
    op.drop_table("economy_stake_wallets")
