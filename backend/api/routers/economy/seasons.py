"""Seasons (``/economy/seasons``): the schedule with budgets and reward tables, and each
season's leaderboard."""

from __future__ import annotations

from typing import Any, cast

from fastapi import APIRouter

from backend.api.deps import SessionDep
from backend.api.params import Id31 as SeasonId
from backend.api.params import ListLimit, described_errors
from backend.economy import reports, schemas

router = APIRouter(prefix="/seasons")
_ERRORS = described_errors(404, 409, 422, 503)


@router.get("", response_model=list[schemas.SeasonOut])
def seasons(session: SessionDep) -> list[schemas.SeasonOut]:
    """The season schedule: upcoming, running and finished seasons with their budgets and
    reward tables (each place's payout from the ledger once the season's rewards are planned)."""
    rows = reports.season_schedule(session=session)
    return [
        schemas.SeasonOut(
            **{
                **schemas.wei_strings(r, "emission_budget", "emitted", "remaining"),
                "rewards": [_reward_place(p) for p in cast(list[dict[str, Any]], r["rewards"])],
            }
        )
        for r in rows
    ]


def _reward_place(place: dict[str, Any]) -> schemas.SeasonRewardPlaceOut:
    paid = place["paid"]
    return schemas.SeasonRewardPlaceOut(
        **{**schemas.wei_strings(place, "amount"), "paid": None if paid is None else str(paid)}
    )


@router.get(
    "/{season_id}/leaderboard",
    response_model=list[schemas.LeaderboardRowOut],
    responses=_ERRORS,
)
def leaderboard(
    season_id: SeasonId, session: SessionDep, limit: ListLimit = 50
) -> list[schemas.LeaderboardRowOut]:
    """Players of a season by wins, then game points; ``reward`` is the season's reward for
    the row's place when the season has a reward table."""
    rows = reports.season_leaderboard(session=session, season_id=season_id, limit=limit)
    return [
        schemas.LeaderboardRowOut(
            **{
                **schemas.wei_strings(r, "earned"),
                "reward": None if r["reward"] is None else str(r["reward"]),
            }
        )
        for r in rows
    ]
