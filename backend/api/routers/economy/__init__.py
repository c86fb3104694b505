"""Economy routes (``/economy``): scholarship transactions to sign, the mirror, reports and
seasons, one module per resource under the prefix (``agreements.py`` serves
``/economy/agreements``, and so on).

Write routes return *unsigned* transactions: the user's wallet signs and sends them, and the
contract checks ``msg.sender``, so these routes hold no keys and need no session token. Reads
are public, as the chain they mirror is. create_app() mounts them only with a deployment.
"""

from __future__ import annotations

from fastapi import APIRouter

from backend.api.routers.economy import (
    agreements,
    avatars,
    matches,
    offers,
    owners,
    scholars,
    screening,
    screenings,
    seasons,
    stakes,
    wallets,
)

router = APIRouter(prefix="/economy", tags=["economy"])
for _resource in (
    screenings,
    offers,
    agreements,
    avatars,
    screening,
    owners,
    scholars,
    wallets,
    stakes,
    matches,
    seasons,
):
    router.include_router(_resource.router)
