"""Tournaments on a real database and a real match server: entry rules and fees, rounds of
server matches, standings, cancellation refunds (no chain needed: fees stay in the vault)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from eth_account import Account
from sqlalchemy.orm import Session, sessionmaker

from backend.competitions import exceptions as exc
from backend.competitions import jobs, rounds, service, views
from backend.competitions.models import TournamentStatus, escrow_key
from backend.config import Settings, TablesSettings
from backend.db.base import utcnow
from backend.economy import settlement as economy
from backend.economy import stakes
from backend.economy.models import PlannedSettlement
from backend.economy.policy import MAX_PAYOUT_AMOUNT, PolicyError
from backend.economy.seasons import create_season
from backend.tables import service as tables
from backend.tables.models import Match
from tests.fixtures.harness import ServerProcess, wait_for

DEW = 10**18
SETTINGS = Settings()
# The absent wallets time out fast: a 1-second floor (a deployment's is 15 s).
FAST_TIMERS = Settings(tables=TablesSettings(min_earning_turn_timeout_s=1.0))


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
            (spec("x", entry_fee=MAX_PAYOUT_AMOUNT // 64 + 1), "prize pool"),
            (spec("x", entry_fee=MAX_PAYOUT_AMOUNT // 8, max_entrants=8, added_prize=8), "pool"),
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


def test_tournaments_play_server_matches_and_qualify_for_the_next_tier(pg_url, sessions):
    """An elimination Campeonato (2 absent wallets, 4 bots) and a Swiss one (5 bots) on one
    server; then the Campeonisimo admits only the Campeonato's qualifier."""
    absent = wallets(2)
    with sessions() as session:
        season = create_season(
            session=session,
            name="tiers",
            starts_at=utcnow() - timedelta(hours=1),
            ends_at=utcnow() + timedelta(days=1),
            emission_budget=0,
        )
        session.commit()
        elimination = service.create_tournament(
            session=session,
            spec=spec(
                "bots-elimination",
                format="elimination",
                min_entrants=6,
                max_entrants=6,
                qualify_top=1,
                turn_timeout_s=1.0,
                season_id=season.id,
            ),
            settings=FAST_TIMERS,
        )
        for address in absent:
            service.register(
                session=session, gate=None, tournament_id=elimination.id, address=address
            )
        service.add_bots(session=session, tournament_id=elimination.id, count=4, level="easy")
        swiss = service.create_tournament(
            session=session,
            spec=spec("bots-swiss", format="swiss", min_entrants=5, max_entrants=5),
        )
        service.add_bots(session=session, tournament_id=swiss.id, count=5, level="easy")
        ids = {"elimination": elimination.id, "swiss": swiss.id}
    with ServerProcess(pg_url, bot_move_delay_s=0.01, adopt_started_every_s=0.2):
        for tid in ids.values():
            run_to_end(sessions, tid)
    with sessions() as session:
        for fmt, tid in ids.items():
            t = service.get_tournament(session=session, tournament_id=tid)
            count = 6 if fmt == "elimination" else 5
            assert t.status == TournamentStatus.FINISHED
            assert t.current_round == t.rounds_total == 3
            games = service.games_of(session=session, tournament_id=tid)
            for g in games:
                if g.match_id is None:
                    assert g.outcome == "bye" and g.winner == g.a
                    continue
                match = session.get(Match, g.match_id)
                assert match is not None and match.status == "finished"
                assert match.record is not None and match.result_hash  # a normal record
            places = views.standings_view(session=session, tournament=t)
            assert sorted(p["place"] for p in places) == list(range(1, count + 1))
            if fmt == "elimination":
                assert places[0]["entrant"] == games[-1].winner
            # no pool (no fee, no added prize): no settlement, nobody paid
            assert session.get(PlannedSettlement, escrow_key(tid)) is None
        entrants = service.entrants_of(session=session, tournament_id=ids["elimination"])
        # the absent wallets forfeited or were played by the turn timer; one of them, the
        # best placed, qualifies (bots never do)
        qualified = [e.address for e in entrants if e.qualified]
        assert len(qualified) == 1 and qualified[0] in absent
        assert all(e.prize == "0" for e in entrants)
        with pytest.raises(exc.InvalidTournament, match="qualifier_of"):
            service.create_tournament(
                session=session,
                spec=spec("wrong feeder", tier="supercampeones", qualifier_of=ids["elimination"]),
            )
        campeonisimo = service.create_tournament(
            session=session,
            spec=spec("Campeonisimo", tier="campeonisimo", qualifier_of=ids["elimination"]),
        )
        service.register(
            session=session, gate=None, tournament_id=campeonisimo.id, address=qualified[0]
        )
        other = next(a for a in absent if a != qualified[0])
        with pytest.raises(exc.NotEligible, match="did not qualify"):
            service.register(
                session=session, gate=None, tournament_id=campeonisimo.id, address=other
            )
        ranked = service.create_tournament(
            session=session, spec=spec("top ten", season_id=season.id, max_rank=10)
        )
        with pytest.raises(exc.NotEligible, match="top 10"):
            service.register(session=session, gate=None, tournament_id=ranked.id, address=other)


