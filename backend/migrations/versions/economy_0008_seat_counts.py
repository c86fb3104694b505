"""Economy: a seat record says what it counts for (``counts``, ``backend.economy.counts``).

The leaderboard ranked every human seat record of a season, free matches included (practice
against bots, same-device tables). A seat planned from now on stores the one rule's answer;
a seat planned before keeps what that rule says of its match from what the record holds:
an earning or staked settlement (not free) counts for emission, a staked one for its fee's
creator and center legs, and one where two different wallets sat on different sides (a
contested match) for the leaderboard. Bots' seats count for nothing.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "economy_h30counts_0001"
down_revision = "economy_h25legsplit_0001"

TABLE = "economy_seat_records"
# The rule's bits, as backend.economy.counts.Count fixes them.
EMISSION, LEADERBOARD, CREATOR_EARNINGS, CENTER_EARNINGS = 1, 2, 4, 8


def upgrade() -> None:
    with op.batch_alter_table(TABLE, schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("counts", sa.Integer(), nullable=False, server_default=sa.text("0"))
        )
    seats = sa.table(
        TABLE,
        sa.column("match_id", sa.String()),
        sa.column("seat", sa.Integer()),
        sa.column("address", sa.String()),
        sa.column("team", sa.Integer()),
        sa.column("is_bot", sa.Boolean()),
        sa.column("counts", sa.Integer()),
    )
    settlements = sa.table(
        "economy_settlements", sa.column("match_id", sa.String()), sa.column("economy")
    )
    other = seats.alias("other")
    economy = (
        sa.select(settlements.c.economy)
        .where(settlements.c.match_id == seats.c.match_id)
        .scalar_subquery()
    )
    side = sa.func.coalesce(seats.c.team, seats.c.seat)
    contested = (
        sa.select(other.c.seat)
        .where(
            other.c.match_id == seats.c.match_id,
            other.c.is_bot.is_(False),
            other.c.address.is_not(None),
            sa.func.lower(other.c.address) != sa.func.lower(seats.c.address),
            sa.func.coalesce(other.c.team, other.c.seat) != side,
        )
        .exists()
    )
    human = sa.and_(seats.c.is_bot.is_(False), seats.c.address.is_not(None))
    op.execute(
        seats.update()
        .where(human, economy.in_(("emission", "staked")))
        .values(counts=seats.c.counts.op("|")(EMISSION))
    )
    op.execute(
        seats.update()
        .where(human, economy == "staked")
        .values(counts=seats.c.counts.op("|")(CREATOR_EARNINGS | CENTER_EARNINGS))
    )
    op.execute(
        seats.update()
        .where(human, economy.in_(("emission", "staked")), contested)
        .values(counts=seats.c.counts.op("|")(LEADERBOARD))
    )


def downgrade() -> None:
    with op.batch_alter_table(TABLE, schema=None) as batch_op:
        batch_op.drop_column("counts")
