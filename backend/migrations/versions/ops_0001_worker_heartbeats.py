"""Ops: the worker heartbeat (docs/operations.md).

Revision ID: ops_h24metrics_0001
Revises: 0000_base
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "ops_h24metrics_0001"
down_revision = "0000_base"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "ops_worker_heartbeats",
        sa.Column("worker", sa.String(length=200), nullable=False),
        sa.Column("pid", sa.Integer(), nullable=False),
        sa.Column("beat_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("chain_head", sa.BigInteger(), nullable=True),
        sa.Column("vault_available", sa.String(length=80), nullable=True),
        sa.Column("vault_limit", sa.String(length=80), nullable=True),
        sa.Column("chain_read_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("worker", name=op.f("pk_ops_worker_heartbeats")),
    )
    op.create_index(op.f("ix_ops_worker_heartbeats_beat_at"), "ops_worker_heartbeats", ["beat_at"])


def downgrade() -> None:
    op.drop_index(op.f("ix_ops_worker_heartbeats_beat_at"), table_name="ops_worker_heartbeats")
    op.drop_table("ops_worker_heartbeats")