def test_cancelling_a_running_tournament_abandons_its_matches_and_refunds(sessions):
    fee = 2 * DEW + 1
    players = wallets(2)
    for address in players:
        deposit(sessions, address, fee)
    with sessions() as session:
        t = service.create_tournament(
            session=session,
            spec=spec("cancel mid-round", entry_fee=fee, min_entrants=4, max_entrants=4),
        )
        for address in players:
            service.register(session=session, gate=None, tournament_id=t.id, address=address)
        service.add_bots(session=session, tournament_id=t.id, count=2)
        tid = t.id
    # full: the worker starts round 1 (no server hosts it here: its matches stay live)
    jobs.advance_tournaments(session_factory=sessions, settings=SETTINGS)
    with sessions() as session:
        games = service.games_of(session=session, tournament_id=tid)
        assert [g.status for g in games] == ["live", "live"]
        done = service.cancel(session=session, tournament_id=tid, reason="venue flooded")
        assert done.refunded == 2 * fee
        assert sorted(done.abandoned_matches) == sorted(g.match_id for g in games)
    with sessions() as session:
        assert all(session.get(Match, g.match_id).status == "abandoned" for g in games)
        assert [stakes.stake_balance(session=session, address=a) for a in players] == [fee, fee]
        t = service.get_tournament(session=session, tournament_id=tid)
        assert (t.status, t.cancel_reason) == (TournamentStatus.CANCELLED, "venue flooded")
    # the worker leaves a cancelled tournament alone
    with sessions() as session:
        assert tid not in rounds.due_tournaments(session=session)


def test_prize_planning_refuses_a_pool_nobody_paid_and_writes_nothing(sessions):
    (player,) = wallets(1)
    deposit(sessions, player, DEW)
    key = escrow_key(99_999_999_999_999_999_999)
    with sessions.begin() as session:
        stakes.escrow_stakes(session=session, match_id=key, seats=[(1, player)], stake=DEW)
    prize = economy.Prize(place=1, address=player, amount=DEW)
    common = dict(
        key=key,
        chain_match_id="0x03" + "11" * 31,
        result_hash="0x" + "22" * 32,
        treasury=SETTINGS.economy.treasury,
        season_id=None,
        finished_at=utcnow(),
    )
    with sessions() as session:
        with pytest.raises(PolicyError, match="holds"):  # the pool counts fees never escrowed
            economy.plan_prize_settlement(
                session=session, prizes=[prize], entry_fees=2 * DEW, added_prize=0, fee=0, **common
            )
        session.rollback()
        with pytest.raises(PolicyError, match="prizes"):  # prizes + fee != fees + added
            economy.plan_prize_settlement(
                session=session,
                prizes=[economy.Prize(place=1, address=player, amount=DEW + 1)],
                entry_fees=DEW,
                added_prize=0,
                fee=0,
                **common,
            )
        session.rollback()
        assert session.get(PlannedSettlement, key) is None
        planned = economy.plan_prize_settlement(
            session=session, prizes=[prize], entry_fees=DEW, added_prize=0, fee=0, **common
        )
        again = economy.plan_prize_settlement(
            session=session, prizes=[prize], entry_fees=DEW, added_prize=0, fee=0, **common
        )
        assert again is planned and planned.status == "submitted"
        session.rollback()


def test_one_tournament_failing_to_advance_does_not_stall_the_others(sessions, monkeypatch):
    """Any error of one tournament's step is rolled back and counted; the worker goes on to
    the next (``due`` is ordered by id: stopping would stall every later tournament)."""
    with sessions() as session:
        past = utcnow() - timedelta(minutes=1)
        broken = service.create_tournament(session=session, spec=spec("broken", starts_at=past))
        empty = service.create_tournament(session=session, spec=spec("empty", starts_at=past))
        broken_id, empty_id = broken.id, empty.id
    real = rounds.advance

    def advance(*, tournament_id, **kw):
        if tournament_id == broken_id:
            raise RuntimeError("boom")
        return real(tournament_id=tournament_id, **kw)

    monkeypatch.setattr(rounds, "advance", advance)
    report = jobs.advance_tournaments(session_factory=sessions, settings=SETTINGS)
    assert report["failed"] == 1
    with sessions() as session:
        assert service.get_tournament(session=session, tournament_id=broken_id).status == (
            TournamentStatus.REGISTERING
        )
        # past its start with no entrants: the next tournament still got its step
        assert service.get_tournament(session=session, tournament_id=empty_id).status == (
            TournamentStatus.CANCELLED
        )


