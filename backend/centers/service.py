"""Game Centers: finding them by place, who hosts them, and who is paid their fee legs.

Plain functions with a keyword-only ``session``; nothing here commits. The rows are the
chain mirror (``backend.centers.mirror`` writes them from confirmed events), so a center
exists here only once its mint is final on chain.

Who acts for a center is one rule, used both for hosting (opening tables and Campeonatos
under it) and for paying its share of fees: the renter while an ERC-4907 rental runs
(``rented_until`` in the future), else the owner. ``payee_of`` is that rule at a given time.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from eth_utils.address import is_address, to_checksum_address
from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from backend.centers import exceptions as exc
from backend.centers.models import GameCenter
from backend.db import dialect
from backend.db.base import aware

# Coordinates in hundredths of a degree, as the contract stores them.
LAT_E2_MAX = 9_000
LON_E2_MAX = 18_000
MAX_LIMIT = 100
DEFAULT_LIMIT = 20
MAX_QUERY_CHARS = 64
EARTH_RADIUS_KM = 6371.0088


@dataclass(frozen=True)
class Found:
    """A center found by place, with its distance from the point asked (None by name)."""

    center: GameCenter
    distance_km: float | None


def check_point(lat_e2: int, lon_e2: int) -> None:
    """Refuse a point off the globe before anything is read."""
    for value, bound, what in ((lat_e2, LAT_E2_MAX, "lat"), (lon_e2, LON_E2_MAX, "lon")):
        if isinstance(value, bool) or not isinstance(value, int) or not -bound <= value <= bound:
            raise exc.CentersValueError(
                f"{what} must be within ±{bound / 100:g} degrees "
                f"(±{bound} hundredths), got {value!r}"
            )


def check_limit(limit: int) -> int:
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise exc.CentersValueError(f"limit must be 1..{MAX_LIMIT}, got {limit!r}")
    return limit


def haversine_km(lat1_e2: int, lon1_e2: int, lat2_e2: int, lon2_e2: int) -> float:
    """Great-circle distance between two points given in hundredths of a degree."""
    p1, p2 = math.radians(lat1_e2 / 100), math.radians(lat2_e2 / 100)
    dp = p2 - p1
    dl = math.radians((lon2_e2 - lon1_e2) / 100)
    a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * EARTH_RADIUS_KM * math.asin(min(1.0, math.sqrt(a)))


def get_center(*, session: Session, center_id: int, lock: bool = False) -> GameCenter:
    """The center, or CenterNotFound; ``lock`` holds its row until the transaction ends."""
    if isinstance(center_id, bool) or not isinstance(center_id, int) or center_id < 0:
        raise exc.CenterNotFound(f"no center {center_id!r}")
    statement = select(GameCenter).where(GameCenter.center_id == center_id)
    if lock:
        statement = dialect.for_update(session, statement)
    center = session.scalar(statement)
    if center is None:
        raise exc.CenterNotFound(f"no center {center_id!r}")
    return center


def find(
    *,
    session: Session,
    lat_e2: int | None = None,
    lon_e2: int | None = None,
    query: str | None = None,
    limit: int = DEFAULT_LIMIT,
) -> list[Found]:
    """Centers nearest first from a point, or by name without one.

    ``query`` (optional, name or city, case-insensitive substring) narrows either. The
    distance is the haversine on the stored hundredths of a degree, computed over the
    matching rows' coordinates only (two integers a row), then the ``limit`` nearest rows
    are loaded: centers are NFTs minted by the operator or sold in the shop, thousands at
    most, so a scan of two columns is cheaper than a spatial index to keep.
    """
    check_limit(limit)
    if (lat_e2 is None) != (lon_e2 is None):
        raise exc.CentersValueError("give both lat and lon, or neither")
    # A center the shop minted blank has no place until its owner places it.
    conditions: list[Any] = [GameCenter.country != ""]
    if query is not None:
        query = query.strip()
        if len(query) > MAX_QUERY_CHARS:
            raise exc.CentersValueError(f"the search text is at most {MAX_QUERY_CHARS} characters")
        if query:
            pattern = "%" + query.lower().replace("%", "").replace("_", "") + "%"
            conditions.append(
                or_(
                    func.lower(GameCenter.name).like(pattern),
                    func.lower(GameCenter.city).like(pattern),
                )
            )
    if lat_e2 is None or lon_e2 is None:
        rows = session.scalars(
            select(GameCenter)
            .where(*conditions)
            .order_by(GameCenter.name, GameCenter.center_id)
            .limit(limit)
        )
        return [Found(center, None) for center in rows]
    check_point(lat_e2, lon_e2)
    points = session.execute(
        select(GameCenter.center_id, GameCenter.lat_e2, GameCenter.lon_e2).where(*conditions)
    ).all()
    nearest = sorted((haversine_km(lat_e2, lon_e2, lat, lon), cid) for cid, lat, lon in points)[
        :limit
    ]
    by_id = {
        c.center_id: c
        for c in session.scalars(
            select(GameCenter).where(GameCenter.center_id.in_([cid for _, cid in nearest]))
        )
    }
    return [Found(by_id[cid], round(km, 3)) for km, cid in nearest if cid in by_id]


def host_of(center: GameCenter, at: datetime) -> str:
    """Who acts for (and is paid for) the center at ``at``: the renter while the rental
    runs, else the owner."""
    if center.renter and center.rented_until is not None and aware(center.rented_until) > aware(at):
        return center.renter
    return center.owner


def payee_of(session: Session, center_id: int, at: datetime) -> str | None:
    """The address paid the center's fee legs for a match settled at ``at``, or None when
    there is no such center (its share then goes to the treasury)."""
    center = session.get(GameCenter, center_id) if isinstance(center_id, int) else None
    return host_of(center, at) if center is not None else None


def require_host(*, session: Session, center_id: int, wallet: str, at: datetime) -> GameCenter:
    """The center, locked for the transaction, if ``wallet`` hosts it at ``at``.

    The row lock serializes the openings at one center (PostgreSQL; SQLite runs one writer
    at a time), so a capacity count taken after it cannot be raced past."""
    center = get_center(session=session, center_id=center_id, lock=True)
    dialect.lock_key(session, f"center:{center_id}")
    if not isinstance(wallet, str) or not is_address(wallet):
        raise exc.NotCenterHost(f"{wallet!r} is not an address")
    host = host_of(center, at)
    if to_checksum_address(wallet) != to_checksum_address(host):
        raise exc.NotCenterHost(
            f"only center {center_id}'s "
            + ("renter" if host != center.owner else "owner")
            + " may open tables and tournaments under it"
        )
    return center
