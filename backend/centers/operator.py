"""The operator mints Game Centers through the chain outbox (``POST /operator/centers``,
``dew center mint``): validated here against the contract's own bounds, queued under an
idempotency key, sent by the worker (never from a request), and mirrored by the indexer once
confirmed. Nothing here commits.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from eth_utils.address import is_address, to_checksum_address
from sqlalchemy.orm import Session

from backend.centers import exceptions as exc
from backend.centers import service
from backend.chain import outbox
from backend.chain.models import ChainRequest, RequestKind
from backend.chain.operator_requests import RequestFamily, RequestState
from backend.kit import errors as kind
from backend.kit.text import clean_text

# GameCenter's bounds (MAX_NAME_BYTES, MAX_CITY_BYTES, MIN_CAPACITY, MAX_CAPACITY): a
# description the contract would refuse is refused before it is queued.
MAX_NAME_BYTES = 64
MAX_CITY_BYTES = 64
MIN_CAPACITY = 1
MAX_CAPACITY = 500
COUNTRY = re.compile(r"^[A-Z]{2}$")


class CenterMintNotFound(exc.CentersError, kind.NotFound):
    """No operator center-mint request has the id asked for."""


class CenterMintConflict(exc.CentersError, kind.Conflict, code="idempotency_conflict"):
    """The idempotency key was already used for another request."""


CENTER_MINTS = RequestFamily(
    "operator-center:",
    {RequestKind.CENTER_MINT},
    "operator center mint",
    invalid=exc.CentersValueError,
    conflict=CenterMintConflict,
    not_found=CenterMintNotFound,
)


@dataclass(frozen=True)
class CenterMintStatus(RequestState):
    """Where an operator's center mint stands: ``center_id`` once confirmed."""

    center: dict[str, Any]
    center_id: int | None

    @classmethod
    def of(cls, request: ChainRequest) -> CenterMintStatus:
        result: dict[str, Any] = request.result or {}
        return cls(
            **CENTER_MINTS.state(request),
            center=dict(request.payload),
            center_id=int(result["center_id"]) if "center_id" in result else None,
        )


def _text(value: str, what: str, most: int) -> str:
    value = clean_text(value) if isinstance(value, str) else value
    size = len(value.encode()) if isinstance(value, str) else 0
    if not 1 <= size <= most:
        raise exc.CentersValueError(f"{what} must be 1..{most} bytes of UTF-8, got {value!r}")
    return value


def describe(
    *, to: str, name: str, country: str, city: str, lat_e2: int, lon_e2: int, capacity: int
) -> dict[str, Any]:
    """A center's description as the contract takes it, or CentersValueError."""
    if not isinstance(to, str) or not is_address(to) or int(to, 16) == 0:
        raise exc.CentersValueError(f"the center's owner is not an address: {to!r}")
    if not isinstance(country, str) or not COUNTRY.match(country):
        raise exc.CentersValueError(f"country must be two upper-case letters, got {country!r}")
    service.check_point(lat_e2, lon_e2)
    if isinstance(capacity, bool) or not isinstance(capacity, int):
        raise exc.CentersValueError(f"capacity must be an integer, got {capacity!r}")
    if not MIN_CAPACITY <= capacity <= MAX_CAPACITY:
        raise exc.CentersValueError(f"capacity must be {MIN_CAPACITY}..{MAX_CAPACITY} tables")
    return {
        "to": to_checksum_address(to),
        "name": _text(name, "name", MAX_NAME_BYTES),
        "country": country,
        "city": _text(city, "city", MAX_CITY_BYTES),
        "lat_e2": lat_e2,
        "lon_e2": lon_e2,
        "capacity": capacity,
    }


def queue_center_mint(
    *, session: Session, center: dict[str, Any], idempotency_key: str, chain_id: int | None = None
) -> CenterMintStatus:
    """Queue one center mint (``center`` from :func:`describe`). The same key and description
    return the first request; the same key with another one is a conflict."""
    key = CENTER_MINTS.key(idempotency_key)
    with CENTER_MINTS.queueing(idempotency_key):
        request = outbox.request_center_mint(
            session=session, center=center, idempotency_key=key, chain_id=chain_id
        )
    return CenterMintStatus.of(request)


def center_mint_status(*, session: Session, request_id: int) -> CenterMintStatus:
    return CenterMintStatus.of(CENTER_MINTS.find(session, request_id))
