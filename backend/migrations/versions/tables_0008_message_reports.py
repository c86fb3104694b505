"""Tables: a complaint may report a private message instead of a table mate (its
``message_id``; ``table_id`` is then null), once per reporter and message."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from backend.migrations.columns import integer

revision = "tables_h32friends_0008"
down_revision = "tables_0007_ticket_seat_counts"
# The message reported is the friends branch's.
depends_on = "friends_h32friends_0001"


def upgrade() -> None:
    with op.batch_alter_table("complaints") as batch:
        batch.alter_column("table_id", nullable=True, existing_type=sa.String(length=32))
        batch.add_column(integer("message_id", nullable=True))
        batch.create_foreign_key(
            op.f("fk_complaints_message_id_friend_messages"),
            "friend_messages",
            ["message_id"],
            ["id"],
        )
    op.create_index(
        "uq_complaints_reporter_message_id", "complaints", ["reporter", "message_id"], unique=True
    )


def downgrade() -> None:
    op.drop_index("uq_complaints_reporter_message_id", table_name="complaints")
    op.execute("DELETE FROM complaints WHERE table_id IS NULL")
    with op.batch_alter_table("complaints") as batch:
        batch.drop_constraint(op.f("fk_complaints_message_id_friend_messages"), type_="foreignkey")
        batch.drop_column("message_id")
        batch.alter_column("table_id", nullable=False, existing_type=sa.String(length=32))
