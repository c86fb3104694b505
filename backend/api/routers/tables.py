"""Tables (``/tables``): create, the lobby, the limits, invitations, join, leave and start
with bots. The presets, matchmaking, matches and results have their own prefixes."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.concurrency import run_in_threadpool
from sqlalchemy.orm import Session
from web3 import Web3

from backend.api import deps
from backend.api.deps import CurrentPlayer, GateDep, HubDep, SessionDep, SettingsDep
from backend.api.params import error_responses, out_of
from backend.economy.fees.schedule import BPS, FeeSchedule
from backend.kit.rows import columns
from backend.tables import exceptions as exc
from backend.tables import schemas
from backend.tables import service as tables
from backend.tables.models import Table

router = APIRouter(prefix="/tables", tags=["tables"])

_ERRORS = error_responses(401, 403, 404, 409, 422, 503)


def checksum_address(text: str) -> str:
    """``text`` as an EIP-55 address; anything else is a bad request."""
    if not Web3.is_address(text):
        raise exc.InvalidRequest(f"{text!r} is not an Ethereum address")
    return Web3.to_checksum_address(text)


def table_out(
    request: Request, session: Session, table: Table, viewer: str | None = None
) -> schemas.TableOut:
    seats = tables.seats_of(session=session, table_id=table.id)
    mine = viewer is not None and viewer == table.creator
    return out_of(
        schemas.TableOut,
        table,
        seats=[out_of(schemas.SeatOut, s) for s in seats],
        invite_code=table.invite_code if mine else None,
        invite_link=_invite_link(request, table) if mine else None,
        ws_path=f"/ws/tables/{table.id}",
        fees=table_fees(request.app.state.settings, table),
    )


def table_fees(settings: Any, table: Table) -> schemas.FeesOut:
    """The table's fees from the one fee schedule: a staked table's pot pays the rake (other
    tables take no fee); a center's share only where a center hosts the table."""
    schedule = FeeSchedule.from_settings(settings.fees)
    center_id = getattr(table, "center_id", None)
    staked = table.earning and int(table.stake or 0) > 0
    center_bps = schedule.center_bps if center_id is not None else 0
    return schemas.FeesOut(
        rake_bps=schedule.rake_bps if staked else 0,
        treasury_bps=BPS - center_bps - schedule.creator_bps,
        center_bps=center_bps,
        creator_bps=schedule.creator_bps,
        center_id=center_id,
    )


def _invite_link(request: Request, table: Table) -> str:
    """The web client's page for the table, under the configured public URL: never built
    from the request's Host header, which the caller chooses."""
    settings = request.app.state.settings
    base = settings.tables.public_url or settings.auth.uri
    return f"{base.rstrip('/')}/#/table/{table.id}?invite={table.invite_code}"


@router.post("", response_model=schemas.TableOut, status_code=201, responses=_ERRORS)
async def create_table(
    request: Request,
    body: schemas.TableCreate,
    player: CurrentPlayer,
    session: SessionDep,
    settings: SettingsDep,
    gate: GateDep,
    hub: HubDep,
) -> schemas.TableOut:
    """Create a table. Practice and AI tables are filled with bots and start at once."""
    spec = tables.TableSpec(
        **{**body.model_dump(), "invite": [checksum_address(a) for a in body.invite]}
    )
    await run_in_threadpool(deps.terms_for_play, session, settings, player.address, spec)
    table = await run_in_threadpool(
        lambda: tables.create_table(
            session=session, settings=settings, gate=gate, creator=player.address, spec=spec
        )
    )
    if table.status == "playing":
        await hub.table_changed(table.id)
    return await run_in_threadpool(table_out, request, session, table, player.address)


@router.get("", response_model=list[schemas.TableOut], responses=_ERRORS)
def lobby(
    request: Request,
    session: SessionDep,
    preset: Annotated[str | None, Query(max_length=64)] = None,
    status: Annotated[str, Query(pattern="^(open|playing)$")] = "open",
) -> list[schemas.TableOut]:
    """The public lobby: open tables to join, or (status=playing) matches to watch."""
    found = (
        tables.lobby(session=session, preset=preset)
        if status == "open"
        else tables.live_tables(session=session)
    )
    return [table_out(request, session, t) for t in found]


