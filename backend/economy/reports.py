"""Read-side views of the ledger for the API, the CLI and the demo: a wallet's summary (with
its markets book: purchases, sales, royalties, fees) and statement, an avatar's earnings
and shares, an owner's avatars, a scholar's earnings, the
season schedule and a season's leaderboard. Nothing here writes.
"""

from __future__ import annotations

import time

from sqlalchemy import select
from sqlalchemy.orm import Session

from backend.db.base import aware, utcnow
from backend.economy.counts import Count
from backend.economy.models import (
    AgreementMirror,
    AgreementStatus,
    LedgerLeg,
    LegStatus,
    PlannedSettlement,
    Season,
    SeasonReward,
    SeatRecord,
    SettlementStatus,
)
from backend.economy.seasons import get_season
from backend.economy.stakes import checksum as checksum  # the API normalizes addresses with it
from backend.markets import service as markets


def season_rewards(
    *, session: Session, season_ids: list[int] | None = None
) -> dict[int, list[dict[str, object]]]:
    """Each season's reward table, place by place, with the place's payout from the ledger.

    A place is ``reserved`` until the season's one settlement is planned, then ``planned``
    (booked, pending on chain), ``paid`` or ``failed`` as its ledger legs stand, or
    ``returned`` when nobody reached it. A payout names the wallet paid, or the avatar (its
    reward split on chain among the avatar's parties), the amount booked and the settlement's
    transaction. Three queries whatever the number of seasons (no chain calls)."""
    query = select(SeasonReward)
    if season_ids is not None:
        query = query.where(SeasonReward.season_id.in_(season_ids))
    tables = list(session.scalars(query))
    keys = [r.settlement_key for r in tables if r.planned_at is not None]
    settlements = (
        {
            s.match_id: s
            for s in session.scalars(
                select(PlannedSettlement).where(PlannedSettlement.match_id.in_(keys))
            )
        }
        if keys
        else {}
    )
    legs: dict[tuple[str, int], list[LedgerLeg]] = {}
    if keys:
        for leg in session.scalars(
            select(LedgerLeg).where(LedgerLeg.match_id.in_(keys)).order_by(LedgerLeg.id)
        ):
            if leg.seat is not None and leg.party != "treasury":
                legs.setdefault((leg.match_id, leg.seat), []).append(leg)
    out: dict[int, list[dict[str, object]]] = {}
    for table in tables:
        settlement = settlements.get(table.settlement_key)
        places = []
        for place, amount in enumerate(table.places, start=1):
            mine = legs.get((table.settlement_key, place), [])
            wallet = next((x.address for x in mine if x.avatar_id is None), None)
            avatar = next((x.avatar_id for x in mine if x.avatar_id is not None), None)
            if table.planned_at is None:
                state = "reserved"
            elif not mine:
                state = "returned"
            elif any(x.status == LegStatus.FAILED for x in mine):
                state = "failed"
            elif all(x.status == LegStatus.PAID for x in mine):
                state = "paid"
            else:
                state = "planned"
            places.append(
                {
                    "place": place,
                    "amount": int(amount),
                    "status": state,
                    "address": wallet,
                    "avatar_id": avatar,
                    "paid": sum(int(x.amount) for x in mine) if mine else None,
                    "tx_hash": settlement.tx_hash if settlement is not None and mine else None,
                }
            )
        out[table.season_id] = places
    return out


def season_schedule(*, session: Session) -> list[dict[str, object]]:
    """Every season with its budget, state and reward table (empty when it has none)."""
    now = utcnow()
    out = []
    rewards = season_rewards(session=session)
    for s in session.scalars(select(Season).order_by(Season.starts_at)):
        starts, ends = aware(s.starts_at), aware(s.ends_at)
        state = "upcoming" if now < starts else "running" if now < ends else "finished"
        out.append(
            {
                "id": s.id,
                "name": s.name,
                "starts_at": starts,
                "ends_at": ends,
                "status": state,
                "emission_budget": int(s.emission_budget),
                "emitted": int(s.emitted),
                "remaining": int(s.emission_budget) - int(s.emitted),
                "rewards": rewards.get(s.id, []),
            }
        )
    return out


