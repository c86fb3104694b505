"""Accounts: wallets, single-use sign-in nonces, sessions and rotating refresh tokens."""

from __future__ import annotations

from alembic import op

from backend.migrations.columns import (
    address,
    create_table,
    moment,
    string,
)

revision = "accounts_0001"
down_revision = "0000_base"
branch_labels = ("accounts",)


def upgrade() -> None:
    create_table(
        "accounts",
        address("address"),
        moment("last_signin_at", nullable=True),
        moment("created_at"),
        key="address",
    )
    create_table(
        "signin_nonces",
        string("nonce", 64),
        moment("expires_at"),
        moment("used_at", nullable=True),
        moment("created_at"),
        key="nonce",
        indexes=["expires_at"],
    )
    create_table(
        "auth_sessions",
        string("id", 32),
        address("address"),
        moment("revoked_at", nullable=True),
        moment("created_at"),
        key="id",
        references={"address": "accounts.address"},
        indexes=["address"],
    )
    create_table(
        "refresh_tokens",
        string("token_hash", 64),
        string("session_id", 32),
        moment("expires_at"),
        moment("used_at", nullable=True),
        moment("created_at"),
        key="token_hash",
        references={"session_id": "auth_sessions"},
        indexes=["session_id"],
    )


def downgrade() -> None:
    op.drop_table("refresh_tokens")
    op.drop_table("auth_sessions")
    op.drop_table("signin_nonces")
    op.drop_table("accounts")