@router.get("/limits", response_model=schemas.TableLimits)
def table_limits(settings: SettingsDep) -> schemas.TableLimits:
    """The server's bounds on a new table: kinds, bot levels, the turn timer's range."""
    from backend.tables import play

    return schemas.TableLimits(
        kinds=list(tables.KINDS),
        bot_levels=list(play.BOT_LEVELS),
        min_turn_timeout_s=settings.tables.min_turn_timeout_s,
        max_turn_timeout_s=settings.tables.max_turn_timeout_s,
        min_earning_turn_timeout_s=settings.tables.min_earning_turn_timeout_s,
        default_turn_timeout_s=settings.server.turn_timeout_s,
        same_device_seats=tables.SAME_DEVICE_SEATS,
    )


@router.get("/{table_id}", response_model=schemas.TableOut, responses=_ERRORS)
def get_table(
    request: Request,
    table_id: str,
    session: SessionDep,
    player: CurrentPlayer,
    invite_code: Annotated[str | None, Query(max_length=64)] = None,
) -> schemas.TableOut:
    """One table. A private one is 404 to a wallet that is not its creator, seated or
    invited, unless it brings the invite link's code."""
    table = tables.visible_table(
        session=session, table_id=table_id, viewer=player.address, invite_code=invite_code
    )
    return table_out(request, session, table, player.address)


@router.post("/{table_id}/join", response_model=schemas.TableOut, responses=_ERRORS)
async def join_table(
    request: Request,
    table_id: str,
    player: CurrentPlayer,
    session: SessionDep,
    gate: GateDep,
    hub: HubDep,
    settings: SettingsDep,
    body: schemas.JoinRequest | None = None,
) -> schemas.TableOut:
    """Take a seat (private tables: by invitation address or the invite code of the link).
    The join that fills the last seat starts the match."""
    body = body or schemas.JoinRequest()
    wanted = await run_in_threadpool(lambda: tables.get_table(session=session, table_id=table_id))
    await run_in_threadpool(deps.terms_for_play, session, settings, player.address, wanted)
    table = await run_in_threadpool(
        lambda: tables.join_table(
            session=session,
            settings=settings,
            gate=gate,
            table_id=table_id,
            address=player.address,
            **columns(body, "seat avatar_id invite_code"),
        )
    )
    await hub.table_changed(table.id)
    return await run_in_threadpool(table_out, request, session, table, player.address)


@router.post("/{table_id}/leave", status_code=204, responses=_ERRORS)
async def leave_table(
    table_id: str, player: CurrentPlayer, session: SessionDep, hub: HubDep
) -> None:
    await run_in_threadpool(
        lambda: tables.leave_table(session=session, table_id=table_id, address=player.address)
    )
    await hub.table_changed(table_id)


@router.post("/{table_id}/invite", response_model=schemas.TableOut, responses=_ERRORS)
def invite(
    request: Request,
    table_id: str,
    body: schemas.InviteRequest,
    player: CurrentPlayer,
    session: SessionDep,
) -> schemas.TableOut:
    """Invite wallets by address (the creator only)."""
    table = tables.invite(
        session=session,
        table_id=table_id,
        by=player.address,
        addresses=[checksum_address(a) for a in body.addresses],
    )
    return table_out(request, session, table, player.address)


@router.post("/{table_id}/start", response_model=schemas.TableOut, responses=_ERRORS)
async def start_with_bots(
    request: Request, table_id: str, player: CurrentPlayer, session: SessionDep, hub: HubDep
) -> schemas.TableOut:
    """Fill the empty seats with bots (at the table's bot level) and start (creator only)."""
    table = await run_in_threadpool(
        lambda: tables.start_with_bots(session=session, table_id=table_id, by=player.address)
    )
    await hub.table_changed(table.id)
    return await run_in_threadpool(table_out, request, session, table, player.address)
