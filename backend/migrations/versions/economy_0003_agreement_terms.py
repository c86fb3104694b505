"""Economy: an agreement's real end, its offer's validity, and offers withdrawn in bulk."""

from __future__ import annotations

from alembic import op

from backend.migrations.columns import (
    big_integer,
)

revision = "economy_0003"
down_revision = "economy_0002"


def upgrade() -> None:
    with op.batch_alter_table("economy_agreements") as batch:
        batch.add_column(big_integer("ended_at", nullable=True))
        batch.add_column(big_integer("valid_until", nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("economy_agreements") as batch:
        batch.drop_column("valid_until")
        batch.drop_column("ended_at")
