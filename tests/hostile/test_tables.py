"""Hostile clients against tables, stakes, matchmaking and the economy's bounds (issue 17,
findings 3, 4, 13, 14, 15 and 16), each on a real server process on SQLite and PostgreSQL.

Earning tables need a chain: the module's anvil has the contracts deployed
(``tests.fixtures.anvil``); wallets get a VIP pass or an avatar from the operator there.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest
from eth_account import Account
from sqlalchemy import func, select
from web3 import Web3

from backend.db import create_db_engine, make_session_factory
from backend.economy import stakes
from backend.tables.models import MatchmakingTicket, Table, TableSeat
from tests.fixtures.dew_cli import only_database, run_dew
from tests.fixtures.harness import api, sign_in, wait_for

pytestmark = pytest.mark.timeout(240)

DEW_WEI = 10**18
# The operator's command line, as installed next to this interpreter.
# Bots that think for a long time keep a practice or AI match live for the whole test.
SLOW_BOTS = {"bot_move_delay_s": 30.0, "turn_timeout_s": 60}


def _send(w3: Web3, key: str, call: Any) -> Any:
    account = Account.from_key(key)
    tx = call.build_transaction(
        {
            "from": account.address,
            "nonce": w3.eth.get_transaction_count(account.address, "pending"),
            "chainId": w3.eth.chain_id,
        }
    )
    tx_hash = w3.eth.send_raw_transaction(account.sign_transaction(tx).raw_transaction)
    receipt = w3.eth.wait_for_transaction_receipt(tx_hash, timeout=30)
    assert receipt["status"] == 1
    return receipt


class Chain:
    """The module's deployment, handing out wallets that may sit at earning tables."""

    def __init__(self, deployment: Any) -> None:
        self.d = deployment
        self.w3: Web3 = deployment.w3
        self.env = {
            "DEW_CHAIN_RPC_URL": deployment.anvil.rpc_url,
            "DEW_CHAIN_MANIFEST_PATH": str(deployment.manifest_path),
            "DEW_CHAIN_CHAIN_ID": str(self.w3.eth.chain_id),
        }

    def _confirm(self) -> None:
        for _ in range(3):  # past the gate's confirmation depth
            self.w3.provider.make_request("evm_mine", [])

    def vip(self) -> Any:
        account = Account.create()
        now = int(self.w3.eth.get_block("latest")["timestamp"])
        vip = self.d.contracts.vip.functions
        _send(self.w3, self.d.operator_key, vip.issue(account.address, now + 10**7))
        self._confirm()
        return account

    def avatar_owner(self) -> tuple[Any, int]:
        account = Account.create()
        avatar = self.d.contracts.avatar
        receipt = _send(self.w3, self.d.operator_key, avatar.functions.mintBatch([account.address]))
        token_id = int(avatar.events.Transfer().process_receipt(receipt)[0]["args"]["tokenId"])
        self._confirm()
        return account, token_id


def _error(response: httpx.Response) -> tuple[int, str | None]:
    body = response.json() if response.content else {}
    return response.status_code, (body.get("error") or {}).get("code")


def _deposit(db_url: str, address: str, amount: int) -> None:
    """A stake deposit credited as the indexer would (the seat at a staked table holds it)."""
    engine = create_db_engine(db_url)
    try:
        with make_session_factory(engine).begin() as session:
            stakes.credit_deposit(
                session=session,
                address=address,
                amount=amount,
                tx_hash="0x" + os.urandom(32).hex(),
                log_index=0,
            )
    finally:
        engine.dispose()


def _count(db_url: str, model: Any, *where: Any) -> int:
    engine = create_db_engine(db_url)
    try:
        with make_session_factory(engine)() as session:
            return int(session.scalar(select(func.count()).select_from(model).where(*where)))
    finally:
        engine.dispose()


# -- finding 3: a 1-second turn timer takes a human's stake -------------------------------


