"""Markets: mirrors of the shop, the market, accessories and avatars, and the markets ledger.

A new aggregate: its own branch (label ``markets``) from the base revision.

Revision ID: markets_h19markets_0001
Revises: 0000_base
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from backend.migrations.columns import address, moment, primary_key

revision = "markets_h19markets_0001"
down_revision = "0000_base"
branch_labels = ("markets",)
depends_on = None


def upgrade() -> None:
    op.create_table(
        "markets_accessory_balances",
        address("address"),
        sa.Column("type_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("balance", sa.String(length=80), nullable=False),
        primary_key("markets_accessory_balances", "address", "type_id"),
    )
    op.create_table(
        "markets_accessory_types",
        sa.Column("type_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("max_supply", sa.String(length=80), nullable=False),
        sa.Column("total_supply", sa.String(length=80), nullable=False),
        sa.Column("uri", sa.Text(), nullable=False),
        sa.Column("defined_block", sa.BigInteger(), nullable=False),
        primary_key("markets_accessory_types", "type_id"),
    )
    op.create_table(
        "markets_approvals",
        address("token"),
        address("owner"),
        sa.Column("approved", sa.Boolean(), nullable=False),
        primary_key("markets_approvals", "token", "owner"),
    )
    op.create_table(
        "markets_avatars",
        sa.Column("avatar_id", sa.BigInteger(), autoincrement=False, nullable=False),
        address("owner"),
        address("user", nullable=True),
        sa.Column("user_expires", sa.BigInteger(), nullable=False),
        sa.Column("rented_until", sa.BigInteger(), nullable=False),
        sa.Column("changed_seq", sa.BigInteger(), nullable=False),
        sa.Column("updated_block", sa.BigInteger(), nullable=False),
        primary_key("markets_avatars", "avatar_id"),
    )
    with op.batch_alter_table("markets_avatars", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_markets_avatars_owner"), ["owner"], unique=False)
        batch_op.create_index(batch_op.f("ix_markets_avatars_user"), ["user"], unique=False)

    op.create_table(
        "markets_catalog",
        sa.Column("item_kind", sa.String(length=16), nullable=False),
        sa.Column("item_id", sa.String(length=80), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("image", sa.String(length=512), nullable=False),
        sa.Column("slot", sa.String(length=32), nullable=True),
        primary_key("markets_catalog", "item_kind", "item_id"),
    )
    op.create_table(
        "markets_equipment",
        sa.Column("avatar_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("type_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("equipped_block", sa.BigInteger(), nullable=False),
        primary_key("markets_equipment", "avatar_id", "type_id"),
    )
    op.create_table(
        "markets_indexer_cursors",
        sa.Column("name", sa.String(length=96), nullable=False),
        sa.Column("next_block", sa.BigInteger(), nullable=False),
        primary_key("markets_indexer_cursors", "name"),
    )
    op.create_table(
        "markets_ledger_entries",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("source", sa.String(length=8), nullable=False),
        sa.Column("listing_id", sa.BigInteger(), nullable=False),
        address("payer"),
        address("payee"),
        sa.Column("amount", sa.String(length=80), nullable=False),
        address("token"),
        sa.Column("item_id", sa.String(length=80), nullable=False),
        sa.Column("tx_hash", sa.String(length=66), nullable=False),
        sa.Column("log_index", sa.Integer(), nullable=False),
        sa.Column("leg", sa.Integer(), nullable=False),
        sa.Column("block_number", sa.BigInteger(), nullable=False),
        moment("created_at"),
        primary_key("markets_ledger_entries", "id"),
        sa.UniqueConstraint(
            "tx_hash", "log_index", "leg", name=op.f("uq_markets_ledger_entries_tx_hash")
        ),
    )
    with op.batch_alter_table("markets_ledger_entries", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_markets_ledger_entries_block_number"), ["block_number"], unique=False
        )
        batch_op.create_index(batch_op.f("ix_markets_ledger_entries_kind"), ["kind"], unique=False)
        batch_op.create_index(
            batch_op.f("ix_markets_ledger_entries_payee"), ["payee"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_markets_ledger_entries_payer"), ["payer"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_markets_ledger_entries_tx_hash"), ["tx_hash"], unique=False
        )

    op.create_table(
        "markets_listings",
        sa.Column("listing_id", sa.BigInteger(), autoincrement=False, nullable=False),
        address("seller"),
        address("token"),
        sa.Column("item_kind", sa.String(length=16), nullable=False),
        sa.Column("token_id", sa.String(length=80), nullable=False),
        sa.Column("amount", sa.String(length=80), nullable=False),
        sa.Column("price", sa.String(length=80), nullable=False),
        sa.Column("expires_at", sa.BigInteger(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        address("buyer", nullable=True),
        sa.Column("listed_block", sa.BigInteger(), nullable=False),
        sa.Column("listed_seq", sa.BigInteger(), nullable=False),
        sa.Column("updated_block", sa.BigInteger(), nullable=False),
        primary_key("markets_listings", "listing_id"),
    )
    with op.batch_alter_table("markets_listings", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_markets_listings_seller"), ["seller"], unique=False)
        batch_op.create_index(batch_op.f("ix_markets_listings_status"), ["status"], unique=False)
        batch_op.create_index(batch_op.f("ix_markets_listings_token"), ["token"], unique=False)

    op.create_table(
        "markets_shop_listings",
        sa.Column("listing_id", sa.BigInteger(), autoincrement=False, nullable=False),
        address("item"),
        sa.Column("item_kind", sa.String(length=16), nullable=False),
        sa.Column("item_id", sa.String(length=80), nullable=False),
        sa.Column("price", sa.String(length=80), nullable=False),
        sa.Column("supply", sa.BigInteger(), nullable=False),
        sa.Column("sold", sa.BigInteger(), nullable=False),
        sa.Column("vip_term_s", sa.BigInteger(), nullable=False),
        sa.Column("open", sa.Boolean(), nullable=False),
        sa.Column("listed_block", sa.BigInteger(), nullable=False),
        sa.Column("updated_block", sa.BigInteger(), nullable=False),
        primary_key("markets_shop_listings", "listing_id"),
    )
    with op.batch_alter_table("markets_shop_listings", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_markets_shop_listings_item"), ["item"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("markets_shop_listings", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_markets_shop_listings_item"))

    op.drop_table("markets_shop_listings")
    with op.batch_alter_table("markets_listings", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_markets_listings_token"))
        batch_op.drop_index(batch_op.f("ix_markets_listings_status"))
        batch_op.drop_index(batch_op.f("ix_markets_listings_seller"))

    op.drop_table("markets_listings")
    with op.batch_alter_table("markets_ledger_entries", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_markets_ledger_entries_tx_hash"))
        batch_op.drop_index(batch_op.f("ix_markets_ledger_entries_payer"))
        batch_op.drop_index(batch_op.f("ix_markets_ledger_entries_payee"))
        batch_op.drop_index(batch_op.f("ix_markets_ledger_entries_kind"))
        batch_op.drop_index(batch_op.f("ix_markets_ledger_entries_block_number"))

    op.drop_table("markets_ledger_entries")
    op.drop_table("markets_indexer_cursors")
    op.drop_table("markets_equipment")
    op.drop_table("markets_catalog")
    with op.batch_alter_table("markets_avatars", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_markets_avatars_user"))
        batch_op.drop_index(batch_op.f("ix_markets_avatars_owner"))

    op.drop_table("markets_avatars")
    op.drop_table("markets_approvals")
    op.drop_table("markets_accessory_types")
    op.drop_table("markets_accessory_balances")
