"""The Game Centers mirror: each ``GameCenter`` NFT as the indexer last saw it on chain.

A center is minted once (``CenterMinted``), changes owner by ``Transfer`` and is rented by
``UpdateUser`` (ERC-4907: a user and an expiry). The rows are written only by
``backend.centers.mirror`` from confirmed events; every event it applied is remembered by
``(tx_hash, log_index)``, so reading the same block range twice changes nothing.

Coordinates are kept as the contract keeps them: signed hundredths of a degree (about
1 km), ``lat_e2`` in -9000..9000 and ``lon_e2`` in -18000..18000.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, DateTime, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from backend.db.base import Base, utcnow


class GameCenter(Base):
    __tablename__ = "game_centers"
    __table_args__ = (Index("ix_game_centers_lat_lon", "lat_e2", "lon_e2"),)

    # The ERC-721 token id.
    center_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    name: Mapped[str] = mapped_column(String(64), index=True)
    country: Mapped[str] = mapped_column(String(2))  # ISO 3166-1 alpha-2, upper case
    city: Mapped[str] = mapped_column(String(64))
    lat_e2: Mapped[int] = mapped_column(Integer)
    lon_e2: Mapped[int] = mapped_column(Integer)
    # How many open or playing tables the center may host at once.
    capacity: Mapped[int] = mapped_column(Integer)
    owner: Mapped[str] = mapped_column(String(42), index=True)
    # The ERC-4907 user (an operator renting the center) and when that right ends.
    renter: Mapped[str | None] = mapped_column(String(42), index=True)
    rented_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    minted_block: Mapped[int] = mapped_column(BigInteger)
    updated_block: Mapped[int] = mapped_column(BigInteger)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class CenterEvent(Base):
    """One GameCenter event the mirror applied: its key makes indexing idempotent."""

    __tablename__ = "game_center_events"

    tx_hash: Mapped[str] = mapped_column(String(66), primary_key=True)
    log_index: Mapped[int] = mapped_column(Integer, primary_key=True)
    center_id: Mapped[int] = mapped_column(BigInteger, index=True)
    kind: Mapped[str] = mapped_column(String(16))  # minted|transfer|user
    block_number: Mapped[int] = mapped_column(BigInteger)
