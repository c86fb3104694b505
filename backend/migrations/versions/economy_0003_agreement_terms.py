"""Economy: an agreement's real end, its offer's validity, and offers withdrawn in bulk.

Revision ID: economy_0003
Revises: economy_0002
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "economy_0003"
down_revision = "economy_0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("economy_agreements") as batch:
        batch.add_column(sa.Column("ended_at", sa.BigInteger(), nullable=True))
        batch.add_column(sa.Column("valid_until", sa.BigInteger(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("economy_agreements") as batch:
        batch.drop_column("valid_until")
        batch.drop_column("ended_at")
