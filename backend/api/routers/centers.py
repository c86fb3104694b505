"""Game Centers: find them by place, see their tables and tournaments, host under them, and
read their earnings ("Profitability").

Reads are public. Opening a table or a Campeonato under a center needs the signed-in
wallet of the center's host (its renter while rented, else its owner): anyone else gets 403
and nothing is written. Coordinates are degrees here and hundredths of a degree in the
mirror (the contract's precision, about 1 km).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Query, Request
from fastapi.concurrency import run_in_threadpool
from pydantic import BaseModel, Field

from backend.api.deps import (
    ChainReaderDep,
    CurrentOperator,
    CurrentPlayer,
    GateDep,
    HubDep,
    SessionDep,
    SettingsDep,
    queued_once,
)
from backend.api.errors import ErrorResponse
from backend.api.routers.tables import table_out
from backend.centers import operator as center_minting
from backend.centers import service as centers
from backend.centers.models import GameCenter
from backend.competitions import hosting
from backend.competitions import service as competitions
from backend.competitions import views as competition_views
from backend.db.base import aware, utcnow
from backend.economy.chain_reader import ChainReader
from backend.tables import schemas as table_schemas
from backend.tables import service as tables

router = APIRouter(prefix="/centers", tags=["centers"])
# The operator's center mints (``/operator/centers``), kept beside the centers' routes.
operator_router = APIRouter(prefix="/operator", tags=["operator"])
_ERRORS: dict[int | str, dict[str, Any]] = {
    s: {"model": ErrorResponse} for s in (401, 403, 404, 409, 422, 503)
}

CenterId = Annotated[int, Path(ge=0, le=2**63 - 1)]
BotLevel = Literal["easy", "medium", "hard", "expert"]


class CenterOut(BaseModel):
    center_id: int
    name: str
    country: str
    city: str
    lat: float = Field(description="degrees, to the hundredth")
    lon: float
    capacity: int = Field(description="tables it may host at once")
    owner: str
    renter: str | None
    rented_until: datetime | None
    host: str = Field(description="who opens tables here and is paid its fee legs now")
    distance_km: float | None = Field(default=None, description="from the point searched")


class CenterDetail(CenterOut):
    tables: list[table_schemas.TableOut]
    tournaments: list[dict[str, Any]]


class CenterTableIn(BaseModel):
    """A table under the center: a public or private human table its host does not sit at."""

    preset: str = Field(max_length=64, examples=["dew200"])
    options: dict[str, int | str | bool] = Field(default_factory=dict, max_length=16)
    seats: int = Field(default=4, ge=2, le=4)
    stake: int = Field(default=0, ge=0, le=10**30, description="DEW base units; earning only")
    earning: bool = False
    visibility: Literal["public", "private"] = "public"
    bot_level: BotLevel = "medium"
    turn_timeout_s: float | None = Field(default=None, ge=1, le=600)
    spectators_allowed: bool = True
    spectator_delay_s: float = Field(default=0.0, ge=0, le=600)

    model_config = {"extra": "forbid"}


class CenterTournamentIn(BaseModel):
    """A Campeonato at the center (no added prize; the fee is the house's)."""

    name: str = Field(min_length=1, max_length=64)
    preset: str = Field(max_length=64)
    format: Literal["swiss", "elimination"] = "swiss"
    options: dict[str, int | str | bool] = Field(default_factory=dict, max_length=16)
    season_id: int | None = Field(default=None, ge=1, le=2**31 - 1)
    entry_fee: int = Field(default=0, ge=0, le=2**88 - 1, description="DEW wei")
    fee_bps: int = Field(default=0, ge=0, le=2_000)
    prize_bps: list[int] = Field(default_factory=lambda: [5000, 3000, 2000], max_length=16)
    min_entrants: int = Field(default=4, ge=2, le=4096)
    max_entrants: int = Field(default=16, ge=2, le=4096)
    starts_at: datetime | None = None
    round_every_s: float = Field(default=0.0, ge=0, le=7 * 86400)
    turn_timeout_s: float = Field(default=30.0, ge=1, le=600)
    bot_level: BotLevel = "medium"

    model_config = {"extra": "forbid"}


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
) -> dict[str, Any]:
    """The center's share of fees from the matches and tournaments it hosted, per season."""
    return hosting.center_report(session=session, center_id=center_id, season_id=season)


# --- the operator mints centers through the chain outbox -----------------------------------


class CenterMintIn(BaseModel):
    to: str = Field(pattern=r"^0x[0-9a-fA-F]{40}$", description="the center's first owner")
    name: str = Field(min_length=1, max_length=64)
    country: str = Field(pattern=r"^[A-Z]{2}$", description="ISO 3166-1 alpha-2")
    city: str = Field(min_length=1, max_length=64)
    lat: float = Field(ge=-90, le=90, allow_inf_nan=False, description="degrees")
    lon: float = Field(ge=-180, le=180, allow_inf_nan=False)
    capacity: int = Field(ge=center_minting.MIN_CAPACITY, le=center_minting.MAX_CAPACITY)
    idempotency_key: str = Field(pattern=r"^[A-Za-z0-9_.:-]{1,64}$")

    model_config = {"extra": "forbid"}


class CenterMintOut(BaseModel):
    id: int
    idempotency_key: str
    status: str = Field(description="queued | submitted | confirmed | failed")
    center: dict[str, Any]
    center_id: int | None = Field(description="the minted center, once confirmed")
    tx_hash: str | None
    failure_reason: str | None


@operator_router.post("/centers", response_model=CenterMintOut, status_code=202, responses=_ERRORS)
def queue_center_mint(
    body: CenterMintIn, request: Request, session: SessionDep, _operator: CurrentOperator
) -> Any:
    """Queue a Game Center mint; the worker sends it and the indexer mirrors it. A repeat of
    the same key and body returns the first request with 200; another body under it is 409."""
    center = center_minting.describe(
        to=body.to, name=body.name, country=body.country, city=body.city,
        lat_e2=round(body.lat * 100), lon_e2=round(body.lon * 100), capacity=body.capacity,
    )  # fmt: skip
    key = center_minting.CENTER_MINTS.key(body.idempotency_key)
    return queued_once(
        session,
        key,
        lambda: CenterMintOut(
            **(
                center_minting.queue_center_mint(
                    session=session,
                    center=center,
                    idempotency_key=body.idempotency_key,
                    chain_id=request.app.state.settings.chain.chain_id,
                )
            ).__dict__
        ),
    )


@operator_router.get("/centers/{request_id}", response_model=CenterMintOut, responses=_ERRORS)
def get_center_mint(
    request_id: Annotated[int, Path(ge=1, le=2**62)],
    session: SessionDep,
    _operator: CurrentOperator,
) -> CenterMintOut:
    """Where a center mint stands: ``center_id`` once the worker's transaction is final."""
    status = center_minting.center_mint_status(session=session, request_id=request_id)
    return CenterMintOut(**status.__dict__)
