"""Hostile callers of the operator-only routes (``/operator``), against a real server process
on SQLite and PostgreSQL: anonymous callers and signed-in non-operators on every route, bad
bodies from the operator itself, and a retried mint. Every refusal is checked to change
nothing: the chain outbox and the seasons are read from the database."""

from __future__ import annotations

import itertools
import json
import secrets
import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from eth_account import Account
from sqlalchemy import func, select

from backend.chain.models import ChainRequest
from backend.db import create_db_engine, make_session_factory
from backend.economy.models import Season
from tests.fixtures.harness import ServerProcess, api, sign_in

OPERATOR = Account.create()
RACERS = 12


@pytest.fixture(scope="module")
def books(db_url):
    engine = create_db_engine(db_url)
    yield make_session_factory(engine)
    engine.dispose()


@pytest.fixture(scope="module")
def server(db_url):
    """One real server for the module (a server takes seconds to start on a busy machine);
    every test here leaves the books as it checks them, so they can share it."""
    env = {"DEW_OPERATOR_ADDRESSES": json.dumps([OPERATOR.address])}
    process = ServerProcess(db_url, extra_env=env).start()
    yield process
    process.stop()


def _counts(books) -> tuple[int, int]:
    """Chain requests in the outbox, seasons."""
    with books() as session:
        return (
            session.scalar(select(func.count()).select_from(ChainRequest)) or 0,
            session.scalar(select(func.count()).select_from(Season)) or 0,
        )


def _far_future(days: int) -> datetime:
    """Season times far from every other test's (seasons may not overlap)."""
    return datetime(2400, 1, 1, tzinfo=UTC) + timedelta(days=days + secrets.randbelow(10**5) * 10)


def _routes(mint_id: int, season_id: int) -> list[tuple[str, str, dict[str, object] | None]]:
    start = _far_future(0)
    return [
        (
            "POST",
            "/operator/mints",
            {
                "recipients": [Account.create().address],
                "idempotency_key": "k-" + secrets.token_hex(4),
            },
        ),
        ("GET", f"/operator/mints/{mint_id}", None),
        ("POST", f"/operator/seasons/{season_id}/end", None),
        (
            "POST",
            "/operator/seasons",
            {
                "name": "hostile " + secrets.token_hex(4),
                "starts_at": start.isoformat(),
                "ends_at": (start + timedelta(days=1)).isoformat(),
                "emission_budget": "1000",
            },
        ),
        (
            "POST",
            "/operator/seasons/schedule",
            {
                "first_starts_at": start.isoformat(),
                "count": 2,
                "length_s": 86400,
                "emission_budget": "1000",
                "name_prefix": "hostile " + secrets.token_hex(4),
            },
        ),
    ]


def test_anonymous_and_non_operators_are_refused_on_every_route(server, books):
    # One real mint first, so that GET /operator/mints/<id> names an existing request.
    _, op_token = sign_in(server.url, OPERATOR)
    with api(server.url, op_token) as client:
        made = client.post(
            "/operator/mints",
            json={
                "recipients": [Account.create().address],
                "idempotency_key": secrets.token_hex(8),
            },
        )
        assert made.status_code == 202, made.text
        now = datetime.now(UTC)
        running = client.post(
            "/operator/seasons",
            json={
                "name": "running " + secrets.token_hex(4),
                "starts_at": (now - timedelta(minutes=1)).isoformat(),
                "ends_at": (now + timedelta(hours=1)).isoformat(),
                "emission_budget": "0",
            },
        )
        assert running.status_code == 201, running.text
    season_id = running.json()["id"]
    _, stranger = sign_in(server.url)
    before = _counts(books)
    for method, path, body in _routes(made.json()["id"], season_id):
        for token, status, code in (
            (None, 401, "not_authenticated"),
            (stranger, 403, "not_operator"),
        ):
            with api(server.url, token) as client:
                answer = client.request(method, path, json=body)
            assert answer.status_code == status, (method, path, answer.text)
            assert answer.json()["error"]["code"] == code
            assert "token_ids" not in answer.text
    assert _counts(books) == before
    with books() as session:
        assert session.get(Season, season_id).ends_at.replace(tzinfo=UTC) > datetime.now(UTC)
    # The operator may: the season ends now; ending it again, or an unknown one, is refused.
    with api(server.url, op_token) as client:
        ended = client.post(f"/operator/seasons/{season_id}/end")
        assert ended.status_code == 200, ended.text
        assert datetime.fromisoformat(ended.json()["ends_at"]) <= datetime.now(UTC)
        assert client.post(f"/operator/seasons/{season_id}/end").status_code == 422
        assert client.post("/operator/seasons/999999/end").status_code == 404
        assert client.post("/operator/seasons/0/end").status_code == 422


