"""Accounts: each wallet's signed acceptance of a terms version and its legal-age confirmation.

Revision ID: accounts_h25terms_0001
Revises: accounts_0001
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "accounts_h25terms_0001"
down_revision = "accounts_0001"
branch_labels = None
depends_on = None

TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "terms_acceptances",
        sa.Column("message_hash", sa.String(64), nullable=False),
        sa.Column("address", sa.String(42), nullable=False),
        sa.Column("terms_version", sa.String(32), nullable=False),
        sa.Column("legal_age_confirmed", sa.Boolean(), nullable=False),
        sa.Column("accepted_at", TS, nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.ForeignKeyConstraint(
            ["address"],
            ["accounts.address"],
            name=op.f("fk_terms_acceptances_address_accounts"),
        ),
        sa.PrimaryKeyConstraint("message_hash", name=op.f("pk_terms_acceptances")),
    )
    op.create_index(
        op.f("ix_terms_acceptances_address"), "terms_acceptances", ["address"], unique=False
    )


def downgrade() -> None:
    op.drop_index(op.f("ix_terms_acceptances_address"), table_name="terms_acceptances")
    op.drop_table("terms_acceptances")
