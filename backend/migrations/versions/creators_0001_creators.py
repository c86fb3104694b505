"""Creators: codes, players bound to them, and the statements players sign to bind."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from backend.migrations.columns import (
    address,
    create_indexes,
    each,
    moment,
    string,
    text,
)

revision = "creators_h20creators_0001"
down_revision = "0000_base"
branch_labels = ("creators",)


def upgrade() -> None:
    op.create_table(
        "creators",
        string("code", 16),
        address("address"),
        moment("created_at"),
        sa.PrimaryKeyConstraint("code"),
        sa.UniqueConstraint("address"),
    )
    op.create_table(
        "creator_bindings",
        address("player"),
        string("code", 16),
        address("creator"),
        *each(moment, "bound_at", "earns_until"),
        string("nonce", 64),
        string("signature", 132),
        sa.ForeignKeyConstraint(["code"], ["creators.code"]),
        sa.PrimaryKeyConstraint("player"),
        sa.UniqueConstraint("nonce"),
    )
    create_indexes("creator_bindings", "code", "creator")
    op.create_table(
        "creator_statements",
        string("nonce", 64),
        address("player"),
        string("code", 16),
        text("message"),
        *each(moment, "created_at", "expires_at"),
        moment("used_at", nullable=True),
        sa.PrimaryKeyConstraint("nonce"),
    )
    create_indexes("creator_statements", "player", "expires_at")


def downgrade() -> None:
    op.drop_table("creator_statements")
    op.drop_table("creator_bindings")
    op.drop_table("creators")