def test_a_staked_table_refuses_a_turn_timer_below_the_floor(start_server, chain, db_url):
    """A creator cannot make the joiner's seat time out before a human can answer: an
    earning or staked table's timer is at least DEW_TABLES_MIN_EARNING_TURN_TIMEOUT_S (15 s),
    and the lobby shows the stake, the earning flag and the timer before anyone joins."""
    server = start_server(**SLOW_BOTS, extra_env=chain.env)
    creator = chain.vip()
    _, token = sign_in(server.url, creator)
    body = {"preset": "draw", "seats": 2, "earning": True, "stake": 10 * DEW_WEI}
    with api(server.url, token) as client:
        for timer in (1, 5, 14.9):
            refused = client.post("/tables", json={**body, "turn_timeout_s": timer})
            assert _error(refused) == (422, "invalid_request"), refused.text
            assert "at least 15" in refused.json()["error"]["message"]
        assert _count(db_url, Table, Table.creator == creator.address) == 0
        # A free table may still be fast (nobody's money is at stake).
        fast = client.post("/tables", json={"preset": "draw", "seats": 2, "turn_timeout_s": 1})
        assert fast.status_code == 201, fast.text
        _deposit(db_url, creator.address, 10 * DEW_WEI)  # the creator's seat holds its stake
        created = client.post("/tables", json={**body, "turn_timeout_s": 15})
        assert created.status_code == 201, created.text
        lobby = {t["id"]: t for t in client.get("/tables", params={"status": "open"}).json()}
    listed = lobby[created.json()["id"]]
    assert (listed["stake"], listed["earning"], listed["turn_timeout_s"]) == (
        str(10 * DEW_WEI),
        True,
        15,
    )


# -- finding 4: one wallet, several matchmaking tickets, every seat of one table ----------


def test_parallel_matchmaking_gives_one_ticket_and_one_seat_per_wallet(start_server, db_url):
    # The matchmaker seats nobody with bots while the burst runs (a minute's wait: on a loaded
    # machine the 20 requests took longer than a one-second wait, the first ticket was seated,
    # and a later request rightly queued the wallet again); a second wallet fills the table.
    server = start_server(matchmaking_wait_s=60.0, **SLOW_BOTS)
    account, token = sign_in(server.url)
    partner, partner_token = sign_in(server.url)

    def enqueue(_: int) -> httpx.Response:
        with api(server.url, token) as client:
            return client.post("/matchmaking", json={"preset": "draw"})

    with ThreadPoolExecutor(20) as pool:
        answers = list(pool.map(enqueue, range(20)))
    created = [a for a in answers if a.status_code == 201]
    assert len(created) == 1, [a.text for a in answers]
    losers = {_error(a) for a in answers if a.status_code != 201}
    # The losers get a clear 409 (or, once HTTP rate limits apply, a 429): never a 500.
    assert losers <= {(409, "already_queued"), (429, None), (429, "rate_limited")}, losers
    assert _count(db_url, MatchmakingTicket, MatchmakingTicket.address == account.address) == 1
    ticket_id = created[0].json()["id"]
    with api(server.url, partner_token) as client:
        assert client.post("/matchmaking", json={"preset": "draw"}).status_code == 201
    with api(server.url, token) as client:
        ticket = wait_for(
            lambda: client.get(f"/matchmaking/{ticket_id}").json().get("table_id"),
            timeout=30,
            what="the matchmaker to seat the ticket",
        )
        table = client.get(f"/tables/{ticket}").json()
    seated = [s["address"] for s in table["seats"] if s["address"] is not None]
    assert sorted(seated) == sorted([account.address, partner.address]), table["seats"]


# -- finding 13: the creator keeps control after leaving ----------------------------------


