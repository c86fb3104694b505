"""Accounts: wallets, single-use sign-in nonces, sessions and rotating refresh tokens.

Revision ID: accounts_0001
Revises: 0000_base
Create Date: 2026-11-21
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from backend.migrations.columns import address, create_index, foreign_key, primary_key

revision = "accounts_0001"
down_revision = "0000_base"
branch_labels = ("accounts",)
depends_on = None

TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "accounts",
        address("address"),
        sa.Column("last_signin_at", TS, nullable=True),
        sa.Column("created_at", TS, nullable=False),
        primary_key("accounts", "address"),
    )
    op.create_table(
        "signin_nonces",
        sa.Column("nonce", sa.String(64), nullable=False),
        sa.Column("expires_at", TS, nullable=False),
        sa.Column("used_at", TS, nullable=True),
        sa.Column("created_at", TS, nullable=False),
        primary_key("signin_nonces", "nonce"),
    )
    create_index("signin_nonces", "expires_at")
    op.create_table(
        "auth_sessions",
        sa.Column("id", sa.String(32), nullable=False),
        address("address"),
        sa.Column("revoked_at", TS, nullable=True),
        sa.Column("created_at", TS, nullable=False),
        sa.ForeignKeyConstraint(
            ["address"], ["accounts.address"], name=op.f("fk_auth_sessions_address_accounts")
        ),
        primary_key("auth_sessions", "id"),
    )
    create_index("auth_sessions", "address")
    op.create_table(
        "refresh_tokens",
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("session_id", sa.String(32), nullable=False),
        sa.Column("expires_at", TS, nullable=False),
        sa.Column("used_at", TS, nullable=True),
        sa.Column("created_at", TS, nullable=False),
        foreign_key("refresh_tokens", "session_id", "auth_sessions"),
        primary_key("refresh_tokens", "token_hash"),
    )
    create_index("refresh_tokens", "session_id")


def downgrade() -> None:
    op.drop_table("refresh_tokens")
    op.drop_table("auth_sessions")
    op.drop_table("signin_nonces")
    op.drop_table("accounts")
