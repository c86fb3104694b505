"""Friends: friendships and their requests, blocks, and private messages between friends
(backend/friends/models.py). A new aggregate: its own branch (label ``friends``) from the
base revision."""

from __future__ import annotations

from alembic import op

from backend.migrations.columns import address, create_table, moment, serial_id, string

revision = "friends_h32friends_0001"
down_revision = "0000_base"
branch_labels = ("friends",)
depends_on = None


def upgrade() -> None:
    create_table(
        "friendships",
        serial_id(),
        address("low"),
        address("high"),
        address("requester"),
        string("status", 16),
        moment("accepted_at", nullable=True),
        moment("created_at"),
        key="id",
    )
    op.create_index("uq_friendships_low_high", "friendships", ["low", "high"], unique=True)
    op.create_index("ix_friendships_high", "friendships", ["high"])
    op.create_index(
        "ix_friendships_requester_created_at", "friendships", ["requester", "created_at"]
    )
    create_table(
        "friend_blocks",
        address("blocker"),
        address("blocked"),
        moment("created_at"),
        key=("blocker", "blocked"),
    )
    op.create_index("ix_friend_blocks_blocked", "friend_blocks", ["blocked"])
    create_table(
        "friend_messages",
        serial_id(),
        address("sender"),
        address("recipient"),
        address("low"),
        address("high"),
        string("body", 500, nullable=True),
        moment("created_at"),
        key="id",
    )
    op.create_index("ix_friend_messages_low_high_id", "friend_messages", ["low", "high", "id"])
    op.create_index(
        "ix_friend_messages_sender_created_at", "friend_messages", ["sender", "created_at"]
    )


def downgrade() -> None:
    op.drop_index("ix_friend_messages_sender_created_at", table_name="friend_messages")
    op.drop_index("ix_friend_messages_low_high_id", table_name="friend_messages")
    op.drop_table("friend_messages")
    op.drop_index("ix_friend_blocks_blocked", table_name="friend_blocks")
    op.drop_table("friend_blocks")
    op.drop_index("ix_friendships_requester_created_at", table_name="friendships")
    op.drop_index("ix_friendships_high", table_name="friendships")
    op.drop_index("uq_friendships_low_high", table_name="friendships")
    op.drop_table("friendships")
