"""The centers mirror and service on SQLite and PostgreSQL: search, hosting, payee."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import delete
from sqlalchemy.orm import Session, sessionmaker

from backend.centers import exceptions as exc
from backend.centers import mirror, service
from backend.centers.models import CenterEvent, GameCenter
from tests.centers.helpers import event, mint_center, minted

OWNER = "0x" + "11" * 20
RENTER = "0x" + "22" * 20
BUYER = "0x" + "33" * 20
ZERO = "0x" + "00" * 20


@pytest.fixture
def session(session_factory: sessionmaker[Session]) -> Session:
    with session_factory() as s:
        s.execute(delete(CenterEvent))
        s.execute(delete(GameCenter))
        s.commit()
        yield s


def test_mint_is_applied_once_even_when_read_twice(session: Session) -> None:
    ev = minted(1, OWNER, name="Bar Pepe", country=b"ES")
    assert mirror.apply_events(session, [ev]) == 1
    assert mirror.apply_events(session, [ev]) == 0
    session.commit()
    center = service.get_center(session=session, center_id=1)
    assert (center.name, center.country, center.owner) == ("Bar Pepe", "ES", OWNER)


def test_nearest_first_by_haversine(session: Session) -> None:
    mint_center(session, 1, OWNER, name="Madrid", lat_e2=4042, lon_e2=-370)
    mint_center(session, 2, OWNER, name="Barcelona", lat_e2=4139, lon_e2=217)
    mint_center(session, 3, OWNER, name="Havana", lat_e2=2314, lon_e2=-8238)
    # Zaragoza lies between Madrid and Barcelona, a little nearer Barcelona.
    found = service.find(session=session, lat_e2=4165, lon_e2=-88, limit=3)
    assert [f.center.name for f in found] == ["Barcelona", "Madrid", "Havana"]
    assert found[0].distance_km is not None and 240 < found[0].distance_km < 270
    assert [
        f.center.name for f in service.find(session=session, lat_e2=2300, lon_e2=-8200, limit=1)
    ] == ["Havana"]
    by_name = service.find(session=session, limit=10)
    assert [f.center.name for f in by_name] == ["Barcelona", "Havana", "Madrid"]
    assert [f.center.name for f in service.find(session=session, query="hav")] == ["Havana"]


@pytest.mark.parametrize(("lat", "lon"), [(9001, 0), (-9001, 0), (0, 18001), (0, -18001)])
def test_points_off_the_globe_are_refused(session: Session, lat: int, lon: int) -> None:
    with pytest.raises(exc.CentersValueError):
        service.find(session=session, lat_e2=lat, lon_e2=lon)


def test_rental_moves_hosting_and_payee_until_it_ends(session: Session) -> None:
    mint_center(session, 7, OWNER)
    until = datetime.now(UTC) + timedelta(days=3)
    mirror.apply_events(
        session,
        [event("UpdateUser", {"tokenId": 7, "user": RENTER, "expires": int(until.timestamp())})],
    )
    session.commit()
    now = datetime.now(UTC)
    assert service.payee_of(session, 7, now) == RENTER
    assert service.payee_of(session, 7, until + timedelta(seconds=1)) == OWNER
    with pytest.raises(exc.NotCenterHost):
        service.require_host(session=session, center_id=7, wallet=OWNER, at=now)
    session.rollback()
    assert service.require_host(session=session, center_id=7, wallet=RENTER, at=now).center_id == 7
    session.rollback()
    assert service.payee_of(session, 999, now) is None


def test_transfer_changes_owner(session: Session) -> None:
    mint_center(session, 8, OWNER)
    mirror.apply_events(session, [event("Transfer", {"from": OWNER, "to": BUYER, "tokenId": 8})])
    session.commit()
    assert service.payee_of(session, 8, datetime.now(UTC)) == BUYER


def test_migrations_match_the_models(db_engine: object) -> None:
    """The centers tables and the new center_id columns as migrated are as the models say."""
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    from backend.models import metadata

    ours = ("game_centers", "game_center_events", "center_id")
    with db_engine.connect() as conn:  # type: ignore[attr-defined]
        diff = compare_metadata(MigrationContext.configure(conn), metadata)
    assert [d for d in diff if any(name in repr(d) for name in ours)] == []
