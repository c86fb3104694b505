"""A wallet's DEW (``/economy/wallets``): earned, pending and paid, and its ledger lines."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

from fastapi import APIRouter, Query

from backend.api.deps import SessionDep
from backend.api.params import described_errors
from backend.economy import reports, schemas

router = APIRouter(prefix="/wallets")
_ERRORS = described_errors(404, 409, 422, 503)


@router.get("/{address}", response_model=schemas.WalletOut, responses=_ERRORS)
def wallet(address: str, session: SessionDep) -> schemas.WalletOut:
    """Earned, pending and paid DEW of a wallet, in total and per role."""
    data: Mapping[str, Any] = reports.wallet_summary(session=session, address=address)
    return schemas.WalletOut(
        **schemas.wei_strings(data, "earned", "pending", "paid", "failed")
        | {
            "by_role": {role: schemas.wei_strings(v, *v) for role, v in data["by_role"].items()},
            "markets": schemas.wei_strings(data["markets"], *data["markets"]),
        }
    )


@router.get(
    "/{address}/statement",
    response_model=list[schemas.StatementLineOut],
    responses=_ERRORS,
)
def statement(
    address: str, session: SessionDep, limit: Annotated[int, Query(ge=1, le=1000)] = 200
) -> list[schemas.StatementLineOut]:
    """Every ledger line of a wallet: per match, its role, amount, status and tx hash."""
    rows = reports.wallet_statement(session=session, address=address, limit=limit)
    return [schemas.StatementLineOut(**schemas.wei_strings(r, "amount")) for r in rows]
