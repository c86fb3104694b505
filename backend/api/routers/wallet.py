"""The signed-in player's money: the wallet page's data, deposits to sign, and withdrawals.

Every route acts for the wallet of the bearer token, never for an address in the body: a
caller can read and withdraw only its own stake balance. Withdrawals go through the chain
outbox like any payout (``backend.economy.stakes.request_withdrawal``); deposits are unsigned
transactions for the player's own wallet, credited when the indexer sees them confirmed.
"""

from __future__ import annotations

import secrets
from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import APIRouter, Path, Request
from fastapi.responses import JSONResponse
from sqlalchemy import select

from backend.api.deps import CurrentPlayer, GateDep, SessionDep, get_tx_builder
from backend.api.params import ListLimit, error_responses
from backend.care import limits
from backend.chain import outbox
from backend.chain.models import ChainRequest
from backend.competitions.models import Tournament
from backend.economy import exceptions as economy_exc
from backend.economy import stakes, withdrawals
from backend.economy.policy import MAX_PAYOUT_AMOUNT
from backend.economy.schemas import (
    DepositIn,
    EscrowOut,
    HistoryLineOut,
    TransactionsOut,
    VipPassOut,
    WalletMoneyOut,
    WithdrawalIn,
    WithdrawalOut,
)
from backend.tables.models import Match, Table

router = APIRouter(prefix="/wallet", tags=["wallet"])
_ERRORS = error_responses(401, 404, 409, 422, 503)

WithdrawalId = Annotated[str, Path(pattern=r"^w[0-9a-f]{31}$")]
TOURNAMENT_KEY = "tournament-"


def _withdrawal_out(row: dict[str, Any]) -> WithdrawalOut:
    return WithdrawalOut(**{**row, "amount": str(row["amount"])})


def _amount(text: str) -> int:
    value = int(text)
    if not 0 < value <= MAX_PAYOUT_AMOUNT:
        raise economy_exc.EconomyValueError(
            f"amount must be 1..2**88-1 DEW wei (the vault's largest payout), got {text!r}"
        )
    return value


def _why(session: SessionDep, row: dict[str, Any]) -> EscrowOut:
    """Which table's match or which tournament holds this escrow."""
    key: str = row["key"]
    out = EscrowOut(key=key, kind="table", amount=str(row["amount"]), since=row["since"])
    if key.startswith(TOURNAMENT_KEY):
        out.kind = "tournament"
        tid = int(key.removeprefix(TOURNAMENT_KEY))
        tournament = session.get(Tournament, tid)
        out.tournament_id, out.name = tid, tournament.name if tournament else None
    else:
        out.table_id = session.scalar(select(Match.table_id).where(Match.id == key))
        if out.table_id is None and session.get(Table, key) is not None:
            out.table_id = key  # held for a seat at an open staked table
    return out


@router.get("", response_model=WalletMoneyOut, responses=_ERRORS)
def my_money(
    request: Request, session: SessionDep, player: CurrentPlayer, limit: ListLimit = 100
) -> WalletMoneyOut:
    """The wallet page: DEW on chain, the stake balance, what is in escrow and why, the
    withdrawals with their states, and the history of the stake balance."""
    address = player.address
    dew_balance: str | None = None
    chain_error: str | None = None
    try:
        dew_balance = str(get_tx_builder(request).token_balance(address))
    except economy_exc.EconomyError as error:
        chain_error = str(error)
    held = [_why(session, r) for r in withdrawals.held_in_escrow(session=session, address=address)]
    return WalletMoneyOut(
        address=address,
        dew_balance=dew_balance,
        chain_error=chain_error,
        stake_balance=str(stakes.stake_balance(session=session, address=address)),
        escrowed_total=str(sum(int(x.amount) for x in held)),
        escrowed=held,
        withdrawals=[
            _withdrawal_out(w)
            for w in withdrawals.list_withdrawals(session=session, address=address, limit=limit)
        ],
        history=[
            HistoryLineOut(**{**h, "amount": str(h["amount"])})
            for h in withdrawals.stake_history(session=session, address=address, limit=limit)
        ],
    )


@router.get("/vip", response_model=VipPassOut, responses=_ERRORS)
def my_vip_pass(player: CurrentPlayer, gate: GateDep) -> VipPassOut:
    """The wallet's VIP pass and its expiry, for the settings page (503 without a chain)."""
    expiry = gate.vip_expiry(player.address)
    if expiry is None:
        return VipPassOut(valid=False, expires_at=None)
    return VipPassOut(valid=True, expires_at=datetime.fromtimestamp(expiry, UTC))


@router.post("/deposit", response_model=TransactionsOut, responses=_ERRORS)
def deposit(
    body: DepositIn, request: Request, session: SessionDep, player: CurrentPlayer
) -> TransactionsOut:
    """The DEW transfer into the vault for the player's wallet to sign; the stake balance is
    credited once the transfer is confirmed. The one gate first: a sanction, a break or the
    player's own deposit limit refuses it before the chain is asked."""
    amount = _amount(body.amount)  # bad input is refused before the chain is asked
    tx = limits.deposit_door(
        session=session,
        address=player.address,
        amount=amount,
        build=lambda: get_tx_builder(request).deposit(sender=player.address, amount=amount),
    )
    return TransactionsOut.of(tx)


@router.post("/withdrawals", response_model=WithdrawalOut, status_code=201, responses=_ERRORS)
def withdraw(
    body: WithdrawalIn, request: Request, session: SessionDep, player: CurrentPlayer
) -> Any:
    """Pay part of the stake balance back to the wallet (never escrowed stake). The same
    ``idempotency_key`` returns the same withdrawal (200); with another amount, 409."""
    key = body.idempotency_key or secrets.token_hex(16)
    amount = _amount(body.amount)
    settlement = stakes.request_withdrawal(
        session=session,
        address=player.address,
        amount=amount,
        key=key,
        chain_id=request.app.state.settings.chain.chain_id,
        bounds=stakes.WithdrawalBounds.from_settings(request.app.state.settings.economy),
    )
    # The first request is the one whose own insert queued the payout (as the operator's
    # routes tell, ``queued_once``): a repeat that raced it, however it raced, is a 200.
    queued = session.get(ChainRequest, settlement.chain_request_id)
    first = queued is not None and outbox.inserted_here(session, queued.idempotency_key)
    session.commit()
    row = withdrawals.get_withdrawal(session=session, withdrawal_id=settlement.match_id)
    out = _withdrawal_out(row)
    if not first:
        return JSONResponse(out.model_dump(mode="json"), status_code=200)
    return out


@router.get("/withdrawals", response_model=list[WithdrawalOut], responses=_ERRORS)
def my_withdrawals(
    session: SessionDep, player: CurrentPlayer, limit: ListLimit = 100
) -> list[WithdrawalOut]:
    rows = withdrawals.list_withdrawals(session=session, address=player.address, limit=limit)
    return [_withdrawal_out(w) for w in rows]


@router.get("/withdrawals/{withdrawal_id}", response_model=WithdrawalOut, responses=_ERRORS)
def my_withdrawal(
    withdrawal_id: WithdrawalId, session: SessionDep, player: CurrentPlayer
) -> WithdrawalOut:
    """One of the player's withdrawals; anyone else's is not found (404)."""
    row = withdrawals.get_withdrawal(
        session=session, withdrawal_id=withdrawal_id, address=player.address
    )
    return _withdrawal_out(row)
