"""The centers routes on a real server, on SQLite and PostgreSQL: find by place, a center's
page, its host opening a table (which a player joins) and a Campeonato, the rental moving
the hosting to the renter, and the per-season report of the center's fee legs."""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy.orm import Session, sessionmaker

from backend.centers import mirror
from backend.competitions.models import escrow_key
from backend.db import create_db_engine, make_session_factory
from backend.db.base import utcnow
from backend.economy.models import LedgerLeg, PlannedSettlement, Season
from tests.centers.helpers import event, mint_center
from tests.fixtures.dew_cli import invoke_dew, only_database
from tests.fixtures.harness import ServerProcess, api, sign_in

pytestmark = pytest.mark.timeout(240)


@pytest.fixture(scope="module")
def sessions(db_url: str) -> Iterator[sessionmaker[Session]]:
    engine = create_db_engine(db_url)
    yield make_session_factory(engine)
    engine.dispose()


@pytest.fixture(scope="module")
def server(db_url: str) -> Iterator[ServerProcess]:
    with ServerProcess(
        db_url, bot_move_delay_s=30.0, turn_timeout_s=60,
        extra_env={"DEW_HTTP_CREATE_PER_WALLET": "1000/minute"},
    ) as proc:  # fmt: skip
        yield proc


def _center(sessions: sessionmaker[Session], owner: str, **kw: object) -> int:
    center_id = secrets.randbelow(2**40) + 1
    with sessions() as session:
        mint_center(session, center_id, owner, **kw)  # type: ignore[arg-type]
    return center_id


def test_find_host_and_join(server: ServerProcess, sessions: sessionmaker[Session]) -> None:
    host, host_token = sign_in(server.url)
    tag = secrets.token_hex(3)
    near = _center(sessions, host.address, name=f"Cerca {tag}", lat_e2=1000, lon_e2=1000)
    far = _center(sessions, host.address, name=f"Lejos {tag}", lat_e2=1050, lon_e2=1000)
    with api(server.url) as anonymous:
        found = anonymous.get("/centers", params={"lat": 10.01, "lon": 10.0, "q": tag}).json()
    assert [c["center_id"] for c in found] == [near, far]
    assert found[0]["distance_km"] < 2 < 50 < found[1]["distance_km"] < 60
    assert found[0]["host"] == host.address and found[0]["lat"] == 10.0

    with api(server.url, host_token) as client:
        opened = client.post(f"/centers/{near}/tables", json={"preset": "draw", "seats": 2})
        assert opened.status_code == 201, opened.text
        table = opened.json()
        # The host opens the table for others: it does not sit at it.
        assert table["seats"] == [] and table["creator"] == host.address
        cup = client.post(
            f"/centers/{near}/competitions",
            json={"name": f"Copa {tag}", "preset": "draw", "min_entrants": 2, "max_entrants": 8},
        )
        assert cup.status_code == 201, cup.text
        assert cup.json()["center_id"] == near and cup.json()["tier"] == "campeonato"

    player, player_token = sign_in(server.url)
    with api(server.url, player_token) as client:
        page = client.get(f"/centers/{near}").json()
        assert [t["id"] for t in page["tables"]] == [table["id"]]
        assert [t["name"] for t in page["tournaments"]] == [f"Copa {tag}"]
        joined = client.post(f"/tables/{table['id']}/join", json={})
        assert joined.status_code == 200, joined.text
        assert [s["address"] for s in joined.json()["seats"]] == [player.address]


def test_a_rental_moves_the_hosting_to_the_renter(
    server: ServerProcess, sessions: sessionmaker[Session]
) -> None:
    owner, owner_token = sign_in(server.url)
    renter, renter_token = sign_in(server.url)
    center = _center(sessions, owner.address)
    until = int((datetime.now(UTC) + timedelta(days=7)).timestamp())
    with sessions() as session:
        mirror.apply_events(
            session,
            [event("UpdateUser", {"tokenId": center, "user": renter.address, "expires": until})],
        )
        session.commit()
    body = {"preset": "draw", "seats": 2}
    with api(server.url, owner_token) as client:
        refused = client.post(f"/centers/{center}/tables", json=body)
        assert refused.status_code == 403 and "renter" in refused.json()["error"]["message"]
    with api(server.url, renter_token) as client:
        assert client.post(f"/centers/{center}/tables", json=body).status_code == 201
        assert client.get(f"/centers/{center}").json()["host"] == renter.address


