"""Gating against the real contracts on anvil: owner, renter, expired renter, VIP, nobody;
premium rules need a VIP pass to create; the cache follows Transfer/UpdateUser events and
never outlives a rental."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from eth_account import Account
from fastapi.testclient import TestClient
from web3 import Web3

from backend.api.app import create_app
from backend.config import AuthSettings, ChainSettings, DatabaseSettings, ServerSettings, Settings
from backend.tables import exceptions as exc
from backend.tables.chain_gate import ChainGate
from tests.accounts.signing import sign_in

pytestmark = pytest.mark.timeout(180)


def _send(w3: Web3, key: str, call) -> dict:  # type: ignore[no-untyped-def]
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


def _now(w3: Web3) -> int:
    return int(w3.eth.get_block("latest")["timestamp"])


def _advance(w3: Web3, seconds: int) -> None:
    w3.provider.make_request("evm_increaseTime", [seconds])
    w3.provider.make_request("evm_mine", [])


class World:
    def __init__(self, deployment) -> None:  # type: ignore[no-untyped-def]
        self.d = deployment
        self.w3: Web3 = deployment.w3
        keys = list(deployment.player_keys)
        self.owner_key, self.renter_key, self.vip_key, self.nobody_key, self.buyer_key = keys[:5]
        self.owner = Account.from_key(self.owner_key)
        self.renter = Account.from_key(self.renter_key)
        self.vip = Account.from_key(self.vip_key)
        self.nobody = Account.from_key(self.nobody_key)
        self.buyer = Account.from_key(self.buyer_key)
        avatar = deployment.contracts.avatar.functions
        receipt = _send(
            self.w3,
            deployment.operator_key,
            avatar.mintBatch([self.owner.address, self.owner.address, self.owner.address]),
        )
        logs = deployment.contracts.avatar.events.Transfer().process_receipt(receipt)
        self.avatars = [int(entry["args"]["tokenId"]) for entry in logs]
        self.rented, self.expiring, self.free = self.avatars
        _send(
            self.w3,
            deployment.operator_key,
            deployment.contracts.vip.functions.issue(self.vip.address, _now(self.w3) + 10**6),
        )
        # The owner lends one avatar for a long time and one for a minute (ERC-4907 setUser).
        _send(
            self.w3,
            self.owner_key,
            avatar.setUser(self.rented, self.renter.address, _now(self.w3) + 10**6),
        )
        _send(
            self.w3,
            self.owner_key,
            avatar.setUser(self.expiring, self.nobody.address, _now(self.w3) + 60),
        )


@pytest.fixture(scope="module")
def world(deployment) -> World:  # type: ignore[no-untyped-def]
    return World(deployment)


@pytest.fixture(scope="module")
def gate(world: World) -> ChainGate:
    return ChainGate(world.d.contracts, confirmations=2, cache_ttl_s=3600)


def test_owner_renter_vip_and_nobody(world: World, gate: ChainGate) -> None:
    owner, renter = world.owner.address, world.renter.address
    assert gate.admit(owner, world.free).admitted_as == "avatar_owner"
    assert gate.admit(renter, world.rented).admitted_as == "avatar_user"
    # An owner cannot play an avatar that is rented out.
    with pytest.raises(exc.NotEligible, match="rented out"):
        gate.admit(owner, world.rented)
    assert gate.admit(world.vip.address, None).admitted_as == "vip"
    assert gate.admit(world.vip.address, world.free).admitted_as == "vip"
    with pytest.raises(exc.NotEligible):
        gate.admit(world.buyer.address, None)
    with pytest.raises(exc.NotEligible):
        gate.admit(world.buyer.address, world.free)
    with pytest.raises(exc.NotEligible, match="does not exist"):
        gate.admit(world.buyer.address, 10**9)
    assert gate.is_vip(world.vip.address) and not gate.is_vip(owner)


def test_expired_renter_is_refused_even_from_the_cache(world: World, gate: ChainGate) -> None:
    renter = world.nobody.address  # the short rental's renter
    assert gate.admit(renter, world.expiring).admitted_as == "avatar_user"
    assert gate.still_admitted(renter, world.expiring)
    _advance(world.w3, 120)
    gate._chain_clock = (0.0, 0.0)  # re-read chain time now rather than within a second
    # The cache entry ended with the rental: no event was needed.
    assert not gate.still_admitted(renter, world.expiring)
    with pytest.raises(exc.NotEligible):
        gate.admit(renter, world.expiring)
    # Expired rental: the owner plays it again.
    assert gate.admit(world.owner.address, world.expiring).admitted_as == "avatar_owner"


def test_transfer_event_clears_the_cache(world: World, gate: ChainGate) -> None:
    owner, buyer = world.owner.address, world.buyer.address
    gate.poll_events()
    assert gate.still_admitted(owner, world.free)  # cached as owner
    _send(
        world.w3,
        world.owner_key,
        world.d.contracts.avatar.functions.transferFrom(owner, buyer, world.free),
    )
    # Until the poller sees the event the cache (1 hour TTL) still says "owner".
    assert gate.still_admitted(owner, world.free)
    assert gate.poll_events() >= 1
    assert not gate.still_admitted(owner, world.free)
    assert gate.still_admitted(buyer, world.free)


@pytest.fixture(scope="module")
def client(world: World, gate: ChainGate, pg_url: str) -> Iterator[TestClient]:
    settings = Settings(
        db=DatabaseSettings(url=pg_url),
        auth=AuthSettings(),
        chain=ChainSettings(),
        server=ServerSettings(bot_move_delay_s=0.0),
    )
    with TestClient(create_app(settings, gate=gate)) as test_client:
        yield test_client


def _token(client: TestClient, account) -> dict:  # type: ignore[no-untyped-def]
    return {"Authorization": f"Bearer {sign_in(client, account)['access_token']}"}


def test_earning_table_admits_renter_and_vip_and_refuses_others(
    world: World, client: TestClient
) -> None:
    vip, renter = _token(client, world.vip), _token(client, world.renter)
    owner, buyer = _token(client, world.owner), _token(client, world.buyer)
    created = client.post("/tables", json={"preset": "dew200", "earning": True}, headers=vip)
    assert created.status_code == 201, created.text
    table_id = created.json()["id"]
    joined = client.post(
        f"/tables/{table_id}/join", json={"avatar_id": world.rented}, headers=renter
    )
    assert joined.status_code == 200, joined.text
    refused = client.post(
        f"/tables/{table_id}/join", json={"avatar_id": world.rented}, headers=owner
    )
    assert refused.status_code == 403
    assert refused.json()["error"]["code"] == "not_eligible"
    nobody = client.post(f"/tables/{table_id}/join", headers=buyer)
    # The buyer now owns world.free (previous test) but asked for no avatar and has no pass.
    assert nobody.status_code == 403
    seats = client.get(f"/tables/{table_id}", headers=vip).json()["seats"]
    assert [s["avatar_id"] for s in seats] == [None, world.rented]
    # One earning table at a time: the renter (with that avatar) may not sit at another.
    other = client.post(
        "/tables",
        json={"preset": "dew200", "earning": True, "avatar_id": world.rented},
        headers=renter,
    )
    assert other.status_code == 409 and other.json()["error"]["code"] == "already_playing"
    # Both stand up: the wallets and the avatar are free for the next test's earning table.
    for token in (renter, vip):
        assert client.post(f"/tables/{table_id}/leave", headers=token).status_code == 204
    # Free tables are open to any signed-in wallet.
    free = client.post("/tables", json={"preset": "dew200"}, headers=owner).json()
    assert client.post(f"/tables/{free['id']}/join", headers=buyer).status_code == 200


def test_premium_rules_need_a_vip_pass_to_create_but_anyone_may_join(
    world: World, client: TestClient
) -> None:
    from backend.game import PRESETS

    premium = None
    for name, cls in PRESETS.items():
        for spec in cls.option_specs:
            if spec.premium:
                premium = (name, spec.name, next(iter(spec.premium)))
                break
        if premium:
            break
    assert premium, "the engine offers no premium option"
    preset, option, value = premium
    body = {"preset": preset, "options": {option: value}, "visibility": "private"}
    if preset in ("partnership", "doscientos"):
        body["seats"] = 4
    refused = client.post("/tables", json=body, headers=_token(client, world.owner))
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "vip_required"
    created = client.post("/tables", json=body, headers=_token(client, world.vip))
    assert created.status_code == 201, created.text
    table = created.json()
    joined = client.post(
        f"/tables/{table['id']}/join",
        json={"invite_code": table["invite_code"]},
        headers=_token(client, world.owner),
    )
    assert joined.status_code == 200, joined.text


def test_staked_table_escrows_at_start_refuses_without_deposits_and_releases_if_abandoned(
    world: World, client: TestClient, pg_url: str
) -> None:
    """A seat at an open staked table holds its stake; a wallet short of its deposit is
    refused the seat (nothing written); the match's start turns the holds into escrow in its
    transaction; an abandoned match gives the stakes back."""
    import secrets

    from sqlalchemy import func, select

    from backend.db import create_db_engine, make_session_factory
    from backend.economy import stakes
    from backend.economy.models import StakeEntry
    from backend.tables import service
    from backend.tables.models import Match, Table, TableSeat

    stake = 7 * 10**18
    vip, renter = world.vip.address, world.renter.address
    engine = create_db_engine(pg_url)
    sessions = make_session_factory(engine)

    def deposit(address: str, amount: int, log_index: int) -> None:
        with sessions() as session, session.begin():
            stakes.credit_deposit(
                session=session,
                address=address,
                amount=amount,
                tx_hash="0x" + secrets.token_hex(32),
                log_index=log_index,
            )

    def create() -> Any:
        return client.post(
            "/tables",
            json={"preset": "dew200", "seats": 2, "earning": True, "stake": stake},
            headers=_token(client, world.vip),
        )

    tables_before = _tables(sessions)
    # The creator's seat holds its stake: without it deposited, no table is opened.
    short = create()
    assert short.status_code == 409 and short.json()["error"]["code"] == "insufficient_stake"
    assert _tables(sessions) == tables_before
    deposit(vip, stake, 0)
    created = create()
    assert created.status_code == 201, created.text
    table_id = created.json()["id"]

    def state() -> tuple:  # type: ignore[type-arg]
        with sessions() as session:
            table = session.get(Table, table_id)
            assert table is not None
            return (
                table.status,
                table.match_id,
                session.scalar(
                    select(func.count())
                    .select_from(TableSeat)
                    .where(TableSeat.table_id == table_id)
                ),
                session.scalar(
                    select(func.count()).select_from(Match).where(Match.table_id == table_id)
                ),
                stakes.stake_balance(session=session, address=vip),
                stakes.stake_balance(session=session, address=renter),
            )

    def join() -> dict:  # type: ignore[type-arg]
        return client.post(
            f"/tables/{table_id}/join",
            json={"avatar_id": world.rented},
            headers=_token(client, world.renter),
        )

    try:
        # The joiner has not deposited: its seat is refused, nothing kept (the creator's
        # stake is held, out of its balance).
        before = state()
        assert before == ("open", None, 1, 0, 0, 0)
        refused = join()
        assert refused.status_code == 409, refused.text
        assert refused.json()["error"]["code"] == "insufficient_stake"
        assert "deposit" in refused.json()["error"]["message"]
        assert state() == before
        # One wei short: still refused.
        deposit(renter, stake - 1, 1)
        refused = join()
        assert (
            refused.status_code == 409 and refused.json()["error"]["code"] == "insufficient_stake"
        )
        assert state() == ("open", None, 1, 0, 0, stake - 1)
        # Both covered: the join starts the match and escrows both stakes in its transaction.
        deposit(renter, 1, 2)
        joined = join()
        assert joined.status_code == 200, joined.text
        status, match_id, seated, matches, vip_left, renter_left = state()
        assert (status, seated, matches, vip_left, renter_left) == ("playing", 2, 1, 0, 0)
        with sessions() as session:
            assert stakes.escrowed(session=session, match_id=match_id) == {0: stake, 1: stake}
        # Abandoned before its end: both stakes go back, once.
        with sessions() as session:
            assert service.abandon_match(session=session, match_id=match_id, reason="test") == (
                2 * stake
            )
        with sessions() as session:
            assert stakes.escrowed(session=session, match_id=match_id) == {}
            assert session.get(Match, match_id).status == "abandoned"  # type: ignore[union-attr]
            kinds = session.scalars(
                select(StakeEntry.kind).where(StakeEntry.match_id == match_id)
            ).all()
            assert sorted(kinds) == ["escrow", "escrow", "release", "release"]
            with pytest.raises(exc.MatchNotLive):
                service.abandon_match(session=session, match_id=match_id, reason="again")
        assert state()[0] == "abandoned" and state()[4:] == (stake, stake)
    finally:
        engine.dispose()


def _tables(sessions: Any) -> int:
    from sqlalchemy import func, select

    from backend.tables.models import Table

    with sessions() as session:
        return int(session.scalar(select(func.count()).select_from(Table)) or 0)
