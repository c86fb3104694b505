"""Markets: mirrors of the shop, the market, accessories and avatars, and the markets ledger.

A new aggregate: its own branch (label ``markets``) from the base revision.
"""

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
    integer,
    log_position,
    moment,
    serial_id,
    string,
    text,
)

revision = "markets_h19markets_0001"
down_revision = "0000_base"
branch_labels = ("markets",)


def upgrade() -> None:
    create_table(
        "markets_accessory_balances",
        address("address"),
        chain_key("type_id"),
        amount("balance"),
        key=("address", "type_id"),
    )
    create_table(
        "markets_accessory_types",
        chain_key("type_id"),
        *each(amount, "max_supply", "total_supply"),
        text("uri"),
        big_integer("defined_block"),
        key="type_id",
    )
    create_table(
        "markets_approvals",
        *each(address, "token", "owner"),
        boolean("approved"),
        key=("token", "owner"),
    )
    create_table(
        "markets_avatars",
        chain_key("avatar_id"),
        address("owner"),
        address("user", nullable=True),
        *each(big_integer, "user_expires", "rented_until", "changed_seq", "updated_block"),
        key="avatar_id",
        indexes=["owner", "user"],
    )
    create_table(
        "markets_catalog",
        string("item_kind", 16),
        string("item_id", 80),
        string("name", 64),
        string("image", 512),
        string("slot", 32, nullable=True),
        key=("item_kind", "item_id"),
    )
    create_table(
        "markets_equipment",
        *each(chain_key, "avatar_id", "type_id"),
        big_integer("equipped_block"),
        key=("avatar_id", "type_id"),
    )
    create_table(
        "markets_indexer_cursors",
        string("name", 96),
        big_integer("next_block"),
        key="name",
    )
    create_table(
        "markets_ledger_entries",
        serial_id(),
        string("kind", 16),
        string("source", 8),
        big_integer("listing_id"),
        *each(address, "payer", "payee"),
        amount("amount"),
        address("token"),
        string("item_id", 80),
        *log_position(),
        integer("leg"),
        big_integer("block_number"),
        moment("created_at"),
        key="id",
        uniques=[("tx_hash", "log_index", "leg")],
        indexes=["block_number", "kind", "payee", "payer", "tx_hash"],
    )
    create_table(
        "markets_listings",
        chain_key("listing_id"),
        *each(address, "seller", "token"),
        string("item_kind", 16),
        string("token_id", 80),
        *each(amount, "amount", "price"),
        big_integer("expires_at"),
        string("status", 16),
        address("buyer", nullable=True),
        *each(big_integer, "listed_block", "listed_seq", "updated_block"),
        key="listing_id",
        indexes=["seller", "status", "token"],
    )
    create_table(
        "markets_shop_listings",
        chain_key("listing_id"),
        address("item"),
        string("item_kind", 16),
        string("item_id", 80),
        amount("price"),
        *each(big_integer, "supply", "sold", "vip_term_s"),
        boolean("open"),
        *each(big_integer, "listed_block", "updated_block"),
        key="listing_id",
        indexes=["item"],
    )


def downgrade() -> None:
    drop_index("markets_shop_listings", "item")
    op.drop_table("markets_shop_listings")
    drop_indexes("markets_listings", "token", "status", "seller")
    op.drop_table("markets_listings")
    drop_indexes("markets_ledger_entries", "tx_hash", "payer", "payee", "kind", "block_number")
    op.drop_table("markets_ledger_entries")
    op.drop_table("markets_indexer_cursors")
    op.drop_table("markets_equipment")
    op.drop_table("markets_catalog")
    drop_indexes("markets_avatars", "user", "owner")
    op.drop_table("markets_avatars")
    op.drop_table("markets_approvals")
    op.drop_table("markets_accessory_types")
    op.drop_table("markets_accessory_balances")