def _leg(
    session: Session, match_id: str, season_id: int | None, payee: str, amount: int, status: str
) -> str:
    """A settled match's center fee leg; the settlement's transaction hash."""
    tx_hash = "0x" + secrets.token_hex(32)
    session.add(
        PlannedSettlement(
            match_id=match_id, chain_match_id="0x" + secrets.token_hex(32),
            result_hash="0x" + "00" * 32, season_id=season_id, economy="staked",
            finished_at=utcnow(), status="paid", tx_hash=tx_hash,
        )
    )  # fmt: skip
    session.flush()
    session.add(
        LedgerLeg(
            match_id=match_id, party="fee_center", address=payee, amount=str(amount), status=status
        )
    )
    return tx_hash


def test_the_report_sums_the_center_legs_per_season(
    server: ServerProcess, sessions: sessionmaker[Session]
) -> None:
    host, host_token = sign_in(server.url)
    center = _center(sessions, host.address)
    other = _center(sessions, host.address)
    tag = secrets.token_hex(3)
    with api(server.url, host_token) as client:
        ids = []
        for name, at in ((f"A {tag}", center), (f"B {tag}", center), (f"C {tag}", other)):
            made = client.post(f"/centers/{at}/competitions", json={"name": name, "preset": "draw"})
            assert made.status_code == 201, made.text
            ids.append(made.json()["id"])
    now = utcnow()
    with sessions() as session:
        season = Season(
            name=f"S {tag}", starts_at=now - timedelta(days=1), ends_at=now + timedelta(days=1)
        )
        session.add(season)
        session.flush()
        paid_tx = _leg(session, escrow_key(ids[0]), season.id, host.address, 700, "paid")
        _leg(session, escrow_key(ids[1]), season.id, host.address, 300, "pending")
        _leg(session, escrow_key(ids[2]), season.id, host.address, 5_000, "paid")  # other center
        session.commit()
        season_id = season.id
    with api(server.url) as anonymous:
        report = anonymous.get(f"/centers/{center}/report").json()
        narrowed = anonymous.get(f"/centers/{center}/report", params={"season": season_id}).json()
        empty = anonymous.get(f"/centers/{center}/report", params={"season": season_id + 1}).json()
    assert report["seasons"] == [
        {
            "season_id": season_id, "season": f"S {tag}", "matches": 2, "earned": "1000",
            "paid": "700", "pending": "300", "failed": "0",
        }
    ]  # fmt: skip
    assert report["earned"] == "1000" and report["paid"] == "700"
    assert narrowed["seasons"] == report["seasons"] and empty["seasons"] == []
    # Per match, newest first, with the transaction that paid it (none while pending).
    lines = [(m["match_id"], m["amount"], m["status"], m["tx_hash"]) for m in report["matches"]]
    assert lines == [
        (escrow_key(ids[1]), "300", "pending", None),
        (escrow_key(ids[0]), "700", "paid", paid_tx),
    ]
    assert narrowed["matches"] == report["matches"] and empty["matches"] == []
    with api(server.url) as anonymous:
        newest = anonymous.get(f"/centers/{center}/report", params={"limit": 1}).json()
        assert anonymous.get(f"/centers/{center}/report", params={"limit": 501}).status_code == 422
    assert newest["matches"] == report["matches"][:1] and newest["seasons"] == report["seasons"]

    # `dew center report`: the same report for the host at a shell.
    env = only_database(server.env["DEW_DB_URL"])
    said = invoke_dew(env, "center", "report", str(center))
    assert said.returncode == 0, said.stderr
    assert f"S {tag}: 2 matches, earned 0.00 DEW" in said.stdout  # 1,000 wei
    assert paid_tx in said.stdout and escrow_key(ids[1]) in said.stdout
    as_json = json.loads(invoke_dew(env, "center", "report", str(center), "--json").stdout)
    assert as_json["seasons"] == report["seasons"]
    assert [m["tx_hash"] for m in as_json["matches"]] == [None, paid_tx]
    missing = invoke_dew(env, "center", "report", "999999")
    assert missing.returncode == 1 and "999999" in missing.stderr