def test_operator_mint_is_idempotent_and_refuses_a_reused_key(server, books):
    _, token = sign_in(server.url, OPERATOR)
    recipients = [Account.create().address, Account.create().address]
    key = "retry-" + secrets.token_hex(6)
    before = _counts(books)
    with api(server.url, token) as client:
        first = client.post(
            "/operator/mints", json={"recipients": recipients, "idempotency_key": key}
        )
        again = client.post(
            "/operator/mints", json={"recipients": recipients, "idempotency_key": key}
        )
        other = client.post(
            "/operator/mints",
            json={"recipients": [Account.create().address], "idempotency_key": key},
        )
        status = client.get(f"/operator/mints/{first.json()['id']}")
    assert first.status_code == 202 and again.status_code == 200, (first.text, again.text)
    assert again.json()["id"] == first.json()["id"]
    assert first.json()["recipients"] == recipients
    assert other.status_code == 409 and other.json()["error"]["code"] == "conflict"
    assert status.status_code == 200 and status.json()["idempotency_key"] == key
    assert _counts(books) == (before[0] + 1, before[1])


def test_racing_repeats_of_a_mint_get_one_202_and_the_rest_200(server, books):
    """A script fires the same queued mint many times at once: exactly one answer says it
    was queued (202); every other one, however it raced, is the repeat (200) of that request."""
    _, token = sign_in(server.url, OPERATOR)
    body = {"recipients": [Account.create().address], "idempotency_key": secrets.token_hex(8)}
    before = _counts(books)
    barrier = threading.Barrier(RACERS)

    def post(_: int) -> httpx.Response:
        with api(server.url, token) as client:
            barrier.wait()
            return client.post("/operator/mints", json=body)

    with ThreadPoolExecutor(RACERS) as pool:
        answers = list(pool.map(post, range(RACERS)))
    codes = sorted(a.status_code for a in answers)
    assert codes == [200] * (RACERS - 1) + [202], [a.text for a in answers]
    assert len({a.json()["id"] for a in answers}) == 1
    assert _counts(books) == (before[0] + 1, before[1])


BAD_MINTS: list[dict[str, object]] = [
    {"recipients": [], "idempotency_key": "k1"},
    {"recipients": ["0x123"], "idempotency_key": "k2"},
    {"recipients": ["not an address"], "idempotency_key": "k3"},
    {"recipients": [Account.create().address] * 101, "idempotency_key": "k4"},
    {"recipients": [Account.create().address], "idempotency_key": ""},
    {"recipients": [Account.create().address], "idempotency_key": "x" * 65},
    {"recipients": [Account.create().address], "idempotency_key": "bad key!"},
    {"recipients": [Account.create().address]},
    {"recipients": [Account.create().address], "idempotency_key": "k5", "extra": 1},
    {"recipients": "0x0000000000000000000000000000000000000001", "idempotency_key": "k6"},
]


