"""Accounts: each wallet's signed acceptance of a terms version and its legal-age confirmation.

Revision ID: accounts_h25terms_0001
Revises: accounts_0001
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from backend.migrations.columns import address, create_index, drop_index, primary_key

revision = "accounts_h25terms_0001"
down_revision = "accounts_0001"
branch_labels = None
depends_on = None

TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "terms_acceptances",
        sa.Column("message_hash", sa.String(64), nullable=False),
        address("address"),
        sa.Column("terms_version", sa.String(32), nullable=False),
        sa.Column("legal_age_confirmed", sa.Boolean(), nullable=False),
        sa.Column("accepted_at", TS, nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.ForeignKeyConstraint(
            ["address"],
            ["accounts.address"],
            name=op.f("fk_terms_acceptances_address_accounts"),
        ),
        primary_key("terms_acceptances", "message_hash"),
    )
    create_index("terms_acceptances", "address")


def downgrade() -> None:
    drop_index("terms_acceptances", "address")
    op.drop_table("terms_acceptances")