def wallet_summary(*, session: Session, address: str) -> dict[str, object]:
    """Earned (pending + paid), pending, paid and failed DEW of one wallet, by role."""
    address = checksum(address)
    totals = {"pending": 0, "paid": 0, "failed": 0}
    by_party: dict[str, dict[str, int]] = {}
    for leg in session.scalars(select(LedgerLeg).where(LedgerLeg.address == address)):
        totals[leg.status] += int(leg.amount)
        party = by_party.setdefault(leg.party, {"pending": 0, "paid": 0, "failed": 0})
        party[leg.status] += int(leg.amount)
    book = markets.wallet_report(session=session, address=address, limit=0)
    return {
        "address": address,
        "earned": totals["pending"] + totals["paid"],
        **totals,
        "by_role": by_party,
        # Shop and market purchases, sales, royalties and fees (backend.markets.ledger):
        # DEW that moved between wallets, not rewards, so not in the totals above.
        "markets": {k: v for k, v in book.items() if k not in ("address", "lines")},
    }


def wallet_statement(
    *, session: Session, address: str, limit: int = 200
) -> list[dict[str, object]]:
    """A wallet's ledger lines, newest first: match, role, avatar, amount, status, tx hash."""
    address = checksum(address)
    rows = session.execute(
        select(LedgerLeg, PlannedSettlement.tx_hash, PlannedSettlement.finished_at)
        .join(PlannedSettlement, PlannedSettlement.match_id == LedgerLeg.match_id)
        .where(LedgerLeg.address == address)
        .order_by(PlannedSettlement.finished_at.desc(), LedgerLeg.id.desc())
        .limit(limit)
    ).all()
    return [
        {
            "match_id": leg.match_id,
            "role": leg.party,
            "avatar_id": leg.avatar_id,
            "agreement_id": leg.agreement_id,
            "amount": int(leg.amount),
            "status": leg.status,
            "tx_hash": tx_hash,
            "finished_at": aware(finished_at),
        }
        for leg, tx_hash, finished_at in rows
    ]


def agreement_status(agreement: AgreementMirror | None, now_s: int | None = None) -> str:
    """The mirror's status, with a term that ran out shown as ``expired`` before ``close``."""
    if agreement is None:
        return "none"
    now_s = int(time.time()) if now_s is None else now_s
    if agreement.status == AgreementStatus.ACTIVE and (agreement.ends_at or 0) <= now_s:
        return "expired"
    if agreement.status == AgreementStatus.ENDED:
        return agreement.ended_by or "ended"
    return agreement.status


def avatar_report(
    *, session: Session, avatar_id: int, now_s: int | None = None
) -> dict[str, object]:
    """Matches, wins, gross earnings and each party's share of one avatar.

    ``now_s`` is chain time (unix seconds) for judging expiry; default: the wall clock."""
    records = list(session.scalars(select(SeatRecord).where(SeatRecord.avatar_id == avatar_id)))
    legs = list(session.scalars(select(LedgerLeg).where(LedgerLeg.avatar_id == avatar_id)))
    shares = {"owner": 0, "manager": 0, "scholar": 0}
    for leg in legs:
        if leg.status != LegStatus.FAILED and leg.party in shares:
            shares[leg.party] += int(leg.amount)
    # The active agreement if any (a newer open offer must not hide it), else the latest.
    latest = session.scalars(
        select(AgreementMirror)
        .where(AgreementMirror.avatar_id == avatar_id)
        .order_by(
            (AgreementMirror.status == AgreementStatus.ACTIVE).desc(), AgreementMirror.id.desc()
        )
    ).first()
    gross = sum(
        int(r.emission_share)
        for r in records
        if r.to_avatar and _settlement_status(session, r.match_id) != SettlementStatus.FAILED
    )
    return {
        "avatar_id": avatar_id,
        "matches": len(records),
        "wins": sum(1 for r in records if r.won),
        "gross": gross,
        "owner_share": shares["owner"],
        "manager_share": shares["manager"],
        "scholar_share": shares["scholar"],
        "paid": sum(int(x.amount) for x in legs if x.status == LegStatus.PAID),
        "pending": sum(int(x.amount) for x in legs if x.status == LegStatus.PENDING),
        "agreement_id": latest.id if latest else None,
        "agreement_terms": latest.terms if latest else None,
        "agreement_status": agreement_status(latest, now_s),
        "scholar": latest.scholar if latest else None,
    }


