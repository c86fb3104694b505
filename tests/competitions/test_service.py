"""Tournaments on a real database and a real match server: entry rules and fees, rounds of
server matches, standings, cancellation refunds (no chain needed: fees stay in the vault)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from eth_account import Account
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from backend.competitions import exceptions as exc
from backend.competitions import jobs, service
from backend.competitions.models import Entrant, TournamentStatus, escrow_key
from backend.config import Settings
from backend.db.base import utcnow
from backend.economy import stakes
from backend.economy.models import PlannedSettlement
from backend.tables.models import Match
from tests.tables.harness import ServerProcess, wait_for

DEW = 10**18
SETTINGS = Settings()


def wallets(n: int) -> list[str]:
    return [Account.create().address for _ in range(n)]


def deposit(sessions: sessionmaker[Session], address: str, amount: int) -> None:
    with sessions() as session, session.begin():
        stakes.credit_deposit(
            session=session,
            address=address,
            amount=amount,
            tx_hash="0x" + address[2:].lower().rjust(64, "0"),
            log_index=0,
        )


def spec(name: str, **kw) -> service.TournamentSpec:
    base = dict(name=name, preset="draw", starts_at=utcnow() + timedelta(hours=1))
    return service.TournamentSpec(**{**base, **kw})


def run_to_end(sessions, tournament_id: int, timeout: float = 120.0) -> None:
    def done() -> bool:
        jobs.advance_tournaments(session_factory=sessions, settings=SETTINGS)
        with sessions() as session:
            t = service.get_tournament(session=session, tournament_id=tournament_id)
            return t.status in (TournamentStatus.FINISHED, TournamentStatus.CANCELLED)

    wait_for(done, timeout=timeout, interval=0.2, what=f"tournament {tournament_id} to end")


def test_bad_tournaments_are_refused_and_change_nothing(sessions):
    with sessions() as session:
        for bad, match in [
            (spec("x", tier="mundial"), "tier"),
            (spec("x", format="league"), "format"),
            (spec("x", preset="chess"), "preset"),
            (spec("x", prize_bps=[6000, 3000]), "sum to"),
            (spec("x", min_entrants=1), "min_entrants"),
            (spec("x", tier="campeonisimo"), "qualifier_of"),
            (spec("x", added_prize=5), "season"),
            (spec("x", entry_fee=-1), "entry_fee"),
        ]:
            with pytest.raises(exc.InvalidTournament, match=match):
                service.create_tournament(session=session, spec=bad)
        assert service.list_tournaments(session=session) == []


def test_entry_fees_are_escrowed_and_a_cancel_refunds_them_to_the_unit(sessions):
    fee = 3 * DEW + 7
    players = wallets(3)
    for i, address in enumerate(players):
        deposit(sessions, address, fee * (i + 1))
    poor = wallets(1)[0]
    deposit(sessions, poor, fee - 1)
    with sessions() as session:
        t = service.create_tournament(session=session, spec=spec("refunds", entry_fee=fee))
        for address in players:
            service.register(session=session, gate=None, tournament_id=t.id, address=address)
        with pytest.raises(exc.AlreadyRegistered):
            service.register(session=session, gate=None, tournament_id=t.id, address=players[0])
        with pytest.raises(exc.InsufficientFunds):
            service.register(session=session, gate=None, tournament_id=t.id, address=poor)
        # the refused entry changed nothing
        assert stakes.stake_balance(session=session, address=poor) == fee - 1
        assert len(service.entrants_of(session=session, tournament_id=t.id)) == 3
        assert [stakes.stake_balance(session=session, address=a) for a in players] == [
            0,
            fee,
            2 * fee,
        ]
        assert sum(stakes.escrowed(session=session, match_id=escrow_key(t.id)).values()) == 3 * fee
        cancelled = service.cancel(session=session, tournament_id=t.id, reason="sponsor left")
        assert cancelled.refunded == 3 * fee
        assert [stakes.stake_balance(session=session, address=a) for a in players] == [
            fee,
            2 * fee,
            3 * fee,
        ]
        assert stakes.escrowed(session=session, match_id=escrow_key(t.id)) == {}
        with pytest.raises(exc.NotCancellable):
            service.cancel(session=session, tournament_id=t.id, reason="again")
        # a second cancel refunded nothing twice
        assert stakes.stake_balance(session=session, address=players[2]) == 3 * fee
        with pytest.raises(exc.RegistrationClosed):
            service.register(session=session, gate=None, tournament_id=t.id, address=poor)


def test_too_few_entrants_cancels_at_the_start_and_refunds(sessions):
    fee = DEW
    (alone,) = wallets(1)
    deposit(sessions, alone, fee)
    with sessions() as session:
        # registration closes at starts_at: open a second one that starts a moment later
        t = service.create_tournament(
            session=session,
            spec=spec("lonely2", entry_fee=fee, starts_at=utcnow() + timedelta(seconds=1)),
        )
        service.register(session=session, gate=None, tournament_id=t.id, address=alone)
        assert stakes.stake_balance(session=session, address=alone) == 0
    run_to_end(sessions, t.id, timeout=10)
    with sessions() as session:
        t = service.get_tournament(session=session, tournament_id=t.id)
        assert t.status == TournamentStatus.CANCELLED
        assert "fewer than" in (t.cancel_reason or "")
        assert stakes.stake_balance(session=session, address=alone) == fee


@pytest.mark.parametrize("fmt,count", [("elimination", 6), ("swiss", 5)])
def test_a_bot_tournament_plays_server_matches_to_the_end(pg_url, sessions, fmt, count):
    with sessions() as session:
        t = service.create_tournament(
            session=session,
            spec=spec(f"bots-{fmt}", format=fmt, min_entrants=count, max_entrants=count),
        )
        service.add_bots(session=session, tournament_id=t.id, count=count, level="easy")
    with ServerProcess(pg_url, bot_move_delay_s=0.01, adopt_started_every_s=0.2):
        run_to_end(sessions, t.id)
    with sessions() as session:
        t = service.get_tournament(session=session, tournament_id=t.id)
        assert t.status == TournamentStatus.FINISHED
        assert t.current_round == t.rounds_total == 3
        games = service.games_of(session=session, tournament_id=t.id)
        played = [g for g in games if g.match_id]
        for g in played:
            match = session.get(Match, g.match_id)
            assert match is not None and match.status == "finished"
            assert match.record is not None and match.result_hash  # a normal, replayable record
        places = service.standings_view(session=session, tournament=t)
        assert sorted(p["place"] for p in places) == list(range(1, count + 1))
        if fmt == "elimination":
            assert places[0]["entrant"] == games[-1].winner
        # bots win nothing and the tournament had no pool: no settlement
        assert session.get(PlannedSettlement, escrow_key(t.id)) is None
        assert all(e.prize == "0" for e in session.scalars(select(Entrant)))
