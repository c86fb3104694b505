"""On anvil: centers the operator mints appear in the mirror and in search once the indexer
has followed their events; a transfer and an ERC-4907 rental follow; the mirror's payee is
the contract's ``payeeOf``; reading the same blocks again changes nothing."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy.orm import Session, sessionmaker

from backend.centers import service
from backend.centers.follower import center_events, cursor_name, index_centers
from backend.centers.models import CenterEvent
from backend.chain.follower import ChainCursor
from backend.db import create_db_engine, make_session_factory
from backend.economy.chain_reader import ChainReader
from tests.economy.chain_helpers import address, send

pytestmark = pytest.mark.timeout(240)


@pytest.fixture(scope="module")
def sessions(pg_url: str) -> Iterator[sessionmaker[Session]]:
    engine = create_db_engine(pg_url)
    yield make_session_factory(engine)
    engine.dispose()


def _mint(deployment: Any, owner: str, name: str, city: str, lat: int, lon: int) -> int:
    c = deployment.contracts
    receipt = send(
        deployment.w3,
        deployment.operator_key,
        c.game_center.functions.mintCenter(owner, name, b"ES", city, lat, lon, 3),
    )
    (minted,) = c.game_center.events.CenterMinted().process_receipt(receipt)
    return int(minted["args"]["centerId"])


def test_minted_centers_reach_the_mirror_and_search(
    deployment: Any, sessions: sessionmaker[Session]
) -> None:
    c = deployment.contracts
    owner_key, buyer_key, renter_key = deployment.player_keys[:3]
    owner, buyer, renter = address(owner_key), address(buyer_key), address(renter_key)
    madrid = _mint(deployment, owner, "Peña Madrid", "Madrid", 4042, -370)
    sevilla = _mint(deployment, owner, "Peña Sevilla", "Sevilla", 3739, -599)
    send(deployment.w3, owner_key, c.game_center.functions.transferFrom(owner, buyer, sevilla))
    expires = deployment.w3.eth.get_block("latest")["timestamp"] + 7 * 86400
    send(deployment.w3, owner_key, c.game_center.functions.setUser(madrid, renter, expires))

    reader = ChainReader(c, confirmations=1)
    with sessions() as session:
        assert service.find(session=session, lat_e2=4000, lon_e2=-400) == []
    report = index_centers(session_factory=sessions, reader=reader)
    # Two mints (each with its Transfer from zero), a transfer and a rental.
    assert report.events == 6
    with sessions() as session:
        found = service.find(session=session, lat_e2=3800, lon_e2=-600, limit=5)
        assert [f.center.center_id for f in found] == [sevilla, madrid]
        assert found[0].center.owner == buyer and found[0].center.name == "Peña Sevilla"
        now = datetime.fromtimestamp(deployment.w3.eth.get_block("latest")["timestamp"], UTC)
        for center_id in (madrid, sevilla):
            on_chain = c.game_center.functions.payeeOf(center_id).call()
            assert service.payee_of(session, center_id, now) == on_chain
        assert service.payee_of(session, madrid, now) == renter

    # The same range read again (a crash before the cursor's commit) applies nothing twice.
    with sessions.begin() as session:
        session.get(
            ChainCursor, cursor_name(reader, c.game_center.address)
        ).next_block = reader.start_block
    again = index_centers(session_factory=sessions, reader=reader)
    assert again.events == 0
    with sessions() as session:
        events = center_events(reader, c.game_center, reader.start_block, reader.safe_head())
        assert len(events) == 6
        assert session.query(CenterEvent).count() == 6
