"""Base revision: every aggregate's first migration branches from here.

Revision ID: 0000_base
Revises:
Create Date: 2026-11-21
"""

from __future__ import annotations

revision = "0000_base"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
