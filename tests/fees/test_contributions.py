"""DEW Contribution on a real anvil (PostgreSQL books): a creator contributes DEW to a
tournament through the Contributions contract; the indexer books it once into that
tournament's prize pool, never as the contributor's stake deposit; a contribution to no open
tournament is booked as orphaned; the pooled DEW is paid out with the prizes."""

from __future__ import annotations

import json
import secrets
from datetime import timedelta

import pytest
from eth_account import Account
from sqlalchemy import select

from backend.care import limits
from backend.chain.unsigned import UnsignedTx
from backend.competitions import contributions
from backend.competitions import service as competitions
from backend.competitions.contributions import Contribution
from backend.db import create_db_engine, make_session_factory
from backend.db.base import utcnow
from backend.economy import stakes
from backend.economy.chain_reader import ChainReader
from backend.economy.models import LedgerLeg
from backend.economy.policy import DEW, PolicyError
from backend.economy.settlement import Prize, plan_prize_settlement
from tests.economy.chain_helpers import address, send
from tests.fixtures.dew_cli import invoke_dew, run_dew
from tests.fixtures.harness import ServerProcess, api, sign_in


@pytest.fixture(scope="module")
def books(deployment, pg_url):
    db = create_db_engine(pg_url)
    yield make_session_factory(db), ChainReader(deployment.contracts, confirmations=1)
    db.dispose()


def _tournament(sessions) -> int:
    with sessions() as session:
        t = competitions.create_tournament(
            session=session,
            spec=competitions.TournamentSpec(
                name=f"Cup {secrets.token_hex(4)}",
                preset="draw",
                starts_at=utcnow() + timedelta(hours=1),
            ),
        )
        return t.id


def _contribute(deployment, key: str, tournament_id: int, amount: int) -> None:
    c = deployment.contracts
    who = address(key)
    send(deployment.w3, deployment.deployer_key, c.token.functions.transfer(who, amount))
    send(deployment.w3, key, c.token.functions.approve(c.contributions.address, amount))
    send(deployment.w3, key, c.contributions.functions.contribute(tournament_id, amount))


def test_a_contribution_is_pooled_once_and_never_a_stake_deposit(deployment, books):
    sessions, reader = books
    creator_key = deployment.player_keys[5]
    creator = address(creator_key)
    open_id = _tournament(sessions)
    _contribute(deployment, creator_key, open_id, 7 * DEW)
    _contribute(deployment, creator_key, 2**40, 2 * DEW)  # no such tournament
    # A plain transfer to the vault by the same wallet stays a deposit.
    c = deployment.contracts
    send(deployment.w3, deployment.deployer_key, c.token.functions.transfer(creator, 3 * DEW))
    send(deployment.w3, creator_key, c.token.functions.transfer(c.settlement.address, 3 * DEW))

    report = contributions.index_contributions(session_factory=sessions, reader=reader)
    assert (report.pooled, report.orphaned) == (1, 1)
    again = contributions.index_contributions(session_factory=sessions, reader=reader)
    assert (again.pooled, again.orphaned) == (0, 0)
    stakes.index_deposits(session_factory=sessions, reader=reader)
    with sessions() as session:
        assert contributions.contributed(session=session, tournament_id=open_id) == 7 * DEW
        from backend.api.routers.competitions import _detail

        assert _detail(session, open_id)["contributed"] == 7 * DEW
        assert contributions.orphaned_total(session=session) == 2 * DEW
        # Only the plain transfer is the wallet's stake balance.
        assert stakes.stake_balance(session=session, address=creator) == 3 * DEW
        rows = session.scalars(select(Contribution).where(Contribution.contributor == creator))
        assert sorted((r.tournament_id, int(r.amount), r.status) for r in rows) == [
            (open_id, 7 * DEW, "pooled"),
            (2**40, 2 * DEW, "orphaned"),
        ]


