"""DewClient reaches what the server offers since wave 2, against a real server process: rule
options and a bot level per seat, same-device tables, queue tickets with options and a stake,
terms accepted at sign-in, table talk, mute and reports; refusals keep the server's code."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import jwt
import pytest
from eth_account import Account

from backend.config import AuthSettings
from backend.game import replay
from backend.protocol import messages as protocol
from backend.protocol.client import DewClient, DewClientError, Wallet
from tests.fixtures.database import create_migrated_pg_database, drop_pg_database
from tests.fixtures.harness import ServerProcess

pytestmark = pytest.mark.timeout(240)

TERMS_VERSION = "2026-11"
TERMS_URI = "https://dew.example/terms"


@pytest.fixture(scope="module")
def server() -> Iterator[ServerProcess]:
    """One server with terms configured: bots move fast, matchmaking fills with bots after 1 s."""
    url = create_migrated_pg_database()
    try:
        with ServerProcess(
            url,
            turn_timeout_s=60,
            bot_move_delay_s=0.02,
            matchmaking_wait_s=1.0,
            extra_env={"DEW_TERMS_VERSION": TERMS_VERSION, "DEW_TERMS_URI": TERMS_URI},
        ) as proc:
            yield proc
    finally:
        drop_pg_database(url)


@pytest.fixture
def client(server: ServerProcess) -> Iterator[DewClient]:
    with DewClient(server.url) as c:
        c.sign_in(Account.create().key.hex())
        yield c


def test_a_table_with_options_and_a_bot_level_per_seat_is_played_to_the_end(client):
    limits = client.table_limits()
    assert "same_device" in limits["kinds"] and "expert" in limits["bot_levels"]
    draw = next(p for p in client.presets() if p["preset"] == "draw")
    target = next(o for o in draw["option_specs"] if o["name"] == "target")
    assert 50 in target["choices"] and target["requires"] == []
    doscientos = next(p for p in client.presets() if p["preset"] == "doscientos")
    assert any(o["requires"] for o in doscientos["option_specs"])

    table = client.create_table(
        preset="draw",
        seats=2,
        kind="practice",
        options={"target": 50},
        bot_levels=["easy", "expert"],
    )
    assert table["options"] == {"target": 50} and table["bot_levels"] == ["easy", "expert"]
    assert [(s["address"], s["bot_level"]) for s in table["seats"]] == [
        (client.address, None),
        (None, "expert"),
    ]
    final = client.play(table["id"], timeout_s=200)
    match = client.match(final["match_id"])
    assert match["status"] == "finished" and match["options"] == {"target": 50}
    assert replay(match["record"]).to_json()["winner_seats"] == final["result"]["winner_seats"]


def test_an_ai_table_pits_two_bot_levels_and_the_client_watches_it_end(client):
    table = client.create_table(preset="draw", seats=2, kind="ai", bot_levels=["easy", "expert"])
    assert [s["bot_level"] for s in table["seats"]] == ["easy", "expert"]
    watcher = client.connect(table["id"])
    try:
        # The match may be over before the socket opens: then its snapshot carries the end.
        while watcher.final is None:
            watcher.recv(timeout_s=120)
        over = watcher.final
    finally:
        watcher.close()
    assert watcher.you is None  # a spectator: no seat of its own
    match = client.match(over["match_id"])
    assert match["status"] == "finished"
    assert [s["bot_level"] for s in match["seats"]] == ["easy", "expert"]


def test_one_client_plays_both_seats_of_a_same_device_table(client):
    table = client.create_table(preset="draw", seats=2, kind="same_device")
    assert table["status"] == "playing"
    assert [s["address"] for s in table["seats"]] == [client.address, client.address]
    seat = client.connect(table["id"])
    try:
        final = seat.play(timeout_s=120)
    finally:
        seat.close()
    # Both seats moved on this one socket: it was handed each seat's snapshot in turn.
    snapshots = {m["you"] for m in seat.received if m["type"] == "snapshot"}
    movers = {m["seat"] for m in seat.received if m["type"] == "moved"}
    assert snapshots == {0, 1} and movers == {0, 1}
    match = client.match(final["match_id"])
    assert match["status"] == "finished"
    assert [s["address"] for s in match["seats"]] == [client.address, client.address]


def test_a_ticket_with_options_meets_a_table_with_them(client):
    ticket = client.queue("draw", options={"target": 50})
    assert ticket["options"] == {"target": 50} and ticket["stake"] == "0"
    table_id = client.wait_for_table(ticket["id"], timeout_s=60)
    table = client.table(table_id)
    assert table["options"] == {"target": 50}
    final = client.play(table_id, timeout_s=200)
    assert client.match(final["match_id"])["options"] == {"target": 50}


def test_a_staked_ticket_is_refused_with_the_servers_code(client):
    # Terms are configured: staked play needs them accepted at sign-in.
    with pytest.raises(DewClientError) as unaccepted:
        client.queue("draw", earning=True, stake=10)
    assert (unaccepted.value.code, unaccepted.value.status) == ("terms_required", 403)
    client.sign_in(Wallet.create(), accept_terms=True)
    with pytest.raises(DewClientError) as free:
        client.queue("draw", stake=10)  # a stake is for earning tickets
    assert (free.value.code, free.value.status) == ("invalid_request", 422)
    with pytest.raises(DewClientError) as staked:
        client.queue("draw", earning=True, stake=10)
    # Admission to earning play reads the chain; this server has none configured.
    assert (staked.value.code, staked.value.status) == ("chain_unavailable", 503)
    with pytest.raises(DewClientError) as options:
        client.queue("draw", options={"target": 7})
    assert options.value.code == "invalid_options"
    with pytest.raises(DewClientError) as ticket:
        client.ticket("0" * 32)
    assert ticket.value.code == "ticket_not_found"


def test_signing_in_with_accept_terms_records_the_acceptance(server):
    with DewClient(server.url) as plain, DewClient(server.url) as accepting:
        plain.sign_in(Account.create().key.hex())
        before = plain.terms()
        assert before["required"] and before["version"] == TERMS_VERSION
        assert before["accepted"] is False
        assert before["resources"][0] == f"{TERMS_URI}#version={TERMS_VERSION}"

        tokens = accepting.sign_in_tokens(Wallet.create(), accept_terms=True)
        assert tokens["terms_version"] == TERMS_VERSION
        after = accepting.terms()
        assert after["accepted"] is True and after["accepted_at"]
        # The acceptance is the wallet's: a later plain sign-in still finds it.
        wallet = Wallet.create()
        accepting.sign_in(Wallet(wallet.private_key, accept_terms=True))
        accepting.sign_in(wallet)
        assert accepting.terms()["accepted"] is True


def test_two_clients_talk_mute_and_report(server):
    a, b = DewClient(server.url), DewClient(server.url)
    try:
        a.sign_in(Account.create().key.hex())
        b.sign_in(Account.create().key.hex())
        table = a.create_table(preset="draw", seats=2)
        b.join(table["id"])
        seat_a, seat_b = a.connect(table["id"]), b.connect(table["id"])
        try:
            # Each socket's snapshot comes once the table has it among its sockets.
            assert seat_a.wait_for("snapshot")["you"] == 0
            assert seat_b.wait_for("snapshot")["you"] == 1
            hello, thanks = protocol.TALK_PHRASES[0], protocol.TALK_PHRASES[1]
            seat_a.talk(phrase=hello)
            said = seat_b.wait_for("talk")
            assert (said["seat"], said["phrase"], said["emote"]) == (0, hello, None)
            assert seat_a.wait_for("talk")["phrase"] == hello  # the speaker's confirmation

            seat_b.mute(0)
            assert seat_b.wait_for("muted")["seats"] == [0]
            seat_a.talk(emote=protocol.TALK_EMOTES[0])
            assert seat_a.wait_for("talk")["emote"] == protocol.TALK_EMOTES[0]
            # Relayed (or not) to b before a's confirmation: b now unmutes, and the next
            # talk it gets is a's third one, never the muted emote.
            seat_b.mute(0, muted=False)
            assert seat_b.wait_for("muted")["seats"] == []
            seat_a.talk(phrase=thanks)
            heard = seat_b.wait_for("talk")
            assert heard["phrase"] == thanks
            talks = [m for m in seat_b.received if m["type"] == "talk"]
            assert [m["phrase"] for m in talks] == [hello, thanks]
            assert seat_a.wait_for("talk")["phrase"] == thanks

            with pytest.raises(DewClientError) as unknown:
                seat_a.talk(phrase="not-a-phrase")
                seat_a.wait_for("talk")
            assert unknown.value.code == "invalid_talk"
            with pytest.raises(DewClientError) as own:
                seat_a.mute(0)
                seat_a.wait_for("muted")
            assert own.value.code == "invalid_request"
            with pytest.raises(DewClientError) as two:
                seat_a.talk(phrase=hello, emote=protocol.TALK_EMOTES[0])
            assert two.value.code == "invalid_talk"
        finally:
            seat_a.close()
            seat_b.close()

        filed = a.report(table["id"], b.address, protocol.REPORT_REASONS[0], note="rude")
        assert (filed["reported"], filed["reason"], filed["status"]) == (
            b.address,
            protocol.REPORT_REASONS[0],
            "open",
        )
        with pytest.raises(DewClientError) as again:
            a.report(table["id"], b.address, protocol.REPORT_REASONS[0])
        assert again.value.code == "already_reported"
        with pytest.raises(DewClientError) as reason:
            a.report(table["id"], b.address, "looked-at-me")
        assert reason.value.code == "invalid_request"
    finally:
        a.close()
        b.close()


def test_table_creation_refusals_keep_the_servers_code(client):
    refusals = [
        ({"preset": "draw", "seats": 3, "kind": "same_device"}, "invalid_request"),
        ({"preset": "draw", "seats": 2, "kind": "same_device", "earning": True}, "terms_required"),
        ({"preset": "draw", "seats": 2, "bot_levels": ["easy", "easy", "easy"]}, "invalid_request"),
        ({"preset": "draw", "seats": 2, "bot_levels": ["easy", "godlike"]}, "invalid_request"),
        ({"preset": "draw", "seats": 2, "options": {"target": 7}}, "invalid_options"),
        ({"preset": "draw", "seats": 2, "turn_timeout_s": 0.5}, "invalid_request"),
    ]
    for spec, code in refusals:
        with pytest.raises(DewClientError) as refused:
            client.create_table(**spec)
        assert refused.value.code == code, (spec, refused.value)
    # The schema's refusal names the field in its detail.
    with pytest.raises(DewClientError) as level:
        client.create_table(preset="draw", seats=2, bot_levels=["easy", "godlike"])
    assert any("bot_levels" in e["loc"] for e in level.value.detail)
    # Nothing was created by any of them.
    assert all(t["creator"] != client.address for t in client.lobby())


def test_two_wallets_play_a_table_with_options_to_one_result(server):
    """Two wallets each play their own seat of a table with options; both see one result."""
    clients = [DewClient(server.url) for _ in range(2)]
    try:
        for c in clients:
            c.sign_in(Account.create().key.hex())
        table = clients[0].create_table(preset="draw", seats=2, options={"target": 50})
        clients[1].join(table["id"])
        finals: list[dict] = []
        threads = [
            threading.Thread(target=lambda c=c: finals.append(c.play(table["id"], timeout_s=200)))
            for c in clients
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(220)
        assert len(finals) == 2 and finals[0]["result_hash"] == finals[1]["result_hash"]
    finally:
        for c in clients:
            c.close()


def test_an_access_token_is_refreshed_before_it_expires_and_after_an_early_expiry(client):
    """A client that plays longer than a token lives stays signed in: it refreshes a token that
    expires within the minute before sending, and one the server finds expired (a clock ahead
    of the server's) once, then sends the request again; each refresh rotates the refresh
    token, whose old value the server then refuses."""
    address = client.address
    # Expiry a few seconds away: refreshed before the request goes.
    first_refresh = client._refresh_token
    client._access_expires_at = datetime.now(UTC) + timedelta(seconds=5)
    assert client.request("me")["address"] == address
    assert client._refresh_token not in (None, first_refresh)
    assert client._access_expires_at > datetime.now(UTC) + timedelta(minutes=5)

    # The server finds the token expired though this client's clock does not: refused with
    # token_expired, refreshed once, sent again.
    claims = jwt.decode(client.token, options={"verify_signature": False})
    past = int((datetime.now(UTC) - timedelta(seconds=5)).timestamp())
    # The server under test runs on the default settings: this installation's secret.
    client.token = jwt.encode({**claims, "exp": past}, AuthSettings().jwt_secret, "HS256")
    expired, second_refresh = client.token, client._refresh_token
    assert client.request("me")["address"] == address
    assert client.token != expired and client._refresh_token != second_refresh

    # Rotation: a refresh token used once is refused, and its session ends (docs/security.md).
    with DewClient(client.base_url) as other, pytest.raises(DewClientError) as refused:
        other.request("refresh", json_body={"refresh_token": first_refresh})
    assert refused.value.status == 401
