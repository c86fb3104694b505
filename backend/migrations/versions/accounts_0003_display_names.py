"""Accounts: the display name each wallet or guest shows at tables.

``name_key`` is the name folded for comparison (``backend.accounts.names.name_key``); its
unique constraint is what keeps two names that read the same apart under any race.
"""

from __future__ import annotations

from alembic import op

from backend.migrations.columns import (
    address,
    foreign_key_to,
    moment,
    primary_key,
    string,
    unique,
)

revision = "accounts_0003_display_names"
down_revision = "accounts_h25terms_0001"


def upgrade() -> None:
    op.create_table(
        "display_names",
        address("address"),
        string("name", 32),
        string("name_key", 96),
        moment("changed_at"),
        moment("created_at"),
        foreign_key_to("display_names", "address", "accounts", "address"),
        primary_key("display_names", "address"),
        unique("display_names", "name_key"),
    )


def downgrade() -> None:
    op.drop_table("display_names")
