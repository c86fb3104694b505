"""Scholarship agreements (``/economy/agreements``): the mirror's agreements, and the
transactions that accept, end, cancel, reclaim or close one, for the party's own wallet."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from sqlalchemy import select

from backend.api.deps import BuilderDep, ChainNowDep, SessionDep
from backend.api.params import MAX_ID, ListLimit, described_errors, out_of
from backend.api.params import Id63 as AgreementId
from backend.economy import exceptions as exc
from backend.economy import reports, schemas
from backend.economy.models import AgreementMirror

router = APIRouter(prefix="/agreements")
_ERRORS = described_errors(404, 409, 422, 503)


@router.post("/{agreement_id}/accept", response_model=schemas.TransactionsOut, responses=_ERRORS)
def accept(
    agreement_id: AgreementId, body: schemas.ScholarIn, builder: BuilderDep
) -> schemas.TransactionsOut:
    """The scholar accepts with their own wallet (a DEW approval first under Fixed Rent)."""
    return schemas.TransactionsOut.of(
        *builder.accept(scholar=body.scholar, agreement_id=agreement_id)
    )


@router.post(
    "/{agreement_id}/terminate",
    response_model=schemas.TransactionsOut,
    responses=_ERRORS,
)
def terminate(
    agreement_id: AgreementId, body: schemas.ScholarIn, builder: BuilderDep
) -> schemas.TransactionsOut:
    """The scholar ends the agreement early; unused Fixed Rent is refunded pro rata."""
    return schemas.TransactionsOut.of(
        builder.terminate(scholar=body.scholar, agreement_id=agreement_id)
    )


@router.post("/{agreement_id}/cancel", response_model=schemas.TransactionsOut, responses=_ERRORS)
def cancel(
    agreement_id: AgreementId, body: schemas.OwnerIn, builder: BuilderDep
) -> schemas.TransactionsOut:
    """The owner withdraws an offer nobody accepted."""
    return schemas.TransactionsOut.of(
        builder.cancel_offer(owner=body.owner, agreement_id=agreement_id)
    )


@router.post("/{agreement_id}/reclaim", response_model=schemas.TransactionsOut, responses=_ERRORS)
def reclaim(
    agreement_id: AgreementId, body: schemas.OwnerIn, builder: BuilderDep
) -> schemas.TransactionsOut:
    """The owner ends a Rewards Division agreement with no settled match for 7 days."""
    return schemas.TransactionsOut.of(
        builder.reclaim_idle(owner=body.owner, agreement_id=agreement_id)
    )


@router.post("/{agreement_id}/close", response_model=schemas.TransactionsOut, responses=_ERRORS)
def close(
    agreement_id: AgreementId, body: schemas.SenderIn, builder: BuilderDep
) -> schemas.TransactionsOut:
    """Anyone closes an agreement whose term ended (pays the owner the remaining rent)."""
    return schemas.TransactionsOut.of(builder.close(sender=body.sender, agreement_id=agreement_id))


@router.get("", response_model=list[schemas.AgreementOut])
def list_agreements(
    session: SessionDep,
    now_s: ChainNowDep,
    avatar_id: Annotated[int | None, Query(ge=1, le=MAX_ID)] = None,
    owner: str | None = None,
    scholar: str | None = None,
    open_listings: Annotated[bool, Query(description="only offers any scholar may take")] = False,
    limit: ListLimit = 100,
) -> list[schemas.AgreementOut]:
    """Agreements as the indexer mirrored them from the registry's events."""
    query = select(AgreementMirror).order_by(AgreementMirror.id.desc()).limit(limit)
    if avatar_id is not None:
        query = query.where(AgreementMirror.avatar_id == avatar_id)
    if owner is not None:
        query = query.where(AgreementMirror.owner == reports.checksum(owner))
    if scholar is not None:
        query = query.where(AgreementMirror.scholar == reports.checksum(scholar))
    if open_listings:
        query = query.where(AgreementMirror.status == "offered", AgreementMirror.scholar.is_(None))
    return [_agreement_out(a, now_s) for a in session.scalars(query)]


@router.get("/{agreement_id}", response_model=schemas.AgreementOut, responses=_ERRORS)
def get_agreement(
    agreement_id: AgreementId, session: SessionDep, now_s: ChainNowDep
) -> schemas.AgreementOut:
    agreement = session.get(AgreementMirror, agreement_id)
    if agreement is None:
        raise exc.AgreementNotFound(f"no agreement {agreement_id!r} (yet) in the mirror")
    return _agreement_out(agreement, now_s)


def _agreement_out(a: AgreementMirror, now_s: int) -> schemas.AgreementOut:
    """The mirror's agreement; its term judged by chain time (``expired`` once it ran out)."""
    return out_of(schemas.AgreementOut, a, status=reports.agreement_status(a, now_s))
