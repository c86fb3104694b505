"""Operator-only routes (``/operator``): avatar mints, VIP passes, shop listings and Game
Center mints through the chain outbox, and seasons.

Every route needs a signed-in wallet listed in ``DEW_OPERATOR_ADDRESSES``
(``deps.CurrentOperator``): anyone else gets 401 or 403 and nothing is read or written.
They do what ``dew mint-avatars``, ``dew vip issue|revoke`` and ``dew season
create|schedule`` do, through the same services (``backend.economy.operator``,
``backend.markets.operator``, ``backend.centers.operator``); a mint, a VIP pass, a shop
listing or a center is queued in the outbox and sent by the worker, never from here. Their
``idempotency_key`` makes a retried request safe: the same key returns the first request
(200), another body under it is refused (409).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from fastapi import APIRouter, Request
from sqlalchemy.orm import Session

from backend.api.deps import CurrentOperator, MarketsDep, SessionDep, queued_once
from backend.api.params import Id31, Id63, RequestId, error_responses, out_of
from backend.centers import operator as center_minting
from backend.centers.schemas import CenterMintIn, CenterMintOut
from backend.db.base import aware
from backend.economy import operator
from backend.economy.models import Season
from backend.economy.schemas import (
    MintIn,
    MintOut,
    OperatorSeasonOut,
    ScheduleIn,
    SeasonIn,
    VipIn,
    VipOut,
)
from backend.kit.rows import columns
from backend.markets import operator as markets_operator
from backend.markets import service as markets_service
from backend.markets.jobs import MarketsChain
from backend.markets.schemas import ShopCloseIn, ShopListIn, ShopRequestOut

router = APIRouter(prefix="/operator", tags=["operator"])
_ERRORS = error_responses(401, 403, 404, 409, 422)
# The center mints answer as the centers' routes do (503 too: the mirror's chain).
_CENTER_ERRORS = error_responses(401, 403, 404, 409, 422, 503)


def _season_out(session: Session, season: Season) -> OperatorSeasonOut:
    places = operator.season_reward_places(session=session, season_id=season.id)
    return out_of(
        OperatorSeasonOut,
        season,
        rewards=[str(a) for a in places],
        starts_at=aware(season.starts_at),
        ends_at=aware(season.ends_at),
    )


@router.post("/mints", response_model=MintOut, status_code=202, responses=_ERRORS)
def queue_mint(
    body: MintIn, request: Request, session: SessionDep, _operator: CurrentOperator
) -> Any:
    """Queue one avatar mint per recipient; the worker sends it (poll the GET for the ids).
    A repeat of the same key and recipients returns the first request with 200."""
    return queued_once(
        request,
        session,
        operator.MINTS,
        MintOut,
        operator.queue_mint,
        idempotency_key=body.idempotency_key,
        recipients=body.recipients,
    )


@router.get("/mints/{request_id}", response_model=MintOut, responses=_ERRORS)
def get_mint(request_id: RequestId, session: SessionDep, _operator: CurrentOperator) -> MintOut:
    """Where a mint stands: ``token_ids`` once the worker's transaction is confirmed."""
    return out_of(MintOut, operator.mint_status(session=session, request_id=request_id))


@router.post("/seasons", response_model=OperatorSeasonOut, status_code=201, responses=_ERRORS)
def create_season(
    body: SeasonIn, session: SessionDep, _operator: CurrentOperator
) -> OperatorSeasonOut:
    """Open a season with an emission budget; overlapping another season is refused (422)."""
    season = operator.create_season(
        session=session,
        **columns(body, "name starts_at ends_at"),
        emission_budget=int(body.emission_budget),
        rewards=[int(a) for a in body.rewards],
    )
    session.commit()
    return _season_out(session, season)


@router.post(
    "/seasons/schedule", response_model=list[OperatorSeasonOut], status_code=201, responses=_ERRORS
)
def schedule_seasons(
    body: ScheduleIn, session: SessionDep, _operator: CurrentOperator
) -> list[OperatorSeasonOut]:
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


@router.post("/seasons/{season_id}/end", response_model=OperatorSeasonOut, responses=_ERRORS)
def end_season(
    season_id: Id31, session: SessionDep, _operator: CurrentOperator
) -> OperatorSeasonOut:
    """End a running season now: its reward table becomes due and the worker pays it."""
    season = operator.end_season(session=session, season_id=season_id)
    session.commit()
    return _season_out(session, season)


