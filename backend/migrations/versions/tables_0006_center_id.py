"""Tables: the Game Center a table is hosted at (null: no center).

A plain indexed column, not a foreign key: SQLite cannot add a foreign key to an existing
table without a batch copy (which would drop game_tables' dependants' constraints), and a
table gets a center id only after ``backend.centers.service.require_host`` found the
center's row in the same transaction.
"""

from __future__ import annotations

from backend.migrations.columns import (
    add_indexed_column,
    big_integer,
    drop_indexed_column,
)

revision = "tables_h20centers_0001"
down_revision = "tables_h25talk_0001"
depends_on = "centers_h20centers_0001"


def upgrade() -> None:
    add_indexed_column("game_tables", big_integer("center_id", nullable=True))


def downgrade() -> None:
    drop_indexed_column("game_tables", "center_id")
