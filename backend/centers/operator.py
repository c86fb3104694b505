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
from backend.chain.exceptions import ChainValueError, IdempotencyConflict
from backend.chain.models import ChainRequest, RequestKind
from backend.text import clean_text

# GameCenter's bounds (MAX_NAME_BYTES, MAX_CITY_BYTES, MIN_CAPACITY, MAX_CAPACITY): a
# description the contract would refuse is refused before it is queued.
MAX_NAME_BYTES = 64
MAX_CITY_BYTES = 64
MIN_CAPACITY = 1
MAX_CAPACITY = 500
KEY_PATTERN = re.compile(r"^[A-Za-z0-9_.:-]{1,64}$")
KEY_PREFIX = "operator-center:"
COUNTRY = re.compile(r"^[A-Z]{2}$")


class CenterMintNotFound(exc.CenterNotFound):
    code = "center_mint_not_found"


class CenterMintConflict(exc.CentersError):
    """The idempotency key was already used for another request."""

    code = "idempotency_conflict"


@dataclass(frozen=True)
class CenterMintStatus:
    id: int
    idempotency_key: str
    status: str
    center: dict[str, Any]
    center_id: int | None
    tx_hash: str | None
    failure_reason: str | None

    @classmethod
    def of(cls, request: ChainRequest) -> CenterMintStatus:
        result: dict[str, Any] = request.result or {}
        return cls(
            id=request.id,
            idempotency_key=request.idempotency_key.removeprefix(KEY_PREFIX),
            status=request.status,
            center=dict(request.payload),
            center_id=int(result["center_id"]) if "center_id" in result else None,
            tx_hash=request.tx_hash,
            failure_reason=request.failure_reason,
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
    if not isinstance(idempotency_key, str) or not KEY_PATTERN.match(idempotency_key):
        raise exc.CentersValueError(
            f"idempotency key must be 1..64 of A-Z a-z 0-9 _ . : -, got {idempotency_key!r}"
        )
    try:
        request = outbox.request_center_mint(
            session=session, center=center, idempotency_key=KEY_PREFIX + idempotency_key,
            chain_id=chain_id,
        )  # fmt: skip
    except IdempotencyConflict as error:
        raise CenterMintConflict(
            f"idempotency key {idempotency_key!r} was already used for another request"
        ) from error
    except ChainValueError as error:
        raise exc.CentersValueError(str(error)) from error
    return CenterMintStatus.of(request)


def center_mint_status(*, session: Session, request_id: int) -> CenterMintStatus:
    request = session.get(ChainRequest, request_id)
    if (
        request is None
        or request.kind != RequestKind.CENTER_MINT
        or not request.idempotency_key.startswith(KEY_PREFIX)
    ):
        raise CenterMintNotFound(f"no operator center mint with id {request_id!r}")
    return CenterMintStatus.of(request)
