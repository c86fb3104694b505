"""Accounts: wallets, single-use sign-in nonces, sessions and rotating refresh tokens.

Revision ID: accounts_0001
Revises: 0000_base
Create Date: 2026-11-21
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "accounts_0001"
down_revision = "0000_base"
branch_labels = ("accounts",)
depends_on = None

TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "accounts",
        sa.Column("address", sa.String(42), nullable=False),
        sa.Column("last_signin_at", TS, nullable=True),
        sa.Column("created_at", TS, nullable=False),
        sa.PrimaryKeyConstraint("address", name=op.f("pk_accounts")),
    )
    op.create_table(
        "signin_nonces",
        sa.Column("nonce", sa.String(64), nullable=False),
        sa.Column("expires_at", TS, nullable=False),
        sa.Column("used_at", TS, nullable=True),
        sa.Column("created_at", TS, nullable=False),
        sa.PrimaryKeyConstraint("nonce", name=op.f("pk_signin_nonces")),
    )
    op.create_index(
        op.f("ix_signin_nonces_expires_at"), "signin_nonces", ["expires_at"], unique=False
    )
    op.create_table(
        "auth_sessions",
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("address", sa.String(42), nullable=False),
        sa.Column("revoked_at", TS, nullable=True),
        sa.Column("created_at", TS, nullable=False),
        sa.ForeignKeyConstraint(
            ["address"], ["accounts.address"], name=op.f("fk_auth_sessions_address_accounts")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_auth_sessions")),
    )
    op.create_index(op.f("ix_auth_sessions_address"), "auth_sessions", ["address"])
    op.create_table(
        "refresh_tokens",
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("session_id", sa.String(32), nullable=False),
        sa.Column("expires_at", TS, nullable=False),
        sa.Column("used_at", TS, nullable=True),
        sa.Column("created_at", TS, nullable=False),
        sa.ForeignKeyConstraint(
            ["session_id"],
            ["auth_sessions.id"],
            name=op.f("fk_refresh_tokens_session_id_auth_sessions"),
        ),
        sa.PrimaryKeyConstraint("token_hash", name=op.f("pk_refresh_tokens")),
    )
    op.create_index(op.f("ix_refresh_tokens_session_id"), "refresh_tokens", ["session_id"])


def downgrade() -> None:
    op.drop_table("refresh_tokens")
    op.drop_table("auth_sessions")
    op.drop_table("signin_nonces")
    op.drop_table("accounts")