def test_a_creator_who_left_can_no_longer_invite_or_start(start_server):
    server = start_server(**SLOW_BOTS)
    creator, creator_token = sign_in(server.url)
    guest, guest_token = sign_in(server.url)
    with api(server.url, creator_token) as host:
        table = host.post("/tables", json={"preset": "dew200", "seats": 4}).json()
        table_id = table["id"]
        with api(server.url, guest_token) as client:
            assert client.post(f"/tables/{table_id}/join").status_code == 200
        assert host.post(f"/tables/{table_id}/leave").status_code == 204
        # The creator's rights ended with their seat: no invitations, no forced start.
        invited = host.post(
            f"/tables/{table_id}/invite", json={"addresses": [Account.create().address]}
        )
        assert _error(invited) == (403, "forbidden"), invited.text
        started = host.post(f"/tables/{table_id}/start")
        assert _error(started) == (403, "forbidden"), started.text
        assert host.get(f"/tables/{table_id}").json()["invite_code"] is None
    with api(server.url, guest_token) as client:
        now = client.get(f"/tables/{table_id}").json()
        # The table passed to the player still seated; it is still open, on its rules.
        assert (now["status"], now["creator"]) == ("open", guest.address)
        assert now["invite_code"] is not None
        assert client.post(f"/tables/{table_id}/start").json()["status"] == "playing"
    assert creator.address not in {s["address"] for s in now["seats"]}


# -- finding 14: emission farmed against bots --------------------------------------------


def test_one_avatar_sits_in_one_earning_match_at_a_time(start_server, chain, db_url):
    server = start_server(**SLOW_BOTS, extra_env=chain.env)
    owner, avatar_id = chain.avatar_owner()
    vip = chain.vip()
    _, owner_token = sign_in(server.url, owner)
    _, vip_token = sign_in(server.url, vip)
    practice = {"preset": "draw", "seats": 2, "earning": True, "kind": "practice"}

    def create(_: int) -> httpx.Response:
        with api(server.url, owner_token) as client:
            return client.post("/tables", json={**practice, "avatar_id": avatar_id})

    # Eight practice earning tables at once with one avatar: one is created, whatever the race.
    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(create, range(8)))
    created = [a for a in answers if a.status_code == 201]
    assert len(created) == 1, [a.text for a in answers]
    assert {_error(a) for a in answers if a.status_code != 201} == {(409, "already_playing")}
    first = created[0]
    assert first.json()["status"] == "playing"
    with api(server.url, owner_token) as client:
        for kind in ("practice", "human"):
            again = client.post("/tables", json={**practice, "kind": kind, "avatar_id": avatar_id})
            assert _error(again) == (409, "already_playing"), again.text
        queued = client.post("/matchmaking", json={"preset": "draw", "earning": True})
        assert _error(queued)[0] in (403, 409), queued.text  # no avatar given, or seated
    # Nor at a table another wallet opened.
    with api(server.url, vip_token) as client:
        open_table = client.post("/tables", json={"preset": "draw", "seats": 2, "earning": True})
        assert open_table.status_code == 201, open_table.text
        second = client.post("/tables", json={"preset": "draw", "seats": 2, "earning": True})
        assert _error(second) == (409, "already_playing"), second.text
    with api(server.url, owner_token) as client:
        join = client.post(f"/tables/{open_table.json()['id']}/join", json={"avatar_id": avatar_id})
        assert _error(join) == (409, "already_playing"), join.text
    assert _count(db_url, TableSeat, TableSeat.address == owner.address) == 1
    # A free table is not bounded by it.
    with api(server.url, owner_token) as client:
        free = client.post("/tables", json={"preset": "draw", "seats": 2, "kind": "practice"})
        assert free.status_code == 201, free.text


def test_one_wallet_cannot_create_hundreds_of_live_tables(start_server, db_url):
    """DEW_TABLES_MAX_LIVE_TABLES_PER_WALLET (5): open or playing tables one wallet created,
    AI-vs-AI ones included; a finished or left table frees its place. The per-wallet rate
    limit on creations (12/minute, test_http.py) is raised here: this is the other bound."""
    server = start_server(**SLOW_BOTS, extra_env={"DEW_HTTP_CREATE_PER_WALLET": "100/minute"})
    account, token = sign_in(server.url)

    def create(_: int) -> httpx.Response:
        with api(server.url, token) as client:
            return client.post("/tables", json={"preset": "draw", "seats": 2, "kind": "ai"})

    with ThreadPoolExecutor(12) as pool:  # at once: the cap holds under the race too
        answers = list(pool.map(create, range(12)))
    assert sorted(a.status_code for a in answers) == [201] * 5 + [409] * 7
    assert {_error(a) for a in answers if a.status_code != 201} == {(409, "too_many_tables")}
    with api(server.url, token) as client:
        human = client.post("/tables", json={"preset": "draw", "seats": 2})
        assert _error(human) == (409, "too_many_tables")
        assert _count(db_url, Table, Table.creator == account.address) == 5


