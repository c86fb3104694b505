"""Hostile callers against the Game Center routes (issue 20): a wallet that does not host
the center opening tables or tournaments under it, more tables than its capacity (one by
one and all at once), points off the globe, huge limits, options outside the presets and
fields the route does not take. Each gets a clear 4xx and nothing is written, on SQLite
and PostgreSQL, against a real server; the centers are mirrored from CenterMinted events
through the indexer's own code (``backend.centers.mirror``).
"""

from __future__ import annotations

import json
import secrets
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from eth_account import Account

from backend.chain.models import ChainRequest
from backend.competitions.models import Tournament
from backend.db import create_db_engine, make_session_factory
from backend.tables.models import Table
from tests.centers.helpers import mint_center
from tests.fixtures.harness import api, sign_in
from tests.hostile.test_tables import SLOW_BOTS, _count, _error

pytestmark = pytest.mark.timeout(240)

LIMITS = {"DEW_HTTP_CREATE_PER_WALLET": "1000/minute"}


def _mint(db_url: str, owner: str, capacity: int = 2, **kw: Any) -> int:
    center_id = secrets.randbelow(2**40) + 1
    engine = create_db_engine(db_url)
    try:
        with make_session_factory(engine)() as session:
            mint_center(session, center_id, owner, capacity=capacity, **kw)
    finally:
        engine.dispose()
    return center_id


def test_a_wallet_that_does_not_host_the_center_opens_nothing(start_server, db_url) -> None:  # type: ignore[no-untyped-def]
    server = start_server(**SLOW_BOTS, extra_env=LIMITS)
    owner = Account.create()
    center_id = _mint(db_url, owner.address)
    _stranger, token = sign_in(server.url)
    with api(server.url, token) as client:
        table = client.post(f"/centers/{center_id}/tables", json={"preset": "draw", "seats": 2})
        assert _error(table) == (403, "not_center_host"), table.text
        cup = client.post(
            f"/centers/{center_id}/competitions", json={"name": "Copa ajena", "preset": "draw"}
        )
        assert _error(cup) == (403, "not_center_host"), cup.text
        missing = client.post("/centers/999999999999/tables", json={"preset": "draw", "seats": 2})
        assert _error(missing) == (404, "center_not_found"), missing.text
    with api(server.url) as anonymous:
        assert (
            anonymous.post(f"/centers/{center_id}/tables", json={"preset": "draw"}).status_code
            == 401
        )
    assert _count(db_url, Table, Table.center_id == center_id) == 0
    assert _count(db_url, Tournament, Tournament.center_id == center_id) == 0


def test_the_center_never_hosts_more_tables_than_its_capacity(start_server, db_url) -> None:  # type: ignore[no-untyped-def]
    server = start_server(**SLOW_BOTS, extra_env=LIMITS)
    owner, token = sign_in(server.url)
    center_id = _mint(db_url, owner.address, capacity=3)
    body = {"preset": "draw", "seats": 2}

    def open_one(_: int) -> tuple[int, str | None]:
        with api(server.url, token) as client:
            return _error(client.post(f"/centers/{center_id}/tables", json=body))

    # Eight at once against three slots: the center's row lock lets exactly three through.
    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(open_one, range(8)))
    assert sorted(results).count((201, None)) == 3, results
    assert all(r == (409, "center_full") for r in results if r[0] != 201), results
    assert _count(db_url, Table, Table.center_id == center_id) == 3
    with api(server.url, token) as client:
        late = client.post(f"/centers/{center_id}/tables", json=body)
        assert _error(late) == (409, "center_full")
        assert "capacity is 3" in late.json()["error"]["message"]
    # The host's own tables elsewhere are not the center's: its seats are not taken.
    assert _count(db_url, Table, Table.center_id == center_id) == 3


BAD_SEARCHES = [
    "lat=91&lon=0",
    "lat=-90.5&lon=0",
    "lat=0&lon=180.01",
    "lat=0&lon=-181",
    "lat=nan&lon=0",
    "lat=inf&lon=0",
    "lat=1e308&lon=0",
    "lat=40",
    "lon=-3",
    "lat=abc&lon=1",
    "limit=101",
    "limit=0",
    "limit=-1",
    "limit=1000000000000000000000000000000",
    "q=" + "x" * 65,
]


def test_out_of_range_searches_are_refused(start_server, db_url) -> None:  # type: ignore[no-untyped-def]
    server = start_server(**SLOW_BOTS)
    _mint(db_url, Account.create().address)
    with api(server.url) as client:
        for query in BAD_SEARCHES:
            refused = client.get(f"/centers?{query}")
            assert refused.status_code == 422, (query, refused.text)
            code = refused.json()["error"]["code"]
            assert code in ("invalid_request", "invalid_center_request"), (query, refused.text)
        # The largest answer is bounded: at most 100 centers whatever is asked.
        assert client.get("/centers?limit=100&lat=0&lon=0").status_code == 200