@router.post("/vip", response_model=VipOut, status_code=202, responses=_ERRORS)
def queue_vip(
    body: VipIn, request: Request, session: SessionDep, _operator: CurrentOperator
) -> Any:
    """Queue a VIP pass issue or revoke; the worker sends it (poll the GET). A repeat of the
    same key and body returns the first request with 200; another body under it is 409."""
    return queued_once(
        request,
        session,
        operator.VIPS,
        VipOut,
        operator.queue_vip,
        idempotency_key=body.idempotency_key,
        action=body.action,
        address=body.address,
        expires_at=body.expires_at,
    )


@router.get("/vip/{request_id}", response_model=VipOut, responses=_ERRORS)
def get_vip(request_id: RequestId, session: SessionDep, _operator: CurrentOperator) -> VipOut:
    """Where a VIP request stands: ``confirmed`` once the worker's transaction is final."""
    return out_of(VipOut, operator.vip_status(session=session, request_id=request_id))


# --- the shop (docs/economy.md, "Markets") -----------------------------------------------


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
    return queued_once(
        request,
        session,
        markets_operator.SHOP,
        ShopRequestOut,
        markets_operator.queue_listing,
        idempotency_key=body.idempotency_key,
        **columns(body, "item_kind item_id supply vip_term_s name image slot max_supply uri"),
        item=_item_address(markets, body.item_kind),
        price=int(body.price),
    )


@router.post(
    "/shop/{listing_id}", response_model=ShopRequestOut, status_code=202, responses=_ERRORS
)
def queue_shop_update(
    listing_id: Id63,
    body: ShopCloseIn,
    request: Request,
    session: SessionDep,
    _operator: CurrentOperator,
) -> Any:
    """Change a shop listing's price or close it (``open: false``, the default)."""
    markets_operator.SHOP.key(body.idempotency_key)  # a bad key is refused before any read
    price = body.price
    if price is None:
        price = markets_service.get_shop_listing(session=session, listing_id=listing_id).price
    return queued_once(
        request,
        session,
        markets_operator.SHOP,
        ShopRequestOut,
        markets_operator.queue_update,
        idempotency_key=body.idempotency_key,
        listing_id=listing_id,
        price=int(price),
        open_=body.open,
    )


@router.get("/shop/requests/{request_id}", response_model=ShopRequestOut, responses=_ERRORS)
def get_shop_request(
    request_id: RequestId, session: SessionDep, _operator: CurrentOperator
) -> ShopRequestOut:
    """Where a shop request stands: ``listing_id`` once the listing is confirmed."""
    status = markets_operator.request_status(session=session, request_id=request_id)
    return out_of(ShopRequestOut, status)


# --- Game Centers: minted through the chain outbox, mirrored by the indexer -----------------


@router.post("/centers", response_model=CenterMintOut, status_code=202, responses=_CENTER_ERRORS)
def queue_center_mint(
    body: CenterMintIn, request: Request, session: SessionDep, _operator: CurrentOperator
) -> Any:
    """Queue a Game Center mint; the worker sends it and the indexer mirrors it. A repeat of
    the same key and body returns the first request with 200; another body under it is 409."""
    center = center_minting.describe(
        to=body.to, name=body.name, country=body.country, city=body.city,
        lat_e2=round(body.lat * 100), lon_e2=round(body.lon * 100), capacity=body.capacity,
    )  # fmt: skip
    return queued_once(
        request,
        session,
        center_minting.CENTER_MINTS,
        CenterMintOut,
        center_minting.queue_center_mint,
        idempotency_key=body.idempotency_key,
        center=center,
    )


@router.get("/centers/{request_id}", response_model=CenterMintOut, responses=_CENTER_ERRORS)
def get_center_mint(
    request_id: RequestId, session: SessionDep, _operator: CurrentOperator
) -> CenterMintOut:
    """Where a center mint stands: ``center_id`` once the worker's transaction is final."""
    status = center_minting.center_mint_status(session=session, request_id=request_id)
    return out_of(CenterMintOut, status)