def test_bad_mint_bodies_are_refused_and_change_nothing(server, books):
    _, token = sign_in(server.url, OPERATOR)
    before = _counts(books)
    with api(server.url, token) as client:
        for body in BAD_MINTS:
            answer = client.post("/operator/mints", json=body)
            assert answer.status_code == 422, (body, answer.text)
            assert answer.json()["error"]["code"] == "invalid_request"
    assert _counts(books) == before


def test_bad_mint_ids_are_refused(server, books):
    _, token = sign_in(server.url, OPERATOR)
    with api(server.url, token) as client:
        for path, status in (
            ("/operator/mints/0", 422),
            ("/operator/mints/-1", 422),
            ("/operator/mints/abc", 422),
            ("/operator/mints/" + "9" * 30, 422),
            ("/operator/mints/999999999", 404),
        ):
            answer = client.get(path)
            assert answer.status_code == status, (path, answer.text)


def _season(days: int = 1, **changes: object) -> dict[str, object]:
    start = _far_future(0)
    body: dict[str, object] = {
        "name": "bad " + secrets.token_hex(4),
        "starts_at": start.isoformat(),
        "ends_at": (start + timedelta(days=days)).isoformat(),
        "emission_budget": "1000",
    }
    body.update(changes)
    return body


BAD_SEASONS: list[dict[str, object]] = [
    {"name": ""},
    {"name": "n" * 65},
    {"emission_budget": "-1"},
    {"emission_budget": "1e9"},
    {"emission_budget": "9" * 32},
    {"emission_budget": 1000},
    {"starts_at": "yesterday"},
    {"starts_at": "2400-01-01T00:00:00"},  # no time zone
    {"ends_at": "1999-01-01T00:00:00+00:00"},  # ends before it starts
    {"surprise": True},
]


def test_bad_seasons_are_refused_and_change_nothing(server, books):
    _, token = sign_in(server.url, OPERATOR)
    before = _counts(books)
    with api(server.url, token) as client:
        for changes in BAD_SEASONS:
            answer = client.post("/operator/seasons", json=_season(**changes))
            assert answer.status_code == 422, (changes, answer.text)
    assert _counts(books) == before


def test_season_name_and_overlap_refusals_change_nothing(server, books):
    _, token = sign_in(server.url, OPERATOR)
    body = _season()
    with api(server.url, token) as client:
        made = client.post("/operator/seasons", json=body)
        assert made.status_code == 201, made.text
        assert made.json()["emission_budget"] == "1000" and made.json()["emitted"] == "0"
        before = _counts(books)
        later = _far_future(0)
        same_name = dict(
            body,
            starts_at=(later + timedelta(days=5)).isoformat(),
            ends_at=(later + timedelta(days=6)).isoformat(),
        )
        assert client.post("/operator/seasons", json=same_name).status_code == 409
        # A reward table larger than the budget: 409, and the season is not created either.
        greedy = dict(same_name, name="greedy " + secrets.token_hex(4), rewards=["600", "401"])
        refused = client.post("/operator/seasons", json=greedy)
        assert refused.status_code == 409, refused.text
        assert refused.json()["error"]["code"] == "insufficient_budget"
        overlapping = dict(body, name="overlap " + secrets.token_hex(4))
        assert client.post("/operator/seasons", json=overlapping).status_code == 422
        # A schedule whose second season overlaps the one made above: none is created.
        start = datetime.fromisoformat(body["starts_at"]) - timedelta(days=1)  # type: ignore[arg-type]
        schedule = {
            "first_starts_at": start.isoformat(),
            "count": 3,
            "length_s": 86400,
            "emission_budget": "5",
            "name_prefix": "clash " + secrets.token_hex(4),
        }
        assert client.post("/operator/seasons/schedule", json=schedule).status_code == 422
        for bad in ({"count": 0}, {"count": 101}, {"length_s": 1}, {"name_prefix": ""}):
            answer = client.post("/operator/seasons/schedule", json=dict(schedule, **bad))
            assert answer.status_code == 422, (bad, answer.text)
    assert _counts(books) == before


