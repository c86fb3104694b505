"""What a tournament shows: seeds, standings, and the views of a tournament, an entrant and
its bracket that the routes and the watch socket send."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from backend.competitions import pairing
from backend.competitions.models import Entrant, Game, Tournament
from backend.competitions.service import entrants_of, games_of
from backend.db.base import aware
from backend.kit.rows import columns


def seed_order(entrants: list[Entrant]) -> list[int]:
    """Entrant numbers, best seed first."""
    return [e.number for e in sorted(entrants, key=lambda e: e.seed or 0)]


def game_history(games: list[Game]) -> dict[int, list[pairing.Game]]:
    """The games as the pairing rules read them, by round."""
    rounds: dict[int, list[pairing.Game]] = {}
    for g in games:
        rounds.setdefault(g.round, []).append(pairing.Game(g.a, g.b, g.winner))
    return rounds


def standings(*, session: Session, tournament: Tournament) -> list[pairing.Standing]:
    """The standings from the games finished so far (final once the tournament is)."""
    entrants = entrants_of(session=session, tournament_id=tournament.id)
    if tournament.current_round == 0 or not entrants:
        # No round was ever started (still registering, or cancelled before round 1, as
        # with fewer entrants than its minimum, perhaps just one): nobody has a place.
        return []
    by_seed = seed_order(entrants)
    done = [g for g in games_of(session=session, tournament_id=tournament.id) if g.status != "live"]
    rounds = game_history(done)
    if tournament.format == "elimination":
        return pairing.elimination_standings(by_seed, [rounds[r] for r in sorted(rounds)])
    return pairing.swiss_standings(by_seed, [g for r in sorted(rounds) for g in rounds[r]])


# --- views ----------------------------------------------------------------------------------


def summary(t: Tournament) -> dict[str, Any]:
    return columns(
        t,
        "id name tier format preset options season_id fee_bps qualify_top qualifier_of"
        " max_rank requires_vip requires_avatar min_entrants max_entrants round_every_s"
        " turn_timeout_s status rounds_total current_round version cancel_reason center_id",
        entry_fee=int(t.entry_fee),
        added_prize=int(t.added_prize),
        prize_bps=list(t.prize_bps),
        starts_at=aware(t.starts_at).isoformat(),
    )


def entrant_view(e: Entrant) -> dict[str, Any]:
    return columns(
        e,
        "number address bot_level avatar_id seed place score qualified",
        prize=int(e.prize),
    )


def bracket_view(*, session: Session, tournament_id: int) -> list[dict[str, Any]]:
    rounds: dict[int, list[dict[str, Any]]] = {}
    for g in games_of(session=session, tournament_id=tournament_id):
        rounds.setdefault(g.round, []).append(
            columns(g, "board a b table_id match_id status winner outcome")
        )
    return [{"round": r, "games": games} for r, games in sorted(rounds.items())]


def standings_view(*, session: Session, tournament: Tournament) -> list[dict[str, Any]]:
    entrants = {e.number: e for e in entrants_of(session=session, tournament_id=tournament.id)}
    return [
        {
            "place": s.place,
            "entrant": s.entrant,
            "address": entrants[s.entrant].address,
            "score": s.score,
            "wins": s.wins,
            "tiebreak": s.tiebreak,
            "prize": int(entrants[s.entrant].prize),
            "qualified": entrants[s.entrant].qualified,
        }
        for s in standings(session=session, tournament=tournament)
    ]
