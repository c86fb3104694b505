"""Operator-only routes: avatar mints, VIP passes and shop listings through the chain
outbox, and seasons.

Every route needs a signed-in wallet listed in ``DEW_OPERATOR_ADDRESSES``
(``deps.CurrentOperator``): anyone else gets 401 or 403 and nothing is read or written.
They do what ``dew mint-avatars``, ``dew vip issue|revoke`` and ``dew season
create|schedule`` do, through the same services (``backend.economy.operator``); a mint or a
VIP pass is queued in the outbox and sent by the worker, never from here. Their
``idempotency_key`` makes a retried request safe: the same key returns the first request
(200), another body under it is refused (409).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Request
from pydantic import BaseModel, Field
from sqlalchemy.orm import Session

from backend.api.deps import CurrentOperator, MarketsDep, SessionDep, queued_once
from backend.api.errors import ErrorResponse
from backend.db.base import aware
from backend.economy import operator, season_rewards
from backend.economy.models import Season
from backend.markets import operator as markets_operator
from backend.markets import service as markets_service
from backend.markets.jobs import MarketsChain
from backend.markets.schemas import ShopCloseIn, ShopListIn, ShopRequestOut

router = APIRouter(prefix="/operator", tags=["operator"])
_ERRORS: dict[int | str, dict[str, Any]] = {
    s: {"model": ErrorResponse} for s in (401, 403, 404, 409, 422)
}

Address = Annotated[str, Field(pattern=r"^0x[0-9a-fA-F]{40}$")]
Key = Annotated[str, Field(pattern=r"^[A-Za-z0-9_.:-]{1,64}$")]
Wei = Annotated[str, Field(pattern=r"^[0-9]{1,31}$", description="DEW wei, decimal string")]


class MintIn(BaseModel):
    recipients: list[Address] = Field(min_length=1, max_length=operator.MAX_MINT_RECIPIENTS)
    idempotency_key: Key = Field(description="the same key returns the same mint request")

    model_config = {"extra": "forbid"}


class MintOut(BaseModel):
    id: int
    idempotency_key: str
    status: str = Field(description="queued | submitted | confirmed | failed | waiting")
    recipients: list[str]
    token_ids: list[int] | None = Field(description="the minted avatars, once confirmed")
    tx_hash: str | None
    failure_reason: str | None


class SeasonIn(BaseModel):
    name: str = Field(min_length=1, max_length=64)
    starts_at: datetime
    ends_at: datetime
    emission_budget: Wei
    rewards: list[Wei] = Field(
        default_factory=list,
        max_length=season_rewards.MAX_PLACES,
        description="DEW wei per leaderboard place (place 1 first), paid at the season's end "
        "and reserved from its budget now",
    )

    model_config = {"extra": "forbid"}


class ScheduleIn(BaseModel):
    first_starts_at: datetime
    count: int = Field(ge=1, le=100)
    length_s: int = Field(ge=60, le=366 * 86400, description="each season's length")
    emission_budget: Wei = Field(description="each season's budget")
    name_prefix: str = Field(default="Season", min_length=1, max_length=48)

    model_config = {"extra": "forbid"}


class SeasonOut(BaseModel):
    id: int
    name: str
    starts_at: datetime
    ends_at: datetime
    emission_budget: str
    emitted: str
    rewards: list[str] = Field(description="DEW wei per leaderboard place, place 1 first")


def _season_out(session: Session, season: Season) -> SeasonOut:
    places = operator.season_reward_places(session=session, season_id=season.id)
    return SeasonOut(
        rewards=[str(a) for a in places],
        id=season.id,
        name=season.name,
        starts_at=aware(season.starts_at),
        ends_at=aware(season.ends_at),
        emission_budget=season.emission_budget,
        emitted=season.emitted,
    )


def _mint_out(status: operator.MintStatus) -> MintOut:
    return MintOut(**status.__dict__)


@router.post("/mints", response_model=MintOut, status_code=202, responses=_ERRORS)
def queue_mint(
    body: MintIn, request: Request, session: SessionDep, _operator: CurrentOperator
) -> Any:
    """Queue one avatar mint per recipient; the worker sends it (poll the GET for the ids).
    A repeat of the same key and recipients returns the first request with 200."""
    key = operator.MINTS.key(body.idempotency_key)
    return queued_once(
        session,
        key,
        lambda: _mint_out(
            operator.queue_mint(
                session=session,
                recipients=body.recipients,
                idempotency_key=body.idempotency_key,
                chain_id=request.app.state.settings.chain.chain_id,
            )
        ),
    )


@router.get("/mints/{request_id}", response_model=MintOut, responses=_ERRORS)
def get_mint(
    request_id: Annotated[int, Path(ge=1, le=2**62)],
    session: SessionDep,
    _operator: CurrentOperator,
) -> MintOut:
    """Where a mint stands: ``token_ids`` once the worker's transaction is confirmed."""
    return _mint_out(operator.mint_status(session=session, request_id=request_id))


@router.post("/seasons", response_model=SeasonOut, status_code=201, responses=_ERRORS)
def create_season(body: SeasonIn, session: SessionDep, _operator: CurrentOperator) -> SeasonOut:
    """Open a season with an emission budget; overlapping another season is refused (422)."""
    season = operator.create_season(
        session=session,
        name=body.name,
        starts_at=body.starts_at,
        ends_at=body.ends_at,
        emission_budget=int(body.emission_budget),
        rewards=[int(a) for a in body.rewards],
    )
    session.commit()
    return _season_out(session, season)


