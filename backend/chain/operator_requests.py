"""The kit for an operator's chain requests: queued in the outbox under the caller's
idempotency key, looked up by id, a repeat answered with the first request, and shown as a
:class:`RequestState`.

Each family (avatar mints, VIP passes, shop calls, center mints) names its key prefix, the
request kinds it owns and the errors its package raises; the rest is here once:

    MINTS = RequestFamily("operator-mint:", {RequestKind.MINT}, "operator mint",
                          invalid=EconomyValueError, conflict=Conflict, not_found=MintNotFound)
    key = MINTS.key(idempotency_key)           # the caller's key, checked and namespaced
    with MINTS.queueing(idempotency_key):      # outbox errors become the package's own
        request = outbox.request_mint(...)
    request = MINTS.find(session, request_id)  # another family's request is not found
    MintStatus(**MINTS.state(request), ...)    # its RequestState, and the family's own fields

The prefix keeps an operator's keys apart from the server's own (``settle:...``, withdrawals)
and from each other family's.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import Session

from backend.chain.exceptions import ChainValueError, IdempotencyConflict
from backend.chain.models import ChainRequest, RequestKind

KEY_PATTERN = re.compile(r"^[A-Za-z0-9_.:-]{1,64}$")


@dataclass(frozen=True)
class RequestState:
    """Where an operator's request stands, as every family's status shows it (each adds what
    its own request holds)."""

    id: int
    idempotency_key: str
    status: str
    tx_hash: str | None
    failure_reason: str | None


@dataclass(frozen=True)
class RequestFamily:
    prefix: str
    kinds: Collection[RequestKind]
    noun: str
    invalid: type[Exception]
    conflict: type[Exception]
    not_found: type[Exception]
    found_under: tuple[str, ...] = ()
    """Other prefixes whose requests ``find`` serves too (the shop's status serves the
    accessory types it defines on the way to a listing)."""

    def key(self, idempotency_key: object) -> str:
        """The outbox key for the caller's key, or ``invalid``."""
        if not isinstance(idempotency_key, str) or not KEY_PATTERN.match(idempotency_key):
            raise self.invalid(
                f"idempotency key must be 1..64 of A-Z a-z 0-9 _ . : -, got {idempotency_key!r}"
            )
        return self.prefix + idempotency_key

    def caller_key(self, request: ChainRequest) -> str:
        """The key the caller gave, without the family's prefix."""
        return request.idempotency_key.removeprefix(self.prefix)

    def state(self, request: ChainRequest) -> dict[str, Any]:
        """The :class:`RequestState` fields of one of this family's requests."""
        return {
            "id": request.id,
            "idempotency_key": self.caller_key(request),
            "status": request.status,
            "tx_hash": request.tx_hash,
            "failure_reason": request.failure_reason,
        }

    @contextmanager
    def queueing(self, idempotency_key: str) -> Iterator[None]:
        """Around an outbox call: a key used for another request is ``conflict``, an input
        the outbox refuses is ``invalid``."""
        try:
            yield
        except IdempotencyConflict as error:
            raise self.conflict(
                f"idempotency key {idempotency_key!r} was already used for another request"
            ) from error
        except ChainValueError as error:
            raise self.invalid(str(error)) from error

    def find(self, session: Session, request_id: int) -> ChainRequest:
        """This family's request by its outbox id; any other request is ``not_found``."""
        request = session.get(ChainRequest, request_id)
        if (
            request is None
            or RequestKind(request.kind) not in self.kinds
            or not request.idempotency_key.startswith((self.prefix, *self.found_under))
        ):
            raise self.not_found(f"no {self.noun} with id {request_id!r}")
        return request
