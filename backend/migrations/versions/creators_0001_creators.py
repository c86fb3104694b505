"""Creators: codes, players bound to them, and the statements players sign to bind.

Revision ID: creators_h20creators_0001
Revises: 0000_base
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from backend.migrations.columns import address

revision = "creators_h20creators_0001"
down_revision = "0000_base"
branch_labels = ("creators",)
depends_on = None

TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "creators",
        sa.Column("code", sa.String(length=16), nullable=False),
        address("address"),
        sa.Column("created_at", TS, nullable=False),
        sa.PrimaryKeyConstraint("code"),
        sa.UniqueConstraint("address"),
    )
    op.create_table(
        "creator_bindings",
        address("player"),
        sa.Column("code", sa.String(length=16), nullable=False),
        address("creator"),
        sa.Column("bound_at", TS, nullable=False),
        sa.Column("earns_until", TS, nullable=False),
        sa.Column("nonce", sa.String(length=64), nullable=False),
        sa.Column("signature", sa.String(length=132), nullable=False),
        sa.ForeignKeyConstraint(["code"], ["creators.code"]),
        sa.PrimaryKeyConstraint("player"),
        sa.UniqueConstraint("nonce"),
    )
    op.create_index("ix_creator_bindings_code", "creator_bindings", ["code"])
    op.create_index("ix_creator_bindings_creator", "creator_bindings", ["creator"])
    op.create_table(
        "creator_statements",
        sa.Column("nonce", sa.String(length=64), nullable=False),
        address("player"),
        sa.Column("code", sa.String(length=16), nullable=False),
        sa.Column("message", sa.Text(), nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("expires_at", TS, nullable=False),
        sa.Column("used_at", TS, nullable=True),
        sa.PrimaryKeyConstraint("nonce"),
    )
    op.create_index("ix_creator_statements_player", "creator_statements", ["player"])
    op.create_index("ix_creator_statements_expires_at", "creator_statements", ["expires_at"])


def downgrade() -> None:
    op.drop_table("creator_statements")
    op.drop_table("creator_bindings")
    op.drop_table("creators")