@router.post(
    "/seasons/schedule", response_model=list[SeasonOut], status_code=201, responses=_ERRORS
)
def schedule_seasons(
    body: ScheduleIn, session: SessionDep, _operator: CurrentOperator
) -> list[SeasonOut]:
    """``count`` back-to-back seasons named ``<prefix> 1..count``: all of them or none."""
    created = operator.schedule_seasons(
        session=session,
        first_starts_at=body.first_starts_at,
        count=body.count,
        length=timedelta(seconds=body.length_s),
        emission_budget=int(body.emission_budget),
        name_prefix=body.name_prefix,
    )
    session.commit()
    return [_season_out(session, s) for s in created]


@router.post("/seasons/{season_id}/end", response_model=SeasonOut, responses=_ERRORS)
def end_season(
    season_id: Annotated[int, Path(ge=1, le=2**31 - 1)],
    session: SessionDep,
    _operator: CurrentOperator,
) -> SeasonOut:
    """End a running season now: its reward table becomes due and the worker pays it."""
    season = operator.end_season(session=session, season_id=season_id)
    session.commit()
    return _season_out(session, season)


class VipIn(BaseModel):
    action: Literal["issue", "revoke"]
    address: Address = Field(description="the pass holder")
    expires_at: int | None = Field(
        default=None,
        ge=1,
        le=2**64 - 1,
        description="issue only: the pass's expiry, unix seconds, as VIPPass.issue takes it",
    )
    idempotency_key: Key = Field(description="the same key returns the same VIP request")

    model_config = {"extra": "forbid"}


class VipOut(BaseModel):
    id: int
    idempotency_key: str
    action: str
    address: str
    expires_at: int | None
    status: str = Field(description="queued | submitted | confirmed | failed")
    tx_hash: str | None
    failure_reason: str | None


@router.post("/vip", response_model=VipOut, status_code=202, responses=_ERRORS)
def queue_vip(
    body: VipIn, request: Request, session: SessionDep, _operator: CurrentOperator
) -> Any:
    """Queue a VIP pass issue or revoke; the worker sends it (poll the GET). A repeat of the
    same key and body returns the first request with 200; another body under it is 409."""
    key = operator.VIPS.key(body.idempotency_key)
    return queued_once(
        session,
        key,
        lambda: VipOut(
            **(
                operator.queue_vip(
                    session=session,
                    action=body.action,
                    address=body.address,
                    expires_at=body.expires_at,
                    idempotency_key=body.idempotency_key,
                    chain_id=request.app.state.settings.chain.chain_id,
                )
            ).__dict__
        ),
    )


@router.get("/vip/{request_id}", response_model=VipOut, responses=_ERRORS)
def get_vip(
    request_id: Annotated[int, Path(ge=1, le=2**62)],
    session: SessionDep,
    _operator: CurrentOperator,
) -> VipOut:
    """Where a VIP request stands: ``confirmed`` once the worker's transaction is final."""
    return VipOut(**operator.vip_status(session=session, request_id=request_id).__dict__)


# --- the shop (docs/economy.md, "Markets") -----------------------------------------------


def _shop_out(status: markets_operator.ShopRequest) -> ShopRequestOut:
    return ShopRequestOut(**status.__dict__)


def _item_address(markets: MarketsChain, item_kind: str) -> str:
    contracts = markets.builder.contracts
    return str(
        {
            "avatar": contracts.avatar.address,
            "accessory": contracts.accessories.address,
            "vip": contracts.vip.address,
        }[item_kind]
    )


@router.post("/shop", response_model=ShopRequestOut, status_code=202, responses=_ERRORS)
def queue_shop_listing(
    body: ShopListIn,
    request: Request,
    session: SessionDep,
    _operator: CurrentOperator,
    markets: MarketsDep,
) -> Any:
    """List an item type for sale in the shop (an accessory type not defined yet is defined
    first with ``max_supply``); the worker sends it (poll the GET for the listing id). A
    repeat of the same key and body returns the first request with 200; another body 409."""
    key = markets_operator.SHOP.key(body.idempotency_key)
    return queued_once(
        session,
        key,
        lambda: _shop_out(
            markets_operator.queue_listing(
                session=session,
                item_kind=body.item_kind,
                item=_item_address(markets, body.item_kind),
                item_id=body.item_id,
                price=int(body.price),
                supply=body.supply,
                vip_term_s=body.vip_term_s,
                name=body.name,
                image=body.image,
                slot=body.slot,
                max_supply=body.max_supply,
                uri=body.uri,
                idempotency_key=body.idempotency_key,
                chain_id=request.app.state.settings.chain.chain_id,
            )
        ),
    )


@router.post(
    "/shop/{listing_id}", response_model=ShopRequestOut, status_code=202, responses=_ERRORS
)
def queue_shop_update(
    listing_id: Annotated[int, Path(ge=1, le=2**63 - 1)],
    body: ShopCloseIn,
    request: Request,
    session: SessionDep,
    _operator: CurrentOperator,
) -> Any:
    """Change a shop listing's price or close it (``open: false``, the default)."""
    key = markets_operator.SHOP.key(body.idempotency_key)
    price = body.price
    if price is None:
        price = markets_service.get_shop_listing(session=session, listing_id=listing_id).price
    return queued_once(
        session,
        key,
        lambda: _shop_out(
            markets_operator.queue_update(
                session=session,
                listing_id=listing_id,
                price=int(price),
                open_=body.open,
                idempotency_key=body.idempotency_key,
                chain_id=request.app.state.settings.chain.chain_id,
            )
        ),
    )


@router.get("/shop/requests/{request_id}", response_model=ShopRequestOut, responses=_ERRORS)
def get_shop_request(
    request_id: Annotated[int, Path(ge=1, le=2**62)],
    session: SessionDep,
    _operator: CurrentOperator,
) -> ShopRequestOut:
    """Where a shop request stands: ``listing_id`` once the listing is confirmed."""
    return _shop_out(markets_operator.request_status(session=session, request_id=request_id))
