"""Economy: a ledger leg says whether the chain's split pays it (``via_split``).

Booking a paid settlement replaces the legs the contract split with what its
``AvatarPayoutSplit`` events say. It used to replace every leg of the avatar, so an avatar
that also won a place through its owner (paid straight to the owner's wallet) lost that
leg. Legs planned before this revision keep the old reading (every avatar leg is the
split's), so a settlement in flight across the upgrade is booked as it was planned.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "economy_h25legsplit_0001"
down_revision = "economy_h25seasonrewards_0001"

TABLE = "economy_ledger_legs"


def upgrade() -> None:
    with op.batch_alter_table(TABLE, schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("via_split", sa.Boolean(), nullable=False, server_default=sa.false())
        )
    legs = sa.table(TABLE, sa.column("avatar_id", sa.BigInteger()), sa.column("via_split"))
    op.execute(legs.update().where(legs.c.avatar_id.is_not(None)).values(via_split=True))


def downgrade() -> None:
    with op.batch_alter_table(TABLE, schema=None) as batch_op:
        batch_op.drop_column("via_split")
