"""DEW Contribution on a real anvil (PostgreSQL books): a creator contributes DEW to a
tournament through the Contributions contract; the indexer books it once into that
tournament's prize pool, never as the contributor's stake deposit; a contribution to no open
tournament is booked as orphaned; the pooled DEW is paid out with the prizes."""

from __future__ import annotations

import secrets
from datetime import timedelta

import pytest
from sqlalchemy import select

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
