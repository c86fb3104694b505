"""Ops: the worker heartbeat (docs/operations.md)."""

from __future__ import annotations

from alembic import op

from backend.migrations.columns import (
    amount,
    big_integer,
    create_table,
    drop_index,
    each,
    integer,
    moment,
    string,
)

revision = "ops_h24metrics_0001"
down_revision = "0000_base"


def upgrade() -> None:
    create_table(
        "ops_worker_heartbeats",
        string("worker", 200),
        integer("pid"),
        moment("beat_at"),
        big_integer("chain_head", nullable=True),
        *each(amount, "vault_available", "vault_limit", nullable=True),
        moment("chain_read_at", nullable=True),
        key="worker",
        indexes=["beat_at"],
    )


def downgrade() -> None:
    drop_index("ops_worker_heartbeats", "beat_at")
    op.drop_table("ops_worker_heartbeats")