def _settlement_status(session: Session, match_id: str) -> str:
    settlement = session.get(PlannedSettlement, match_id)
    return settlement.status if settlement else "unknown"


def owner_view(
    *, session: Session, owner: str, now_s: int | None = None
) -> list[dict[str, object]]:
    """One row per avatar the owner has offered or been paid for."""
    owner = checksum(owner)
    avatars = set(
        session.scalars(select(AgreementMirror.avatar_id).where(AgreementMirror.owner == owner))
    ) | {
        avatar_id
        for avatar_id in session.scalars(
            select(LedgerLeg.avatar_id).where(
                LedgerLeg.address == owner,
                LedgerLeg.party == "owner",
                LedgerLeg.avatar_id.is_not(None),
            )
        )
        if avatar_id is not None
    }
    return [avatar_report(session=session, avatar_id=a, now_s=now_s) for a in sorted(avatars)]


def scholar_earnings(
    *, session: Session, scholar: str, now_s: int | None = None
) -> dict[str, object]:
    """What a scholar earned, per avatar they played, plus the totals."""
    scholar = checksum(scholar)
    per_avatar: dict[int, dict[str, int]] = {}
    for leg in session.scalars(
        select(LedgerLeg).where(LedgerLeg.address == scholar, LedgerLeg.party == "scholar")
    ):
        row = per_avatar.setdefault(leg.avatar_id or 0, {"pending": 0, "paid": 0, "failed": 0})
        row[leg.status] += int(leg.amount)
    agreements = list(
        session.scalars(
            select(AgreementMirror)
            .where(AgreementMirror.scholar == scholar)
            .order_by(AgreementMirror.id)
        )
    )
    return {
        "address": scholar,
        "paid": sum(r["paid"] for r in per_avatar.values()),
        "pending": sum(r["pending"] for r in per_avatar.values()),
        "avatars": [{"avatar_id": a, **v} for a, v in sorted(per_avatar.items())],
        "agreements": [
            {
                "agreement_id": a.id,
                "avatar_id": a.avatar_id,
                "owner": a.owner,
                "terms": a.terms,
                "status": agreement_status(a, now_s),
                "ends_at": a.ends_at,
                "rent": int(a.rent),
                "rent_refunded": int(a.rent_refunded),
            }
            for a in agreements
        ],
    }


def season_leaderboard(
    *, session: Session, season_id: int, limit: int = 50
) -> list[dict[str, object]]:
    """Players of a season by wins, then points (game points scored), then address, over the
    seats the one rule counts for the leaderboard (``counts``: contested earning matches; no
    free, practice, same-device or bots-only match); ``reward`` is the season's reward for
    the row's place (``None`` beyond its table)."""
    get_season(session=session, season_id=season_id)
    table = session.get(SeasonReward, season_id)
    amounts = [int(a) for a in table.places] if table is not None else []
    rows: dict[str, dict[str, int]] = {}
    for r in session.scalars(
        select(SeatRecord).where(
            SeatRecord.season_id == season_id, SeatRecord.counted_for(Count.LEADERBOARD)
        )
    ):
        assert r.address is not None
        row = rows.setdefault(r.address, {"matches": 0, "wins": 0, "points": 0, "earned": 0})
        row["matches"] += 1
        row["wins"] += int(r.won)
        row["points"] += r.points
        row["earned"] += int(r.amount)
    ranked = sorted(rows.items(), key=lambda kv: (-kv[1]["wins"], -kv[1]["points"], kv[0]))
    return [
        {
            "rank": i + 1,
            "address": address,
            **values,
            "reward": amounts[i] if i < len(amounts) else None,
        }
        for i, (address, values) in enumerate(ranked[:limit])
    ]
