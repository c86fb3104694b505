"""Competitions: the Game Center a Campeonato is run at (null: no center).

A plain indexed column for the same reason as ``tables_h20centers_0001``.
"""

from __future__ import annotations

from backend.migrations.columns import (
    add_indexed_column,
    big_integer,
    drop_indexed_column,
)

revision = "competitions_h20centers_0001"
down_revision = "competitions_0001"
depends_on = "centers_h20centers_0001"


def upgrade() -> None:
    add_indexed_column("competitions_tournaments", big_integer("center_id", nullable=True))


def downgrade() -> None:
    drop_indexed_column("competitions_tournaments", "center_id")
