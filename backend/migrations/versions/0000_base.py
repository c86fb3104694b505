"""Base revision: every aggregate's first migration branches from here."""

from __future__ import annotations

revision = "0000_base"
down_revision = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
