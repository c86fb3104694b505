"""Request and response bodies of the Game Centers' routes: a center as the mirror holds it,
and the operator's center mint."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field

from backend.centers import operator as center_minting
from backend.kit.schemas import ADDRESS_PATTERN, IdempotencyKey, StrictIn


class CenterOut(BaseModel):
    center_id: int
    name: str
    country: str
    city: str
    lat: float = Field(description="degrees, to the hundredth")
    lon: float
    capacity: int = Field(description="tables it may host at once")
    owner: str
    renter: str | None
    rented_until: datetime | None
    host: str = Field(description="who opens tables here and is paid its fee legs now")
    distance_km: float | None = Field(default=None, description="from the point searched")


class CenterMintIn(StrictIn):
    to: str = Field(pattern=ADDRESS_PATTERN, description="the center's first owner")
    name: str = Field(min_length=1, max_length=64)
    country: str = Field(pattern=r"^[A-Z]{2}$", description="ISO 3166-1 alpha-2")
    city: str = Field(min_length=1, max_length=64)
    lat: float = Field(ge=-90, le=90, allow_inf_nan=False, description="degrees")
    lon: float = Field(ge=-180, le=180, allow_inf_nan=False)
    capacity: int = Field(ge=center_minting.MIN_CAPACITY, le=center_minting.MAX_CAPACITY)
    idempotency_key: IdempotencyKey


class CenterMintOut(BaseModel):
    id: int
    idempotency_key: str
    status: str = Field(description="queued | submitted | confirmed | failed")
    center: dict[str, Any]
    center_id: int | None = Field(description="the minted center, once confirmed")
    tx_hash: str | None
    failure_reason: str | None
