"""A tournament end to end on anvil, with real server, worker and beat processes, killed
mid-round: entry fees deposited into the vault and escrowed, rounds played as server
matches (absent humans: the turn timer's bot, then a forfeit), prizes settled on chain with
the scholarship split of an avatar under a Rewards Division agreement, paid exactly once,
and the ledger reconciled with the chain to the unit."""

from __future__ import annotations

from datetime import timedelta

import pytest
from eth_account import Account
from sqlalchemy import select

from backend.chain.rpc import Rpc
from backend.competitions import service
from backend.competitions.models import Entrant, Game, TournamentStatus, escrow_key
from backend.config import Settings, TablesSettings
from backend.db import create_db_engine, make_session_factory
from backend.db.base import utcnow
from backend.economy import stakes
from backend.economy.chain_reader import ChainReader
from backend.economy.ledger import reconcile_ledger
from backend.economy.models import LedgerLeg, PlannedSettlement
from backend.economy.policy import Party, Terms, split_payout
from backend.economy.scholarships.indexer import index_registry
from backend.economy.scholarships.transactions import OfferTerms, ScholarshipTxBuilder
from backend.economy.seasons import create_season
from backend.tables.chain_gate import ChainGate
from backend.tables.models import Match, MatchMove
from tests.chain.conftest import settled_events
from tests.economy.chain_helpers import address, mint_avatars, send
from tests.tables.harness import ServerProcess, wait_for
from tests.worker.conftest import WorkerProcess, worker_env

pytestmark = pytest.mark.timeout(400)

DEW = 10**18
FEE = 10 * DEW
ADDED = 20 * DEW


def _round_has_moves(sessions, tid: int, number: int) -> bool:
    with sessions() as session:
        matches = list(
            session.scalars(
                select(Game.match_id).where(
                    Game.tournament_id == tid, Game.round == number, Game.match_id.is_not(None)
                )
            )
        )
        return bool(matches) and all(
            session.scalar(select(MatchMove.ply).where(MatchMove.match_id == m).limit(1))
            is not None
            for m in matches
        )


