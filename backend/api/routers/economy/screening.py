"""Screening of owners (``/economy/screening``, ``backend/economy/scholarships/screening.py``):
an owner applies, a screener reads the queue and approves on chain or rejects off chain."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query

from backend.api.deps import (
    BuilderDep,
    CurrentPlayer,
    CurrentScreener,
    ScreenersDep,
    SessionDep,
    SettingsDep,
)
from backend.api.params import Id31 as ApplicationId
from backend.api.params import described_errors
from backend.economy import schemas
from backend.economy.scholarships import screening

router = APIRouter(prefix="/screening")
_SCREENING_ERRORS = described_errors(401, 403, 404, 409, 422, 429, 503)


def _limits(settings: Any) -> screening.Limits:
    e = settings.economy
    return screening.Limits(
        statement_max_chars=e.screening_statement_max_chars,
        reason_max_chars=e.screening_reason_max_chars,
        per_wallet_per_day=e.screening_applications_per_wallet_per_day,
    )


@router.post(
    "/applications",
    status_code=201,
    response_model=schemas.ApplicationOut,
    responses=_SCREENING_ERRORS,
)
def apply_for_screening(
    body: schemas.ApplicationIn, player: CurrentPlayer, session: SessionDep, settings: SettingsDep
) -> schemas.ApplicationOut:
    """The signed-in owner asks to be screened, with a statement a screener reads."""
    app = screening.apply(
        session=session,
        applicant=player.address,
        statement=body.statement,
        limits=_limits(settings),
    )
    return schemas.ApplicationOut(**app)


@router.get(
    "/applications/mine",
    response_model=schemas.ApplicationOut,
    responses=_SCREENING_ERRORS,
)
def my_application(player: CurrentPlayer, session: SessionDep) -> schemas.ApplicationOut:
    """The signed-in wallet's latest application: its state, and a rejection's reason."""
    return schemas.ApplicationOut(**screening.mine(session=session, applicant=player.address))


@router.get(
    "/queue",
    response_model=list[schemas.ApplicationOut],
    responses=_SCREENING_ERRORS,
)
def screening_queue(
    _screener: CurrentScreener,
    session: SessionDep,
    limit: Annotated[int, Query(ge=1, le=screening.MAX_QUEUE)] = 100,
) -> list[schemas.ApplicationOut]:
    """Open applications, oldest first: only for a wallet holding SCREENER_ROLE on chain."""
    return [schemas.ApplicationOut(**a) for a in screening.queue(session=session, limit=limit)]


@router.post(
    "/applications/{application_id}/approve",
    response_model=schemas.TransactionsOut,
    responses=_SCREENING_ERRORS,
)
def approve_application(
    application_id: ApplicationId,
    screener: CurrentScreener,
    session: SessionDep,
    builder: BuilderDep,
) -> schemas.TransactionsOut:
    """The screener's ``setScreened(owner, true)`` for their own wallet to sign; the
    application turns approved when the chain shows it (``/receipt`` or the indexer)."""
    owner = screening.pending_applicant(session=session, application_id=application_id)
    return schemas.TransactionsOut.of(
        builder.screen_owner(screener=screener, owner=owner, approved=True)
    )


@router.post(
    "/applications/{application_id}/reject",
    response_model=schemas.ApplicationOut,
    responses=_SCREENING_ERRORS,
)
def reject_application(
    application_id: ApplicationId,
    body: schemas.RejectionIn,
    screener: CurrentScreener,
    session: SessionDep,
    settings: SettingsDep,
) -> schemas.ApplicationOut:
    """The screener refuses an open application, off chain, with the reason the owner sees."""
    app = screening.reject(
        session=session,
        application_id=application_id,
        screener=screener,
        reason=body.reason,
        limits=_limits(settings),
    )
    return schemas.ApplicationOut(**app)


@router.post(
    "/applications/{application_id}/receipt",
    response_model=schemas.ApplicationOut,
    responses=_SCREENING_ERRORS,
)
def approval_receipt(
    application_id: ApplicationId,
    body: schemas.ApprovalReceiptIn,
    player: CurrentPlayer,
    session: SessionDep,
    builder: BuilderDep,
    settings: SettingsDep,
    screeners: ScreenersDep,
) -> schemas.ApplicationOut:
    """The applicant or a screener reports the approval's transaction; the chain's receipt
    decides. Anyone else is told there is no such application."""
    app = screening.confirm_approval(
        session=session,
        contracts=builder.contracts,
        application_id=application_id,
        tx_hash=body.tx_hash,
        confirmations=settings.economy.confirmations,
        reporter=player.address,
        may_screen=lambda: screeners.is_screener(player.address),
    )
    return schemas.ApplicationOut(**app)