def test_pooled_contributions_are_paid_with_the_prizes(deployment, books):
    sessions, _ = books
    winner = address(deployment.player_keys[6])
    key = f"prize-{secrets.token_hex(8)}"
    with sessions.begin() as session, pytest.raises(PolicyError, match="contributed"):
        # The prizes must pay the contributions out too, to the unit.
        plan_prize_settlement(
            session=session,
            key=key,
            chain_match_id="0x" + secrets.token_hex(32),
            result_hash="0x" + "ee" * 32,
            prizes=[Prize(place=1, address=winner, amount=5 * DEW)],
            entry_fees=0,
            added_prize=5 * DEW,
            fee=0,
            treasury=winner,
            season_id=None,
            finished_at=utcnow(),
            contributed=7 * DEW,
        )
    with sessions.begin() as session:
        planned = plan_prize_settlement(
            session=session,
            key=key,
            chain_match_id="0x" + secrets.token_hex(32),
            result_hash="0x" + "ee" * 32,
            prizes=[Prize(place=1, address=winner, amount=12 * DEW)],
            entry_fees=0,
            added_prize=5 * DEW,
            fee=0,
            treasury=winner,
            season_id=None,
            finished_at=utcnow(),
            contributed=7 * DEW,
        )
        assert int(planned.stake_pot) == 7 * DEW and int(planned.emission) == 5 * DEW
        legs = session.scalars(select(LedgerLeg).where(LedgerLeg.match_id == key)).all()
        assert [(x.address, int(x.amount)) for x in legs] == [(winner, 12 * DEW)]


@pytest.fixture(scope="module")
def server(deployment, pg_url):
    """``dew serve`` on the module's chain and database."""
    env = {
        "DEW_CHAIN_MANIFEST_PATH": str(deployment.manifest_path),
        "DEW_CHAIN_RPC_URL": deployment.anvil.rpc_url,
        "DEW_CHAIN_CHAIN_ID": str(deployment.manifest.chain_id),
    }
    with ServerProcess(pg_url, extra_env=env) as proc:
        yield proc


def _sign(w3, key: str, tx: dict) -> None:
    """What the contributor's wallet does with a transaction the API built."""
    send(w3, key, UnsignedTx.from_json(tx))


def test_a_wallet_contributes_through_the_api_and_the_pool_lists_it(deployment, books, server):
    sessions, reader = books
    key = deployment.player_keys[7]
    creator = address(key)
    tournament = _tournament(sessions)
    _account, token = sign_in(server.url, Account.from_key(key))
    client = api(server.url, token)
    path = f"/competitions/{tournament}/contributions"

    # Holding no DEW: refused before anything is built.
    refused = client.post(path, json={"amount": str(5 * DEW)})
    assert refused.status_code == 409 and "holds 0 DEW wei" in refused.json()["error"]["message"]

    c = deployment.contracts
    send(deployment.w3, deployment.deployer_key, c.token.functions.transfer(creator, 5 * DEW))
    built = client.post(path, json={"amount": str(5 * DEW)})
    assert built.status_code == 200, built.text
    approve, contribute = built.json()["transactions"]
    assert approve["to"] == c.token.address and contribute["to"] == c.contributions.address
    for tx in (approve, contribute):
        _sign(deployment.w3, key, tx)
    assert c.contributions.functions.contributedTo(tournament).call() == 5 * DEW

    contributions.index_contributions(session_factory=sessions, reader=reader)
    pool = api(server.url).get(path).json()  # public, like the tournament itself
    assert pool["total"] == str(5 * DEW)
    assert [(r["contributor"], r["amount"]) for r in pool["contributions"]] == [
        (creator, str(5 * DEW))
    ]
    assert api(server.url).get(f"/competitions/{tournament}").json()["contributed"] == 5 * DEW
    # A script's many small contributions: tests/hostile/test_contributions.py.