# -- finding 15: an abandoned match never reveals its seed; invite links ------------------


def test_an_abandoned_match_reveals_its_seed(start_server, db_url):
    server = start_server(**SLOW_BOTS)
    _, token = sign_in(server.url)
    with api(server.url, token) as client:
        table = client.post("/tables", json={"preset": "draw", "seats": 2, "kind": "practice"})
        match_id = table.json()["match_id"]
        live = client.get(f"/matches/{match_id}").json()
        assert live["status"] == "live" and live["server_seed"] is None
    done = run_dew(only_database(db_url), "abandon-match", match_id, "--reason", "test", timeout=60)
    assert done.returncode == 0, done.stderr
    with api(server.url, token) as client:
        ended = client.get(f"/matches/{match_id}").json()
    assert ended["status"] == "abandoned"
    seed = ended["server_seed"]
    assert seed is not None, "an abandoned match must reveal its seed"
    assert hashlib.sha256(seed.encode()).hexdigest() == ended["seed_commitment"]


def test_invite_links_come_from_the_public_url_not_the_host_header(start_server):
    public = "https://play.dew.example"
    server = start_server(extra_env={"DEW_TABLES_PUBLIC_URL": public + "/"})
    _, token = sign_in(server.url)
    with api(server.url, token) as client:
        created = client.post(
            "/tables",
            json={"preset": "draw", "seats": 2, "visibility": "private"},
            headers={"Host": "evil.example"},
        ).json()
        fetched = client.get(f"/tables/{created['id']}", headers={"Host": "evil.example"}).json()
    expected = f"{public}/#/table/{created['id']}?invite={created['invite_code']}"
    assert created["invite_link"] == expected
    assert fetched["invite_link"] == expected
    # Unconfigured: the origin wallets sign in at (DEW_AUTH_URI), still not the Host header.
    default = start_server(extra_env={"DEW_AUTH_URI": "http://127.0.0.1:8123"})
    _, token = sign_in(default.url)
    with api(default.url, token) as client:
        created = client.post(
            "/tables", json={"preset": "draw", "seats": 2}, headers={"Host": "evil.example"}
        ).json()
    assert created["invite_link"] == (
        f"http://127.0.0.1:8123/#/table/{created['id']}?invite={created['invite_code']}"
    )


# -- finding 16: a tournament whose pool exceeds the vault's per-match limit --------------


def test_a_tournament_over_the_vaults_per_match_limit_is_refused(chain, db_url):
    """The deployed default: 10,000 DEW per match. 1,024 entries of 10 DEW could never be
    paid in one settlement, so the operator's command refuses it at creation."""
    settlement = chain.d.contracts.settlement.functions
    period_limit, max_per_match, period, max_matches = settlement.limits().call()
    _send(
        chain.w3,
        chain.d.deployer_key,
        settlement.setLimits(1_000_000 * DEW_WEI, 10_000 * DEW_WEI, 86400, max_matches),
    )
    env = {**only_database(db_url), **chain.env}

    def create(name: str, entrants: int) -> subprocess.CompletedProcess[str]:
        return run_dew(
            env,
            *("create-tournament", name, "--entry-fee", str(10 * DEW_WEI)),
            *("--min-entrants", "2", "--max-entrants", str(entrants)),
            timeout=60,
        )

    from backend.competitions.models import Tournament

    name = f"too big {db_url[:6]}"
    try:
        refused = create(name, 1024)
        assert refused.returncode == 1, refused.stdout + refused.stderr
        assert "exceeds what the vault pays per match" in refused.stderr
        assert _count(db_url, Tournament, Tournament.name == name) == 0
        fits = create(f"fits {db_url[:6]}", 1000)  # 10,000 DEW: exactly the limit
        assert fits.returncode == 0, fits.stderr
    finally:
        _send(
            chain.w3,
            chain.d.deployer_key,
            settlement.setLimits(period_limit, max_per_match, period, max_matches),
        )
