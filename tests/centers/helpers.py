"""Game Center events shaped as web3 decodes them, applied through the real mirror."""

from __future__ import annotations

import itertools
from typing import Any

from sqlalchemy.orm import Session

from backend.centers import mirror

_LOGS = itertools.count(1)


def event(name: str, args: dict[str, Any], block: int = 1) -> dict[str, Any]:
    n = next(_LOGS)
    return {
        "event": name,
        "args": args,
        "blockNumber": block,
        "transactionHash": "0x" + f"{n:064x}",
        "logIndex": 0,
    }


def minted(
    center_id: int,
    owner: str,
    *,
    name: str = "Casa Dominó",
    city: str = "Madrid",
    country: bytes = b"ES",
    lat_e2: int = 4042,
    lon_e2: int = -370,
    capacity: int = 2,
) -> dict[str, Any]:
    return event(
        "CenterMinted",
        {
            "centerId": center_id,
            "to": owner,
            "name": name,
            "country": country,
            "city": city,
            "latE2": lat_e2,
            "lonE2": lon_e2,
            "capacity": capacity,
        },
    )


def mint_center(session: Session, center_id: int, owner: str, **kw: Any) -> None:
    """Mirror a minted center (the indexer's own code path) and commit."""
    mirror.apply_events(session, [minted(center_id, owner, **kw)])
    session.commit()
