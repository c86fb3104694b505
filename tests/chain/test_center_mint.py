"""The operator's Game Center mint (issue 20): validated against the contract's bounds,
queued in the outbox under an idempotency key, sent alone by the real engine on anvil
(``GameCenter.mintCenter``), its id read from the receipt, and the center then found by
place once the indexer has mirrored it."""

from __future__ import annotations

from typing import Any

import pytest
from eth_account import Account
from sqlalchemy import func, select

from backend.centers import exceptions as centers_exc
from backend.centers import operator, service
from backend.centers.follower import index_centers
from backend.chain.models import ChainRequest, RequestStatus
from backend.economy.chain_reader import ChainReader
from tests.chain.conftest import pump_until

GOOD: dict[str, Any] = {
    "name": "Dominó Club Ñ",
    "country": "PR",
    "city": "San Juan",
    "lat_e2": 1846,
    "lon_e2": -6611,
    "capacity": 4,
}


@pytest.mark.parametrize(
    ("bad", "words"),
    [
        ({"capacity": 0}, "capacity"),
        ({"capacity": 501}, "capacity"),
        ({"capacity": True}, "capacity"),
        ({"country": "pr"}, "country"),
        ({"country": "PRI"}, "country"),
        ({"name": ""}, "name"),
        ({"name": "ñ" * 33}, "name"),  # 66 bytes of UTF-8
        ({"city": "x" * 65}, "city"),
        ({"lat_e2": 9001}, "lat"),
        ({"lon_e2": -18001}, "lon"),
        ({"to": "0x" + "00" * 20}, "owner"),
        ({"to": "nobody"}, "owner"),
    ],
)
def test_a_description_the_contract_would_refuse_is_refused(
    bad: dict[str, Any], words: str
) -> None:
    with pytest.raises(centers_exc.CentersValueError, match=words):
        operator.describe(**{"to": Account.create().address, **GOOD, **bad})


def test_the_engine_mints_a_center_that_is_then_found_by_place(
    deployment: Any, make_engine: Any, fresh_db: Any
) -> None:
    owner = Account.create().address
    center = operator.describe(to=owner, **GOOD)
    with fresh_db.begin() as session:
        queued = operator.queue_center_mint(session=session, center=center, idempotency_key="c-1")
    with fresh_db.begin() as session:
        again = operator.queue_center_mint(session=session, center=center, idempotency_key="c-1")
        assert again.id == queued.id
        with pytest.raises(operator.CenterMintConflict):
            operator.queue_center_mint(
                session=session, center={**center, "capacity": 5}, idempotency_key="c-1"
            )
    with fresh_db() as session:
        assert session.scalar(select(func.count()).select_from(ChainRequest)) == 1

    def confirmed() -> bool:
        with fresh_db() as session:
            status = operator.center_mint_status(session=session, request_id=queued.id)
            return status.status == RequestStatus.CONFIRMED

    pump_until(make_engine(fresh_db), confirmed, timeout_s=60, what="center mint confirmed")
    with fresh_db() as session:
        center_id = operator.center_mint_status(session=session, request_id=queued.id).center_id
    assert center_id is not None
    gc = deployment.contracts.game_center.functions
    assert gc.ownerOf(center_id).call() == owner
    assert gc.centerOf(center_id).call() == ["Dominó Club Ñ", b"PR", "San Juan", 1846, -6611, 4]

    index_centers(
        session_factory=fresh_db, reader=ChainReader(deployment.contracts, confirmations=1)
    )
    with fresh_db() as session:
        found = service.find(session=session, lat_e2=1845, lon_e2=-6610, limit=100)
        ours = [f for f in found if f.center.center_id == center_id]
        assert ours and ours[0].center.owner == owner and ours[0].center.name == "Dominó Club Ñ"
        assert ours[0].distance_km is not None and ours[0].distance_km < 2
