"""Ops: the worker heartbeat (docs/operations.md).

Revision ID: ops_h24metrics_0001
Revises: 0000_base
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from backend.migrations.columns import create_index, drop_index, moment, primary_key

revision = "ops_h24metrics_0001"
down_revision = "0000_base"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "ops_worker_heartbeats",
        sa.Column("worker", sa.String(length=200), nullable=False),
        sa.Column("pid", sa.Integer(), nullable=False),
        moment("beat_at"),
        sa.Column("chain_head", sa.BigInteger(), nullable=True),
        sa.Column("vault_available", sa.String(length=80), nullable=True),
        sa.Column("vault_limit", sa.String(length=80), nullable=True),
        moment("chain_read_at", nullable=True),
        primary_key("ops_worker_heartbeats", "worker"),
    )
    create_index("ops_worker_heartbeats", "beat_at")


def downgrade() -> None:
    drop_index("ops_worker_heartbeats", "beat_at")
    op.drop_table("ops_worker_heartbeats")
