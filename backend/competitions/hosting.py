"""What a Game Center's host does with it ("What to do") and what it earns ("Profitability").

- A Campeonato at the center: the center's host (its renter while rented, else its owner;
  ``backend.centers.service.host_of``) creates it like the operator would, with fewer
  powers: only the open tier (campeonato), no added prize (that is paid from the season's
  emission budget, the operator's money), at most ``capacity`` of the center's
  tournaments registering or running at once, and a start at most
  ``DEW_COMPETITIONS_HOST_MAX_LEAD_DAYS`` ahead (entrants' fees are not held for years).
- The center's report: its fee legs (ledger party ``FEE_CENTER_PARTY``, written by the
  settlement planner when a hosted match or tournament is settled) summed per season.
  A leg belongs to the center when its match was played at one of the center's tables, or
  when it is the settlement of one of the center's tournaments.

Tables under a center are opened through ``backend.tables.service.create_table`` with
``TableSpec.center_id`` (the host and capacity checks live there, in the same transaction).
"""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Select, func, or_, select
from sqlalchemy.orm import Session

from backend.centers import service as centers
from backend.competitions import exceptions as exc
from backend.competitions import service
from backend.competitions.models import Tournament, TournamentStatus, escrow_key
from backend.config import Settings, get_settings
from backend.db.base import utcnow
from backend.economy.models import LedgerLeg, LegStatus, PlannedSettlement, Season
from backend.tables.models import Match, Table

# The ledger party of a center's fee leg (the settlement planner writes it).
FEE_CENTER_PARTY = "fee_center"
HOST_TIER = "campeonato"
OPEN_STATUSES = (TournamentStatus.REGISTERING, TournamentStatus.RUNNING)


def create_center_tournament(
    *,
    session: Session,
    spec: service.TournamentSpec,
    host: str,
    settlement_limit: int | None = None,
    at: datetime | None = None,
    settings: Settings | None = None,
) -> Tournament:
    """A Campeonato under ``spec.center_id``, created by its host (see the module doc)."""
    settings = settings or get_settings()
    now = at or utcnow()
    if spec.center_id is None:
        raise exc.InvalidTournament("a center's tournament names its center")
    if spec.tier != HOST_TIER:
        raise exc.InvalidTournament(f"a center runs {HOST_TIER}s, not {spec.tier!r}")
    if spec.added_prize:
        raise exc.InvalidTournament(
            "a center's tournament has no added prize: that is paid from the season's budget"
        )
    lead_days = settings.competitions.host_max_lead_days
    if spec.starts_at is not None and spec.starts_at.tzinfo is None:
        raise exc.InvalidTournament("starts_at must be timezone-aware")
    if spec.starts_at is not None and spec.starts_at - now > timedelta(days=lead_days):
        raise exc.InvalidTournament(
            f"a center's tournament starts at most {lead_days} days ahead "
            f"(DEW_COMPETITIONS_HOST_MAX_LEAD_DAYS), got {spec.starts_at.isoformat()}"
        )
    center = centers.require_host(session=session, center_id=spec.center_id, wallet=host, at=now)
    running = (
        session.scalar(
            select(func.count())
            .select_from(Tournament)
            .where(Tournament.center_id == center.center_id, Tournament.status.in_(OPEN_STATUSES))
        )
        or 0
    )
    if running >= center.capacity:
        raise exc.InvalidTournament(
            f"center {center.center_id} already runs {running} tournaments "
            f"(its capacity is {center.capacity})"
        )
    return service.create_tournament(
        session=session,
        spec=spec,
        created_by=host,
        settlement_limit=settlement_limit,
        max_fee_bps=settings.fees.tournament_max_bps,
        settings=settings,
    )


def center_tournaments(*, session: Session, center_id: int, limit: int = 50) -> list[Tournament]:
    """The center's tournaments still registering or running, soonest first."""
    return list(
        session.scalars(
            select(Tournament)
            .where(Tournament.center_id == center_id, Tournament.status.in_(OPEN_STATUSES))
            .order_by(Tournament.starts_at, Tournament.id)
            .limit(limit)
        )
    )


def _center_match_ids(center_id: int) -> Select[Any]:
    return (
        select(Match.id).join(Table, Table.id == Match.table_id).where(Table.center_id == center_id)
    )


def center_report(
    *, session: Session, center_id: int, season_id: int | None = None, limit: int = 100
) -> dict[str, Any]:
    """The center's fee legs per season (matches, earned = pending + paid, paid, pending,
    failed) and per match, newest first, at most ``limit`` of them (each with its season,
    amount, state and the settlement's transaction), in DEW wei as decimal strings;
    ``season_id`` narrows both to one season."""
    center = centers.get_center(session=session, center_id=center_id)
    tournament_keys = [
        escrow_key(t_id)
        for t_id in session.scalars(select(Tournament.id).where(Tournament.center_id == center_id))
    ]
    hosted = or_(
        LedgerLeg.match_id.in_(_center_match_ids(center_id)),
        LedgerLeg.match_id.in_(tournament_keys),
    )
    query = (
        select(
            LedgerLeg,
            PlannedSettlement.season_id,
            PlannedSettlement.tx_hash,
            PlannedSettlement.finished_at,
        )
        .join(PlannedSettlement, PlannedSettlement.match_id == LedgerLeg.match_id)
        .where(LedgerLeg.party == FEE_CENTER_PARTY, hosted)
        .order_by(PlannedSettlement.finished_at.desc(), LedgerLeg.id.desc())
    )
    if season_id is not None:
        query = query.where(PlannedSettlement.season_id == season_id)
    seasons: dict[int | None, dict[str, Any]] = defaultdict(
        lambda: {"matches": set(), "paid": 0, "pending": 0, "failed": 0}
    )
    names = dict(session.execute(select(Season.id, Season.name)).tuples().all())
    matches: list[dict[str, Any]] = []
    for leg, leg_season, tx_hash, finished_at in session.execute(query):
        row = seasons[leg_season]
        row["matches"].add(leg.match_id)
        status = leg.status if leg.status in (LegStatus.PAID, LegStatus.PENDING) else "failed"
        row[status] += int(leg.amount)
        if len(matches) < limit:
            matches.append(
                {
                    "match_id": leg.match_id,
                    "season_id": leg_season,
                    "season": names.get(leg_season) if leg_season is not None else None,
                    "finished_at": finished_at,
                    "amount": leg.amount,
                    "status": status,
                    "tx_hash": tx_hash if status == LegStatus.PAID else None,
                }
            )
    rows: list[dict[str, Any]] = [
        {
            "season_id": sid,
            "season": names.get(sid) if sid is not None else None,
            "matches": len(r["matches"]),
            "earned": str(r["paid"] + r["pending"]),
            "paid": str(r["paid"]),
            "pending": str(r["pending"]),
            "failed": str(r["failed"]),
        }
        for sid, r in sorted(seasons.items(), key=lambda kv: (kv[0] is None, kv[0] or 0))
    ]
    return {
        "center_id": center.center_id,
        "name": center.name,
        "payee": centers.host_of(center, utcnow()),
        "seasons": rows,
        "earned": str(sum(int(r["earned"]) for r in rows)),
        "paid": str(sum(int(r["paid"]) for r in rows)),
        "matches": matches,
    }