def test_parallel_overlapping_seasons_create_exactly_one(server, books):
    """A script fires overlapping seasons (each its own name) at once: season creation is
    serialized, so exactly one is created (201) and every other is the overlap refusal
    (422); no two seasons of the books overlap afterwards."""
    _, token = sign_in(server.url, OPERATOR)
    start = _far_future(0)
    before = _counts(books)
    barrier = threading.Barrier(RACERS)

    def post(i: int) -> httpx.Response:
        body = {
            "name": f"race {i} " + secrets.token_hex(4),
            # every window overlaps every other (they all contain start + 1 day)
            "starts_at": (start + timedelta(hours=i)).isoformat(),
            "ends_at": (start + timedelta(days=2, hours=i)).isoformat(),
            "emission_budget": "1000",
        }
        with api(server.url, token) as client:
            barrier.wait()
            return client.post("/operator/seasons", json=body)

    with ThreadPoolExecutor(RACERS) as pool:
        answers = list(pool.map(post, range(RACERS)))
    codes = sorted(a.status_code for a in answers)
    assert codes == [201] + [422] * (RACERS - 1), [a.text for a in answers]
    assert _counts(books) == (before[0], before[1] + 1)
    with books() as session:
        windows = sorted(session.execute(select(Season.starts_at, Season.ends_at)).tuples())
    for (_, ends), (starts, _) in itertools.pairwise(windows):
        assert ends <= starts, windows


def test_season_with_rewards_reserves_them_from_its_budget(server, books):
    _, token = sign_in(server.url, OPERATOR)
    with api(server.url, token) as client:
        made = client.post("/operator/seasons", json=_season(rewards=["500", "300", "200"]))
    assert made.status_code == 201, made.text
    assert made.json()["rewards"] == ["500", "300", "200"]
    assert made.json()["emitted"] == "1000"  # all of the 1000 wei budget is reserved


def test_schedule_opens_back_to_back_seasons(server, books):
    _, token = sign_in(server.url, OPERATOR)
    start = _far_future(0)
    prefix = "Sched " + secrets.token_hex(4)
    with api(server.url, token) as client:
        answer = client.post(
            "/operator/seasons/schedule",
            json={
                "first_starts_at": start.isoformat(),
                "count": 3,
                "length_s": 86400,
                "emission_budget": "7",
                "name_prefix": prefix,
            },
        )
    assert answer.status_code == 201, answer.text
    made = answer.json()
    assert [s["name"] for s in made] == [f"{prefix} {i}" for i in (1, 2, 3)]
    assert [datetime.fromisoformat(s["starts_at"]) for s in made] == [
        start + timedelta(days=i) for i in range(3)
    ]
    with books() as session:
        names = set(session.scalars(select(Season.name).where(Season.name.like(f"{prefix}%"))))
    assert names == {f"{prefix} {i}" for i in (1, 2, 3)}


def _vip(**changes: object) -> dict[str, object]:
    body: dict[str, object] = {
        "action": "issue",
        "address": Account.create().address,
        "expires_at": int(datetime.now(UTC).timestamp()) + 7 * 86400,
        "idempotency_key": "vip-" + secrets.token_hex(6),
    }
    body.update(changes)
    return {k: v for k, v in body.items() if v is not None}


def test_vip_routes_refuse_anonymous_and_non_operators(server, books):
    _, op_token = sign_in(server.url, OPERATOR)
    with api(server.url, op_token) as client:
        made = client.post("/operator/vip", json=_vip())
    assert made.status_code == 202, made.text
    _, stranger = sign_in(server.url)
    before = _counts(books)
    for method, path, body in (
        ("POST", "/operator/vip", _vip()),
        ("POST", "/operator/vip", _vip(action="revoke", expires_at=None)),
        ("GET", f"/operator/vip/{made.json()['id']}", None),
    ):
        for token, status, code in (
            (None, 401, "not_authenticated"),
            (stranger, 403, "not_operator"),
        ):
            with api(server.url, token) as client:
                answer = client.request(method, path, json=body)
            assert answer.status_code == status, (method, path, answer.text)
            assert answer.json()["error"]["code"] == code
            assert "expires_at" not in answer.text
    assert _counts(books) == before