def test_options_outside_the_presets_and_foreign_fields_are_refused(start_server, db_url) -> None:  # type: ignore[no-untyped-def]
    server = start_server(**SLOW_BOTS, extra_env=LIMITS)
    owner, token = sign_in(server.url)
    center_id = _mint(db_url, owner.address, capacity=5)
    cases: list[tuple[dict[str, Any], str]] = [
        ({"preset": "draw", "seats": 2, "options": {"spinner": True}}, "invalid_options"),
        ({"preset": "draw", "seats": 2, "options": {"target": 75}}, "invalid_options"),
        ({"preset": "no-such-preset", "seats": 2}, ""),
        ({"preset": "draw", "seats": 9}, "invalid_request"),
        ({"preset": "draw", "kind": "ai"}, "invalid_request"),
        ({"preset": "draw", "center_id": 1}, "invalid_request"),
        ({"preset": "draw", "invite": [owner.address]}, "invalid_request"),
        ({"preset": "draw", "stake": 5, "earning": False}, "invalid_request"),
        ({"preset": "draw", "turn_timeout_s": 10_000}, "invalid_request"),
    ]
    with api(server.url, token) as client:
        for body, code in cases:
            refused = client.post(f"/centers/{center_id}/tables", json=body)
            assert refused.status_code in (404, 422), (body, refused.text)
            if code:
                assert refused.json()["error"]["code"] == code, (body, refused.text)
        cups = [
            {"name": "Copa", "preset": "draw", "added_prize": 10**18},
            {"name": "Copa", "preset": "draw", "tier": "supercampeones"},
            {"name": "Copa", "preset": "draw", "fee_bps": 5000},
            {"name": "Copa", "preset": "draw", "min_entrants": 1},
            {"name": "", "preset": "draw"},
        ]
        for body in cups:
            refused = client.post(f"/centers/{center_id}/competitions", json=body)
            assert refused.status_code == 422, (body, refused.text)
        for bad_id in ("-1", "abc", str(2**64)):
            assert client.get(f"/centers/{bad_id}").status_code == 422
            assert client.get(f"/centers/{bad_id}/report").status_code == 422
        assert client.get(f"/centers/{center_id}/report?season=0").status_code == 422
    assert _count(db_url, Table, Table.center_id == center_id) == 0
    assert _count(db_url, Tournament, Tournament.center_id == center_id) == 0


def test_center_mints_only_by_the_operator_and_only_within_bounds(start_server, db_url) -> None:  # type: ignore[no-untyped-def]
    operator = Account.create()
    env = {**LIMITS, "DEW_OPERATOR_ADDRESSES": json.dumps([operator.address])}
    server = start_server(**SLOW_BOTS, extra_env=env)
    owner = Account.create().address
    key = "hostile-" + secrets.token_hex(4)
    good = {
        "to": owner, "name": "Peña", "country": "ES", "city": "Cádiz", "lat": 36.53,
        "lon": -6.29, "capacity": 3, "idempotency_key": key,
    }  # fmt: skip
    before = _count(db_url, ChainRequest)
    _, stranger = sign_in(server.url)
    with api(server.url) as anonymous:
        assert anonymous.post("/operator/centers", json=good).status_code == 401
    with api(server.url, stranger) as client:
        assert _error(client.post("/operator/centers", json=good)) == (403, "not_operator")
    _, token = sign_in(server.url, operator)
    bad_bodies = [
        {"capacity": 0}, {"capacity": 501}, {"country": "es"}, {"lat": 90.5}, {"lon": -180.5},
        {"lat": "NaN"}, {"name": ""}, {"name": "x" * 65}, {"to": "0x1234"},
        {"idempotency_key": "no spaces"}, {"minter": owner},
    ]  # fmt: skip
    with api(server.url, token) as client:
        for bad in bad_bodies:
            refused = client.post("/operator/centers", json={**good, **bad})
            assert refused.status_code == 422, (bad, refused.text)
        # A name within 64 characters but over the contract's 64 bytes.
        wide = client.post("/operator/centers", json={**good, "name": "ñ" * 40})
        assert _error(wide) == (422, "invalid_center_request"), wide.text
        assert _count(db_url, ChainRequest) == before
        first = client.post("/operator/centers", json=good)
        assert first.status_code == 202, first.text
        repeat = client.post("/operator/centers", json=good)
        assert repeat.status_code == 200 and repeat.json()["id"] == first.json()["id"]
        other = client.post("/operator/centers", json={**good, "capacity": 4})
        assert _error(other) == (409, "idempotency_conflict"), other.text
        assert client.get(f"/operator/centers/{first.json()['id']}").json()["status"] == "queued"
        assert client.get("/operator/centers/0").status_code == 422
        assert _error(client.get("/operator/centers/999999999")) == (404, "center_mint_not_found")
    assert _count(db_url, ChainRequest) == before + 1
