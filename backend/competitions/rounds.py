"""Tournament rounds: :func:`advance` makes one step of one tournament (start it, collect a
round's results, start the next round when it is due, or finish it: standings, prizes through
the economy's settlement, qualification).

Each step is one transaction under the tournament's row lock and is idempotent, so a worker
killed at any point and run again continues where the database says it is
(docs/competitions.md, "Restart safety"). Rounds are normal server matches
(``backend.tables.service.create_seated_match``).
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable
from datetime import timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from backend.chain import match_ids
from backend.competitions import pairing
from backend.competitions.contributions import contributed
from backend.competitions.models import (
    Entrant,
    Game,
    GameStatus,
    Tournament,
    TournamentStatus,
    escrow_key,
)
from backend.competitions.service import (
    cancel_locked,
    entrants_of,
    games_of,
    get_tournament,
    match_seats,
)
from backend.competitions.views import game_history, seed_order, standings
from backend.config import Settings
from backend.db.base import aware, utcnow
from backend.economy import jobs as economy_jobs
from backend.economy import reports, settlement
from backend.economy.fees.schedule import FeeRecipients
from backend.economy.models import Season
from backend.tables import service as tables
from backend.tables.models import Match

log = logging.getLogger(__name__)


def _seat_spec(e: Entrant) -> tables.SeatSpec:
    if e.address is None:
        return tables.SeatSpec(bot_level=e.bot_level or "medium")
    return tables.SeatSpec(address=e.address, avatar_id=e.avatar_id, admitted_as=e.admitted_as)


def _start_round(
    session: Session, t: Tournament, number: int, pairings: list[pairing.Pairing]
) -> None:
    entrants = {e.number: e for e in entrants_of(session=session, tournament_id=t.id)}
    seats = match_seats(t.preset, t.options)
    for board, p in enumerate(pairings):
        game = Game(tournament_id=t.id, round=number, board=board, a=p.a, b=p.b)
        if p.b is None:
            game.status, game.winner, game.outcome = GameStatus.BYE, p.a, "bye"
            session.add(game)
            continue
        specs = [_seat_spec(entrants[p.a]), _seat_spec(entrants[p.b])]
        if seats == 4:  # team game: seats 0 and 2 are one side, 1 and 3 the other
            specs += [tables.SeatSpec(bot_level=t.bot_level)] * 2
        table = tables.create_seated_match(
            session=session,
            preset=t.preset,
            options=t.options,
            seats=specs,
            turn_timeout_s=t.turn_timeout_s,
            bot_level=t.bot_level,
        )
        game.table_id, game.match_id, game.status = table.id, table.match_id, GameStatus.LIVE
        session.add(game)
    t.current_round = number
    t.version += 1


def _collect_results(session: Session, t: Tournament) -> int:
    """Copy finished matches' winners into the round's games; returns the games still live."""
    live = 0
    # An elimination game cannot end level: a drawn one goes to the better seed.
    by_seed = (
        seed_order(entrants_of(session=session, tournament_id=t.id))
        if t.format == "elimination"
        else []
    )
    for g in session.scalars(
        select(Game).where(
            Game.tournament_id == t.id,
            Game.round == t.current_round,
            Game.status == GameStatus.LIVE,
        )
    ):
        match = session.get(Match, g.match_id)
        if match is None or match.status == "live":
            live += 1
            continue
        g.status = GameStatus.FINISHED
        if match.status == "finished" and match.result:
            won = {s["seat"] for s in match.result.get("seats", []) if s.get("won")}
            g.winner = g.a if 0 in won else g.b if 1 in won else None
            g.outcome = "won" if g.winner is not None else "draw"
        else:  # abandoned by an operator: no result, scored as a draw
            g.winner, g.outcome = None, "abandoned"
        if t.format == "elimination" and g.winner is None:
            g.winner = pairing.decide(pairing.Game(g.a, g.b, None), by_seed).winner
        t.version += 1
    return live


def advance(
    *,
    session: Session,
    settings: Settings,
    tournament_id: int,
    chain_clock_offset_s: Callable[[], int] | None = None,
    recipients: FeeRecipients | None = None,
) -> str:
    """One step of one tournament, committed: start it, collect a round's results, start the
    next round when it is due, or finish it (standings, prizes, qualifiers). Returns what
    it did; calling it again when nothing is due changes nothing.

    ``chain_clock_offset_s`` gives chain time minus this machine's (as for match rewards,
    ``economy.jobs.plan_finished_matches``); it is asked only when the tournament finishes,
    to date its avatar prizes in chain time (default 0). ``recipients`` names the center and
    creator legs of its fee (none: all to the treasury)."""
    t = get_tournament(session=session, tournament_id=tournament_id, lock=True)
    now = utcnow()
    step = "idle"
    if t.status == TournamentStatus.REGISTERING:
        entrants = entrants_of(session=session, tournament_id=t.id)
        if now < aware(t.starts_at) and len(entrants) < t.max_entrants:
            step = "registering"
        elif len(entrants) < t.min_entrants:
            cancel_locked(session, t, f"{len(entrants)} entrants, fewer than {t.min_entrants}")
            step = "cancelled"
        else:
            _seed(session, t, entrants)
            t.starts_at = min(aware(t.starts_at), now)  # full before the hour: starts now
            t.status = TournamentStatus.RUNNING
            t.rounds_total = pairing.rounds_needed(t.format, len(entrants))
            by_seed = seed_order(entrants)
            first = (
                pairing.first_elimination_round(by_seed)
                if t.format == "elimination"
                else pairing.pair_swiss(by_seed, [])
            )
            _start_round(session, t, 1, first)
            step = "round 1"
    elif t.status == TournamentStatus.RUNNING:
        if _collect_results(session, t):
            step = "playing"
        elif t.current_round < t.rounds_total:
            due = aware(t.starts_at) + timedelta(seconds=t.round_every_s * t.current_round)
            if now < due:
                step = "waiting"
            else:
                games = games_of(session=session, tournament_id=t.id)
                history = game_history(games)
                by_seed = seed_order(entrants_of(session=session, tournament_id=t.id))
                if t.format == "elimination":
                    nxt = pairing.next_elimination_round(history[t.current_round])
                else:
                    nxt = pairing.pair_swiss(by_seed, [g for r in history.values() for g in r])
                _start_round(session, t, t.current_round + 1, nxt)
                step = f"round {t.current_round}"
        else:
            offset = chain_clock_offset_s() if chain_clock_offset_s else 0
            _finish(session, settings, t, offset, recipients)
            step = "finished"
    session.commit()
    if step not in ("idle", "registering", "playing", "waiting"):
        log.info("tournament %s: %s", tournament_id, step)
    return step


def _seed(session: Session, t: Tournament, entrants: list[Entrant]) -> None:
    ranks: dict[int, int] = {}
    if t.season_id is not None:
        board = reports.season_leaderboard(session=session, season_id=t.season_id, limit=10_000)
        by_address = {row["address"]: int(row["rank"]) for row in board}  # type: ignore[call-overload]
        ranks = {e.number: by_address[e.address] for e in entrants if e.address in by_address}
    order = pairing.seed([e.number for e in entrants], ranks)
    position = {number: i + 1 for i, number in enumerate(order)}
    for e in entrants:
        e.seed = position[e.number]


def _finish(
    session: Session,
    settings: Settings,
    t: Tournament,
    clock_offset_s: int,
    recipients: FeeRecipients | None = None,
) -> None:
    """Final standings; prizes and qualification go down the standings to human entrants
    (bots win nothing); the prizes are planned into the settlement outbox here, in the
    transaction that marks the tournament finished, so they are planned exactly once.
    An avatar's prize is split by the agreement in force at the finish in chain time
    (``clock_offset_s`` added to this machine's clock), as a match reward is."""
    entrants = {e.number: e for e in entrants_of(session=session, tournament_id=t.id)}
    final = standings(session=session, tournament=t)
    humans = [s for s in final if entrants[s.entrant].address is not None]
    fees = sum(int(e.fee_paid) for e in entrants.values())
    added = int(t.added_prize)
    if not humans and added and t.season_id is not None:
        season = session.get(Season, t.season_id, with_for_update=True)
        assert season is not None
        season.emitted = str(int(season.emitted) - added)  # nobody to pay: back to the season
        added = 0
    fee = fees * t.fee_bps // pairing.BPS
    # DEW contributions pooled into this tournament (fee-free); with no human to pay they
    # stay in the vault, booked as pooled, and the reconciliation of contributions says so.
    gifts = contributed(session=session, tournament_id=t.id) if humans else 0
    pool = fees + added + gifts - fee
    shares = pairing.prize_shares(pool, t.prize_bps, len(humans)) if humans else []
    prizes = []
    for s in final:
        e = entrants[s.entrant]
        e.place, e.score = s.place, s.score
    for index, s in enumerate(humans):
        e = entrants[s.entrant]
        e.qualified = index < t.qualify_top
        if index < len(shares):
            e.prize = str(shares[index])
            assert e.address is not None
            prizes.append(
                settlement.Prize(
                    place=s.place,
                    address=e.address,
                    amount=shares[index],
                    avatar_id=e.avatar_id,
                    admitted_as=e.admitted_as,
                )
            )
    key = escrow_key(t.id)
    results = [
        {
            "entrant": s.entrant,
            "place": s.place,
            "score": s.score,
            "prize": entrants[s.entrant].prize,
        }
        for s in final
    ]
    played = [g.match_id for g in games_of(session=session, tournament_id=t.id) if g.match_id]
    hashes = dict(
        session.execute(select(Match.id, Match.result_hash).where(Match.id.in_(played))).all()
    )
    match_hashes = [hashes.get(m) for m in played]
    digest = hashlib.sha256(
        json.dumps({"key": key, "standings": results, "matches": match_hashes}).encode()
    ).hexdigest()
    finished_at = utcnow()
    if fees + added + gifts:
        settlement.plan_prize_settlement(
            session=session,
            key=key,
            chain_match_id=match_ids.prize_id(
                hashlib.sha256(f"dew-tournament:{key}".encode()).digest()
            ),
            result_hash="0x" + digest,
            prizes=prizes,
            entry_fees=fees,
            added_prize=added,
            fee=fee,
            treasury=settings.economy.treasury,
            season_id=t.season_id,
            finished_at=finished_at,
            chain_id=settings.chain.chain_id,
            played_at_s=int(finished_at.timestamp()) + clock_offset_s,
            # A competition run at a Game Center pays the center's leg of its fee.
            center_id=getattr(t, "center_id", None),
            schedule=economy_jobs.fee_schedule(settings),
            recipients=recipients,
            contributed=gifts,
        )
    t.status = TournamentStatus.FINISHED
    t.finished_at = finished_at
    t.version += 1


def due_tournaments(*, session: Session) -> list[int]:
    """Tournaments a worker should look at: registering or running."""
    return list(
        session.scalars(
            select(Tournament.id)
            .where(Tournament.status.in_((TournamentStatus.REGISTERING, TournamentStatus.RUNNING)))
            .order_by(Tournament.id)
        )
    )