def test_operator_vip_is_idempotent_and_refuses_a_reused_key(server, books):
    _, token = sign_in(server.url, OPERATOR)
    body = _vip()
    later = int(str(body["expires_at"])) + 1
    before = _counts(books)
    with api(server.url, token) as client:
        first = client.post("/operator/vip", json=body)
        again = client.post("/operator/vip", json=body)
        others = [
            client.post("/operator/vip", json=dict(body, address=Account.create().address)),
            client.post("/operator/vip", json=dict(body, expires_at=later)),
            client.post(
                "/operator/vip",
                json={k: v for k, v in dict(body, action="revoke").items() if k != "expires_at"},
            ),
        ]
        status = client.get(f"/operator/vip/{first.json()['id']}")
        as_mint = client.get(f"/operator/mints/{first.json()['id']}")
    assert first.status_code == 202 and again.status_code == 200, (first.text, again.text)
    assert again.json()["id"] == first.json()["id"]
    assert first.json()["action"] == "issue" and first.json()["status"] == "queued"
    assert first.json()["address"] == body["address"]
    assert first.json()["expires_at"] == body["expires_at"]
    for other in others:
        assert other.status_code == 409 and other.json()["error"]["code"] == "conflict", other.text
    assert status.status_code == 200 and status.json()["idempotency_key"] == body["idempotency_key"]
    assert as_mint.status_code == 404  # a VIP request is not a mint
    assert _counts(books) == (before[0] + 1, before[1])
    with books() as session:
        request = session.get(ChainRequest, first.json()["id"])
        assert request.kind == "vip_issue"
        assert request.idempotency_key == "operator-vip:" + body["idempotency_key"]
        assert request.payload == {"holder": body["address"], "expires_at": body["expires_at"]}
    # A revoke is queued as its own request, without an expiry.
    with api(server.url, token) as client:
        revoke = client.post(
            "/operator/vip", json=_vip(action="revoke", address=body["address"], expires_at=None)
        )
    assert revoke.status_code == 202, revoke.text
    assert revoke.json()["action"] == "revoke" and revoke.json()["expires_at"] is None


BAD_VIPS: list[dict[str, object]] = [
    {"action": "grant"},
    {"action": None},
    {"address": "0x1234"},
    {"address": "not an address"},
    {"address": None},
    {"address": ["0x0000000000000000000000000000000000000001"]},
    {"expires_at": None},  # an issue needs its expiry
    {"expires_at": 0},
    {"expires_at": -5},
    {"expires_at": 2**64},
    {"expires_at": "soon"},
    {"expires_at": 1.5},
    {"expires_at": 1_000_000},  # in the past
    {"expires_at": 2**63},  # far past the longest term
    {"action": "revoke"},  # a revoke takes no expiry
    {"idempotency_key": ""},
    {"idempotency_key": "x" * 65},
    {"idempotency_key": "bad key!"},
    {"idempotency_key": None},
    {"surprise": True},
]


def test_bad_vip_bodies_are_refused_and_change_nothing(server, books):
    _, token = sign_in(server.url, OPERATOR)
    before = _counts(books)
    with api(server.url, token) as client:
        for changes in BAD_VIPS:
            answer = client.post("/operator/vip", json=_vip(**changes))
            assert answer.status_code == 422, (changes, answer.text)
            assert answer.json()["error"]["code"] == "invalid_request"
        for path, status in (
            ("/operator/vip/0", 422),
            ("/operator/vip/abc", 422),
            ("/operator/vip/" + "9" * 30, 422),
            ("/operator/vip/999999999", 404),
        ):
            answer = client.get(path)
            assert answer.status_code == status, (path, answer.text)
    assert _counts(books) == before