def test_prizes_are_dated_in_chain_time_like_match_rewards(sessions, monkeypatch):
    """The worker's chain clock offset is added to the finish, as match rewards add it: an
    avatar prize is split by the agreement in force at that chain time."""
    fee = DEW
    players = wallets(2)
    for address in players:
        deposit(sessions, address, fee)
    with sessions() as session:
        t = service.create_tournament(
            session=session,
            spec=spec("chain clock", entry_fee=fee, min_entrants=2, max_entrants=2),
        )
        for address in players:
            service.register(session=session, gate=None, tournament_id=t.id, address=address)
        tid = t.id
    jobs.advance_tournaments(session_factory=sessions, settings=SETTINGS)  # full: round 1
    with sessions() as session:
        for g in service.games_of(session=session, tournament_id=tid):
            tables.abandon_match(session=session, match_id=g.match_id, reason="test")
    planned: list[dict] = []
    real = economy.plan_prize_settlement

    def plan(**kw):
        planned.append(kw)
        return real(**kw)

    monkeypatch.setattr(economy, "plan_prize_settlement", plan)
    asked: list[int] = []

    def offset() -> int:
        asked.append(1)
        return 3 * 86_400

    jobs.advance_tournaments(
        session_factory=sessions, settings=SETTINGS, chain_clock_offset_s=offset
    )
    with sessions() as session:
        t = service.get_tournament(session=session, tournament_id=tid)
        assert t.status == TournamentStatus.FINISHED
    assert len(asked) == 1  # asked once, at the finish
    (kw,) = planned
    assert kw["played_at_s"] == int(kw["finished_at"].timestamp()) + 3 * 86_400


def _tier(sessions, name: str, tier: str, feeder: int | None, humans: list[str], **kw) -> int:
    """A knock-out of four of ``tier`` open to the qualifiers of ``feeder``: the ``humans``
    enter (absent wallets: the turn timer plays for them), ``refused`` (a wallet that did not
    qualify in the tier below) is turned away, and bots fill it, so that it starts full."""
    refused = kw.pop("refused", None)
    with sessions() as session:
        t = service.create_tournament(
            session=session,
            spec=spec(
                name,
                tier=tier,
                qualifier_of=feeder,
                format="elimination",
                min_entrants=4,
                max_entrants=4,
                turn_timeout_s=1.0,
                **kw,
            ),
            settings=FAST_TIMERS,
        )
        for address in humans:
            service.register(session=session, gate=None, tournament_id=t.id, address=address)
        if refused is not None:
            with pytest.raises(exc.NotEligible, match="did not qualify"):
                service.register(session=session, gate=None, tournament_id=t.id, address=refused)
        service.add_bots(session=session, tournament_id=t.id, count=4 - len(humans), level="easy")
        return t.id


def _qualifiers_once_played(sessions, tournament_id: int) -> list[str]:
    """Waits for the tournament to end and checks it was played through; returns its
    qualifiers' addresses in the order of their places."""
    run_to_end(sessions, tournament_id)
    with sessions() as session:
        t = service.get_tournament(session=session, tournament_id=tournament_id)
        assert t.status == TournamentStatus.FINISHED
        assert t.current_round == t.rounds_total == 2  # four entrants, knock-out
        for g in service.games_of(session=session, tournament_id=tournament_id):
            match = session.get(Match, g.match_id)
            assert match is not None and match.status == "finished" and match.result_hash
        places = sorted(
            views.standings_view(session=session, tournament=t), key=lambda p: p["place"]
        )
        assert [p["place"] for p in places] == [1, 2, 3, 4]
        return [p["address"] for p in places if p["qualified"]]


def test_a_campeonisimo_and_a_supercampeones_play_through_from_the_tier_below(pg_url, sessions):
    """Seed 000's three tiers in order, each played through on the server: the Campeonato's
    two best wallets enter the Campeonisimo, whose best wallet enters the Supercampeones;
    at each step a wallet that did not qualify in the tier below is refused."""
    humans = wallets(3)
    with ServerProcess(pg_url, bot_move_delay_s=0.01, adopt_started_every_s=0.2):
        campeonato = _tier(sessions, "tier 1", "campeonato", None, humans, qualify_top=2)
        first = _qualifiers_once_played(sessions, campeonato)
        assert len(first) == 2 and set(first) <= set(humans)  # bots never qualify
        [left_out] = set(humans) - set(first)

        campeonisimo = _tier(
            sessions, "tier 2", "campeonisimo", campeonato, first, qualify_top=1, refused=left_out
        )
        second = _qualifiers_once_played(sessions, campeonisimo)
        assert len(second) == 1 and second[0] in first
        [runner_up] = set(first) - set(second)

        with sessions() as session, pytest.raises(exc.InvalidTournament, match="qualifier_of"):
            service.create_tournament(  # a Supercampeones takes a Campeonisimo's qualifiers
                session=session,
                spec=spec("tier 3 wrong", tier="supercampeones", qualifier_of=campeonato),
            )
        supercampeones = _tier(
            sessions,
            "tier 3",
            "supercampeones",
            campeonisimo,
            second,
            qualify_top=1,
            refused=runner_up,
        )
        assert _qualifiers_once_played(sessions, supercampeones) == second
