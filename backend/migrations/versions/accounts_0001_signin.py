"""Accounts: wallets, single-use sign-in nonces, sessions and rotating refresh tokens."""

from __future__ import annotations

from alembic import op

from backend.migrations.columns import (
    address,
    create_index,
    foreign_key,
    foreign_key_to,
    moment,
    primary_key,
    string,
)

revision = "accounts_0001"
down_revision = "0000_base"
branch_labels = ("accounts",)


def upgrade() -> None:
    op.create_table(
        "accounts",
        address("address"),
        moment("last_signin_at", nullable=True),
        moment("created_at"),
        primary_key("accounts", "address"),
    )
    op.create_table(
        "signin_nonces",
        string("nonce", 64),
        moment("expires_at"),
        moment("used_at", nullable=True),
        moment("created_at"),
        primary_key("signin_nonces", "nonce"),
    )
    create_index("signin_nonces", "expires_at")
    op.create_table(
        "auth_sessions",
        string("id", 32),
        address("address"),
        moment("revoked_at", nullable=True),
        moment("created_at"),
        foreign_key_to("auth_sessions", "address", "accounts", "address"),
        primary_key("auth_sessions", "id"),
    )
    create_index("auth_sessions", "address")
    op.create_table(
        "refresh_tokens",
        string("token_hash", 64),
        string("session_id", 32),
        moment("expires_at"),
        moment("used_at", nullable=True),
        moment("created_at"),
        foreign_key("refresh_tokens", "session_id", "auth_sessions"),
        primary_key("refresh_tokens", "token_hash"),
    )
    create_index("refresh_tokens", "session_id")


def downgrade() -> None:
    op.drop_table("refresh_tokens")
    op.drop_table("auth_sessions")
    op.drop_table("signin_nonces")
    op.drop_table("accounts")
