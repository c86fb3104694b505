"""Game Centers: find them by place, see their tables and tournaments, host under them, and
read their earnings ("Profitability").

Reads are public. Opening a table or a Campeonato under a center needs the signed-in
wallet of the center's host (its renter while rented, else its owner): anyone else gets 403
and nothing is written. Coordinates are degrees here and hundredths of a degree in the
mirror (the contract's precision, about 1 km).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Request
from fastapi.concurrency import run_in_threadpool

from backend.api.deps import ChainReaderDep, CurrentPlayer, GateDep, HubDep, SessionDep, SettingsDep
from backend.api.params import ListLimit, error_responses
from backend.api.routers.tables import table_out
from backend.centers import service as centers
from backend.centers.models import GameCenter
from backend.centers.schemas import CenterOut
from backend.competitions import hosting
from backend.competitions import service as competitions
from backend.competitions import views as competition_views
from backend.competitions.schemas import CenterDetail, CenterTournamentIn
from backend.db.base import aware, utcnow
from backend.economy.chain_reader import ChainReader
from backend.tables import schemas as table_schemas
from backend.tables import service as tables
from backend.tables.schemas import CenterTableIn

router = APIRouter(prefix="/centers", tags=["centers"])
_ERRORS = error_responses(401, 403, 404, 409, 422, 503)

CenterId = Annotated[int, Path(ge=0, le=2**63 - 1)]


def _center_out(center: GameCenter, distance_km: float | None = None) -> dict[str, Any]:
    return {
        "center_id": center.center_id,
        "name": center.name,
        "country": center.country,
        "city": center.city,
        "lat": center.lat_e2 / 100,
        "lon": center.lon_e2 / 100,
        "capacity": center.capacity,
        "owner": center.owner,
        "renter": center.renter,
        "rented_until": aware(center.rented_until),
        "host": centers.host_of(center, utcnow()),
        "distance_km": distance_km,
    }


def _e2(degrees: float | None) -> int | None:
    return None if degrees is None else round(degrees * 100)


@router.get("", response_model=list[CenterOut], responses=_ERRORS)
def find_centers(
    session: SessionDep,
    lat: Annotated[float | None, Query(ge=-90, le=90, allow_inf_nan=False)] = None,
    lon: Annotated[float | None, Query(ge=-180, le=180, allow_inf_nan=False)] = None,
    q: Annotated[str | None, Query(max_length=centers.MAX_QUERY_CHARS)] = None,
    limit: Annotated[int, Query(ge=1, le=centers.MAX_LIMIT)] = centers.DEFAULT_LIMIT,
) -> list[dict[str, Any]]:
    """Centers nearest first from ``lat``/``lon`` (degrees), or by name without them;
    ``q`` narrows by name or city."""
    found = centers.find(session=session, lat_e2=_e2(lat), lon_e2=_e2(lon), query=q, limit=limit)
    return [_center_out(f.center, f.distance_km) for f in found]


@router.get("/{center_id}", response_model=CenterDetail, responses=_ERRORS)
def get_center(request: Request, center_id: CenterId, session: SessionDep) -> dict[str, Any]:
    """A center with its open public tables and its registering or running tournaments."""
    center = centers.get_center(session=session, center_id=center_id)
    return {
        **_center_out(center),
        "tables": [
            table_out(request, session, t)
            for t in tables.open_at_center(session=session, center_id=center_id)
        ],
        "tournaments": [
            competition_views.summary(t)
            for t in hosting.center_tournaments(session=session, center_id=center_id)
        ],
    }


@router.post(
    "/{center_id}/tables",
    response_model=table_schemas.TableOut,
    status_code=201,
    responses=_ERRORS,
)
async def open_table(
    request: Request,
    center_id: CenterId,
    body: CenterTableIn,
    player: CurrentPlayer,
    session: SessionDep,
    settings: SettingsDep,
    gate: GateDep,
    hub: HubDep,
) -> table_schemas.TableOut:
    """The center's host opens a table under it (options within the preset's; at most the
    center's capacity of open or playing tables)."""
    spec = tables.TableSpec(**body.model_dump(), kind="human", center_id=center_id)
    table = await run_in_threadpool(
        lambda: tables.create_table(
            session=session, settings=settings, gate=gate, creator=player.address, spec=spec
        )
    )
    await hub.table_changed(table.id)
    return await run_in_threadpool(table_out, request, session, table, player.address)


def _settlement_limit(reader: Callable[[], ChainReader], pool: int) -> int | None:
    """What the vault pays per match, read from the chain when the tournament has a pool."""
    if not pool:
        return None
    from backend.chain.exceptions import ChainError
    from backend.economy.exceptions import Unavailable

    try:
        return competitions.settlement_limit(reader().contracts)
    except (ChainError, OSError, ValueError) as error:
        raise Unavailable(
            f"cannot read the vault's settlement limit for a paid tournament now: {error}"
        ) from error


@router.post("/{center_id}/competitions", status_code=201, responses=_ERRORS)
def open_tournament(
    center_id: CenterId,
    body: CenterTournamentIn,
    player: CurrentPlayer,
    session: SessionDep,
    settings: SettingsDep,
    reader: ChainReaderDep,
) -> dict[str, Any]:
    """The center's host opens a Campeonato at the center."""
    spec = competitions.TournamentSpec(
        **body.model_dump(), tier=hosting.HOST_TIER, center_id=center_id
    )
    limit = _settlement_limit(reader, body.entry_fee * body.max_entrants)
    tournament = hosting.create_center_tournament(
        session=session, spec=spec, host=player.address, settlement_limit=limit, settings=settings
    )
    return competition_views.summary(tournament)


@router.get("/{center_id}/report", responses=_ERRORS)
def report(
    center_id: CenterId,
    session: SessionDep,
    season: Annotated[int | None, Query(ge=1, le=2**31 - 1)] = None,
    limit: ListLimit = 100,
) -> dict[str, Any]:
    """The center's share of fees from the matches and tournaments it hosted, per season, and
    per match (newest first, at most ``limit``) with the transaction that paid it."""
    return hosting.center_report(
        session=session, center_id=center_id, season_id=season, limit=limit
    )