def test_tournament_on_anvil_survives_killed_server_and_worker(deployment, pg_url, tmp_path):
    w3, c = deployment.w3, deployment.contracts
    owner_key, scholar_key, *others = deployment.player_keys[:5]
    owner, scholar = address(owner_key), address(scholar_key)
    players = [scholar, *(address(k) for k in others)]
    treasury = Account.create().address
    builder = ScholarshipTxBuilder(c)
    (avatar,) = mint_avatars(deployment, [owner])
    send(
        w3, deployment.operator_key, builder.screen_owner(screener=deployment.operator, owner=owner)
    )
    terms = OfferTerms(
        terms=Terms.REWARDS_DIVISION, duration_s=7200, owner_bps=3000, dust_to=Party.OWNER
    )
    send(w3, owner_key, builder.offer(owner=owner, avatar_id=avatar, terms=terms, scholar=scholar))
    agreement = c.registry.functions.agreementCount().call()
    for tx in builder.accept(scholar=scholar, agreement_id=agreement):
        send(w3, scholar_key, tx)
    for key in [scholar_key, *others]:  # each entrant deposits its fee into the vault
        send(w3, deployment.deployer_key, c.token.functions.transfer(address(key), FEE))
        send(w3, key, c.token.functions.transfer(c.settlement.address, FEE))

    db = create_db_engine(pg_url)
    sessions = make_session_factory(db)
    reader = ChainReader(c, confirmations=1)
    index_registry(session_factory=sessions, reader=reader)
    assert stakes.index_deposits(session_factory=sessions, reader=reader).credited == 4
    with sessions.begin() as session:
        season = create_season(
            session=session,
            name="Season 1",
            starts_at=utcnow() - timedelta(hours=1),
            ends_at=utcnow() + timedelta(days=30),
            emission_budget=100 * DEW,
        )
        season_id = season.id
    gate = ChainGate(c, confirmations=1)
    with sessions() as session:
        t = service.create_tournament(
            session=session,
            spec=service.TournamentSpec(
                name="Campeonato 1",
                preset="draw",
                format="swiss",
                season_id=season_id,
                entry_fee=FEE,
                added_prize=ADDED,
                fee_bps=500,
                prize_bps=[4000, 3000, 2000, 1000],
                qualify_top=2,
                min_entrants=8,
                max_entrants=8,
                starts_at=utcnow() + timedelta(hours=1),
                turn_timeout_s=1.0,
            ),
            # The absent wallets time out fast: a 1-second floor (a deployment's is 15 s).
            settings=Settings(tables=TablesSettings(min_earning_turn_timeout_s=1.0)),
        )
        tid = t.id
        entry = service.register(
            session=session, gate=gate, tournament_id=tid, address=scholar, avatar_id=avatar
        )
        assert (entry.avatar_id, entry.admitted_as) == (avatar, "avatar_user")
        for player in players[1:]:
            service.register(session=session, gate=gate, tournament_id=tid, address=player)
        service.add_bots(session=session, tournament_id=tid, count=4, level="easy")
        assert all(stakes.stake_balance(session=session, address=p) == 0 for p in players)
    watched = [*players, owner, treasury]
    before = {a: c.token.functions.balanceOf(a).call() for a in watched}

    rpc = Rpc(deployment.anvil.rpc_url)
    rpc.call("evm_setIntervalMining", 1)
    env = worker_env(
        deployment,
        pg_url,
        f"sqla+sqlite:///{tmp_path / 'broker.sqlite3'}",
    )
    env.update(
        DEW_ECONOMY_TREASURY=treasury,
        DEW_ECONOMY_CONFIRMATIONS="1",
        DEW_ECONOMY_SETTLE_EVERY_S="1",
        DEW_BROKER_PUMP_EVERY_S="1",
        DEW_COMPETITIONS_ADVANCE_EVERY_S="0.5",
    )
    server_settings = dict(bot_move_delay_s=0.05, adopt_started_every_s=0.3, orphan_grace_s=1)
    beat = WorkerProcess(env, tmp_path / "beat.log", beat=True).start()
    worker = WorkerProcess(env, tmp_path / "worker-1.log").start()
    server = ServerProcess(pg_url, **server_settings).start()
    servers = [server]
    try:
        # Round 1 under way: SIGKILL the server that hosts its matches; another one adopts them.
        wait_for(lambda: _round_has_moves(sessions, tid, 1), timeout=60, what="round 1 in play")
        server.kill()
        servers.append(ServerProcess(pg_url, **server_settings).start())
        # Round 2 under way: SIGKILL the worker that advances the tournament; restart it.
        wait_for(lambda: _round_has_moves(sessions, tid, 2), timeout=90, what="round 2 in play")
        worker.process.kill()
        worker.process.wait(10)
        worker = WorkerProcess(env, tmp_path / "worker-2.log").start()

        def paid() -> bool:
            with sessions() as session:
                settlement = session.get(PlannedSettlement, escrow_key(tid))
                return settlement is not None and settlement.status == "paid"

        wait_for(paid, timeout=180, interval=0.5, what="the prizes paid and booked")
    finally:
        for s in servers:
            s.kill()
        worker.stop()
        beat.stop()
        rpc.call("evm_setIntervalMining", 0)
        rpc.close()

    with sessions() as session:
        t = service.get_tournament(session=session, tournament_id=tid)
        assert t.status == TournamentStatus.FINISHED and t.current_round == 3
        games = service.games_of(session=session, tournament_id=tid)
        assert len(games) == 12  # 3 rounds of 4 games, no byes
        for g in games:
            match = session.get(Match, g.match_id)
            assert match.status == "finished" and match.record["server"]["match_id"] == match.id
        entrants = {e.number: e for e in session.scalars(select(Entrant))}
        humans = sorted((e for e in entrants.values() if e.address), key=lambda e: e.place)
        pool = 4 * FEE + ADDED - 4 * FEE * 500 // 10_000
        prizes = [pool * bps // 10_000 for bps in (4000, 3000, 2000, 1000)]
        prizes[0] += pool - sum(prizes)
        assert [int(e.prize) for e in humans] == prizes
        assert [e.qualified for e in humans] == [True, True, False, False]
        assert all(e.prize == "0" and not e.qualified for e in entrants.values() if not e.address)
        settlement = session.get(PlannedSettlement, escrow_key(tid))
        assert int(settlement.paid) == pool + 4 * FEE * 500 // 10_000
        legs = list(session.scalars(select(LedgerLeg).where(LedgerLeg.match_id == escrow_key(tid))))
        assert all(leg.status == "paid" for leg in legs)
        assert reconcile_ledger(session=session, reader=reader).ok
    # Paid once: one MatchSettled for the tournament, and balances moved by exactly the prizes.
    events = settled_events(Rpc(deployment.anvil.rpc_url), c.settlement.address)
    assert events[settlement.chain_match_id.lower()] == 1
    after = {a: c.token.functions.balanceOf(a).call() for a in watched}
    prize_of = {e.address: int(e.prize) for e in humans}
    split = split_payout(prize_of[scholar], owner_bps=3000, dust_to=Party.OWNER)
    expected = {p: prize_of[p] for p in players}
    expected[scholar] = split.scholar
    expected[owner] = split.owner
    expected[treasury] = 4 * FEE * 500 // 10_000
    assert {a: after[a] - before[a] for a in watched} == expected
    assert len(servers) == 2 and "advance_tournaments_task" in worker.log()
    db.dispose()