def test_contributions_the_prizes_could_not_pay_are_refused_and_build_nothing(
    deployment, books, server
):
    sessions, _ = books
    wallet = Account.create()  # holds DEW, and no ether: nothing here is ever sent
    c = deployment.contracts
    send(deployment.w3, deployment.deployer_key, c.token.functions.transfer(wallet.address, DEW))
    _account, token = sign_in(server.url, wallet)
    client = api(server.url, token)
    period_limit, max_per_match, _period, _matches = c.settlement.functions.limits().call()
    limit = min(period_limit, max_per_match)
    with sessions() as session:
        full = competitions.create_tournament(  # four places whose fees fill the vault's limit
            session=session,
            spec=competitions.TournamentSpec(
                name=f"Full {secrets.token_hex(4)}",
                preset="draw",
                entry_fee=limit // 4,
                max_entrants=4,
                starts_at=utcnow() + timedelta(hours=1),
            ),
            settlement_limit=limit,
        )
        full_id = full.id
    closed = _tournament(sessions)
    with sessions() as session:
        competitions.cancel(session=session, tournament_id=closed, reason="test")

    cases = [
        (f"/competitions/{full_id}/contributions", {"amount": str(DEW)}, 409, "the vault pays"),
        (f"/competitions/{closed}/contributions", {"amount": str(DEW)}, 409, "cancelled"),
        ("/competitions/2000000000/contributions", {"amount": str(DEW)}, 404, "no tournament"),
        (f"/competitions/{closed}/contributions", {"amount": "1"}, 422, "contribution is"),
        (f"/competitions/{closed}/contributions", {"amount": "-1"}, 422, ""),
        (f"/competitions/{closed}/contributions", {"amount": "1", "to": "x"}, 422, ""),
    ]
    for path, body, status, words in cases:
        answer = client.post(path, json=body)
        assert answer.status_code == status, (path, body, answer.text)
        assert words in answer.text
    anonymous = api(server.url).post(f"/competitions/{full_id}/contributions", json={"amount": "1"})
    assert anonymous.status_code == 401
    # A self-excluded wallet sends no DEW in: refused at the door, as a deposit is.
    open_id = _tournament(sessions)
    with sessions() as session:
        limits.take_break(
            session=session, address=wallet.address, kind="exclusion", duration=timedelta(days=183)
        )
    excluded = client.post(f"/competitions/{open_id}/contributions", json={"amount": str(DEW)})
    assert excluded.status_code == 403, excluded.text
    assert excluded.json()["error"]["code"] == "self_excluded"
    # Nothing was approved, contributed or booked.
    assert c.token.functions.allowance(wallet.address, c.contributions.address).call() == 0
    assert c.contributions.functions.contributedTo(full_id).call() == 0


def test_dew_contribute_checks_prints_or_signs_and_dew_contributions_lists_it(
    deployment, books, pg_url
):
    sessions, reader = books
    key = deployment.player_keys[6]
    who = address(key)
    c = deployment.contracts
    send(deployment.w3, deployment.deployer_key, c.token.functions.transfer(who, 3 * DEW))
    tournament, closed = _tournament(sessions), _tournament(sessions)
    with sessions() as session:
        competitions.cancel(session=session, tournament_id=closed, reason="test")
    env = {
        "DEW_DB_URL": pg_url,
        "DEW_CHAIN_MANIFEST_PATH": str(deployment.manifest_path),
        "DEW_CHAIN_RPC_URL": deployment.anvil.rpc_url,
        "DEW_CHAIN_CHAIN_ID": str(deployment.manifest.chain_id),
        "CONTRIBUTOR_KEY": key,
    }
    args = ["contribute", str(tournament), "2.5", "--from", who]

    printed = invoke_dew(env, *args)  # no key: the transactions, for the wallet to sign
    assert printed.returncode == 0, printed.stderr
    approve, contribute = json.loads(printed.stdout)
    assert (approve["to"], contribute["to"]) == (c.token.address, c.contributions.address)
    assert c.token.functions.allowance(who, c.contributions.address).call() == 0  # nothing sent

    refused = invoke_dew(env, "contribute", str(closed), "2.5", "--from", who)
    assert refused.returncode == 1 and "cancelled" in refused.stderr
    unset = invoke_dew(env, *args, "--key-env", "NO_SUCH_KEY")
    assert unset.returncode == 2 and "NO_SUCH_KEY is not set" in unset.stderr

    signed = run_dew(env, *args, "--key-env", "CONTRIBUTOR_KEY")  # the installed script
    assert signed.returncode == 0, signed.stderr
    assert len(signed.stdout.splitlines()) == 2 and key not in signed.stdout + signed.stderr
    assert c.contributions.functions.contributedTo(tournament).call() == 25 * DEW // 10

    contributions.index_contributions(session_factory=sessions, reader=reader)
    listed = invoke_dew(env, "contributions", str(tournament))
    assert listed.returncode == 0, listed.stderr
    assert f"{who}  2.5 DEW" in listed.stdout and "2.5 DEW contributed in all" in listed.stdout
