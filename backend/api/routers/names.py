"""Display names (``/names``): each wallet's or guest's one name at tables, and a seat
list's names in one request."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from backend.accounts import names, schemas
from backend.accounts.models import DisplayName
from backend.api.deps import CurrentPlayer, SessionDep, SettingsDep
from backend.api.params import error_responses
from backend.api.routers.tables import checksum_address
from backend.config import Settings
from backend.db.base import aware
from backend.tables import exceptions as tables_exc

router = APIRouter(prefix="/names", tags=["accounts"])
_ERRORS = error_responses(401, 409, 422, 429)
MAX_ADDRESSES = 8  # a table's seats and then some


def _name_out(address: str, row: DisplayName | None, settings: Settings) -> schemas.NameOut:
    return schemas.NameOut(
        address=address,
        name=row.name if row else None,
        changed_at=aware(row.changed_at) if row else None,
        next_change_at=names.next_change_at(row, settings),
    )


@router.get("", response_model=schemas.NamesOut, responses=_ERRORS)
def names_of(
    session: SessionDep,
    address: Annotated[list[str], Query(max_length=MAX_ADDRESSES)],
) -> schemas.NamesOut:
    """The display names of up to eight addresses (a table's seats); those without one are
    left out."""
    if len(address) > MAX_ADDRESSES:
        raise tables_exc.InvalidRequest(f"at most {MAX_ADDRESSES} addresses, not {len(address)}")
    wanted = sorted({checksum_address(a[:64]) for a in address})
    return schemas.NamesOut(names=names.names_of(session=session, addresses=wanted))


@router.get("/me", response_model=schemas.NameOut, responses=_ERRORS)
def my_name(player: CurrentPlayer, session: SessionDep, settings: SettingsDep) -> schemas.NameOut:
    """This wallet's (or guest's) display name and when it may change again."""
    row = names.get(session=session, address=player.address)
    return _name_out(player.address, row, settings)


@router.put("/me", response_model=schemas.NameOut, responses=_ERRORS)
def set_my_name(
    body: schemas.NameRequest, player: CurrentPlayer, session: SessionDep, settings: SettingsDep
) -> schemas.NameOut:
    """Set or change the display name: unique however it is cased or spelled with look-alike
    letters, and changed at most once per ``DEW_AUTH_NAME_CHANGE_INTERVAL_S``."""
    row = names.set_name(session=session, settings=settings, address=player.address, raw=body.name)
    return _name_out(player.address, row, settings)
