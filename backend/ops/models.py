"""The worker heartbeat: one row per Celery worker, rewritten every few seconds."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, DateTime, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from backend.db.base import Base, utcnow


class WorkerHeartbeat(Base):
    """A worker's last sign of life, with what it last read from the chain (the head block
    and the vault's window), so that the API's /ready and /metrics need no RPC for them."""

    __tablename__ = "ops_worker_heartbeats"

    worker: Mapped[str] = mapped_column(String(200), primary_key=True)
    pid: Mapped[int] = mapped_column(Integer)
    beat_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, index=True)
    chain_head: Mapped[int | None] = mapped_column(BigInteger, default=None)
    # MatchSettlement.outflow() and limits(): DEW wei left in the window and the window's limit.
    vault_available: Mapped[str | None] = mapped_column(String(80), default=None)
    vault_limit: Mapped[str | None] = mapped_column(String(80), default=None)
    chain_read_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)
