"""Accounts: each wallet's signed acceptance of a terms version and its legal-age confirmation."""

from __future__ import annotations

from alembic import op

from backend.migrations.columns import (
    address,
    boolean,
    create_table,
    drop_index,
    each,
    moment,
    string,
)

revision = "accounts_h25terms_0001"
down_revision = "accounts_0001"


def upgrade() -> None:
    create_table(
        "terms_acceptances",
        string("message_hash", 64),
        address("address"),
        string("terms_version", 32),
        boolean("legal_age_confirmed"),
        *each(moment, "accepted_at", "created_at"),
        key="message_hash",
        references={"address": "accounts.address"},
        indexes=["address"],
    )


def downgrade() -> None:
    drop_index("terms_acceptances", "address")
    op.drop_table("terms_acceptances")
