"""Economy routes: scholarship transactions to sign, the mirror, reports and seasons.

Write routes return *unsigned* transactions: the user's wallet signs and sends them, and the
contract checks ``msg.sender``, so these routes hold no keys and need no session token. Reads
are public, as the chain they mirror is. create_app() mounts them only with a deployment.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, cast

from fastapi import APIRouter, Path, Query
from sqlalchemy import select

from backend.api.deps import BuilderDep, CurrentPlayer, ScreenersDep, SessionDep, SettingsDep
from backend.economy import exceptions as exc
from backend.economy import reports, schemas, stakes
from backend.economy.models import AgreementMirror, PlannedSettlement
from backend.economy.policy import Party, Terms
from backend.economy.scholarships import screening
from backend.economy.scholarships.transactions import OfferTerms, UnsignedTx

router = APIRouter(prefix="/economy", tags=["economy"])

# Ids are stored as 64-bit integers; a bigger one is a bad request, not a database error.
MAX_ID = 2**63 - 1
AgreementId = Annotated[int, Path(ge=1, le=MAX_ID)]
AvatarId = Annotated[int, Path(ge=1, le=MAX_ID)]
SeasonId = Annotated[int, Path(ge=1, le=2**31 - 1)]
_ERRORS: dict[int | str, dict[str, Any]] = {
    s: {"description": "error: {error: {code, message, detail}}"} for s in (404, 409, 422, 503)
}


def _txs(*txs: UnsignedTx) -> schemas.TransactionsOut:
    return schemas.TransactionsOut(
        transactions=[schemas.UnsignedTxOut.model_validate(t.to_json()) for t in txs]
    )


# --- scholarship transactions ------------------------------------------------------------


@router.post("/screenings", response_model=schemas.TransactionsOut, responses=_ERRORS)
def screen_owner(body: schemas.ScreeningIn, builder: BuilderDep) -> schemas.TransactionsOut:
    """A screener approves (or withdraws) an owner: the screener's wallet signs it."""
    return _txs(
        builder.screen_owner(screener=body.screener, owner=body.owner, approved=body.approved)
    )


@router.post("/offers", response_model=schemas.TransactionsOut, responses=_ERRORS)
def offer(body: schemas.OfferIn, builder: BuilderDep) -> schemas.TransactionsOut:
    """An owner offers an avatar to a scholar, or lists it for any scholar."""
    terms = OfferTerms(
        terms=Terms.FIXED_RENT if body.terms == "fixed_rent" else Terms.REWARDS_DIVISION,
        duration_s=body.duration_s,
        rent=int(body.rent),
        owner_bps=body.owner_bps,
        manager_bps=body.manager_bps,
        manager=body.manager,
        dust_to=Party[body.dust_to.upper()],
        valid_until=body.valid_until,
    )
    return _txs(
        builder.offer(owner=body.owner, avatar_id=body.avatar_id, terms=terms, scholar=body.scholar)
    )


@router.post(
    "/agreements/{agreement_id}/accept", response_model=schemas.TransactionsOut, responses=_ERRORS
)
def accept(
    agreement_id: AgreementId, body: schemas.ScholarIn, builder: BuilderDep
) -> schemas.TransactionsOut:
    """The scholar accepts with their own wallet (a DEW approval first under Fixed Rent)."""
    return _txs(*builder.accept(scholar=body.scholar, agreement_id=agreement_id))


@router.post(
    "/agreements/{agreement_id}/terminate",
    response_model=schemas.TransactionsOut,
    responses=_ERRORS,
)
def terminate(
    agreement_id: AgreementId, body: schemas.ScholarIn, builder: BuilderDep
) -> schemas.TransactionsOut:
    """The scholar ends the agreement early; unused Fixed Rent is refunded pro rata."""
    return _txs(builder.terminate(scholar=body.scholar, agreement_id=agreement_id))


@router.post(
    "/agreements/{agreement_id}/cancel", response_model=schemas.TransactionsOut, responses=_ERRORS
)
def cancel(
    agreement_id: AgreementId, body: schemas.OwnerIn, builder: BuilderDep
) -> schemas.TransactionsOut:
    """The owner withdraws an offer nobody accepted."""
    return _txs(builder.cancel_offer(owner=body.owner, agreement_id=agreement_id))


@router.post(
    "/avatars/{avatar_id}/offers/cancel",
    response_model=schemas.TransactionsOut,
    responses=_ERRORS,
)
def cancel_offers(
    avatar_id: AvatarId, body: schemas.OwnerIn, builder: BuilderDep
) -> schemas.TransactionsOut:
    """The owner withdraws every offer they have open for the avatar, in one transaction."""
    return _txs(builder.cancel_offers(owner=body.owner, avatar_id=avatar_id))


@router.post(
    "/agreements/{agreement_id}/reclaim", response_model=schemas.TransactionsOut, responses=_ERRORS
)
def reclaim(
    agreement_id: AgreementId, body: schemas.OwnerIn, builder: BuilderDep
) -> schemas.TransactionsOut:
    """The owner ends a Rewards Division agreement with no settled match for 7 days."""
    return _txs(builder.reclaim_idle(owner=body.owner, agreement_id=agreement_id))


@router.post(
    "/agreements/{agreement_id}/close", response_model=schemas.TransactionsOut, responses=_ERRORS
)
def close(
    agreement_id: AgreementId, body: schemas.SenderIn, builder: BuilderDep
) -> schemas.TransactionsOut:
    """Anyone closes an agreement whose term ended (pays the owner the remaining rent)."""
    return _txs(builder.close(sender=body.sender, agreement_id=agreement_id))


# --- screening of owners (backend/economy/scholarships/screening.py) ----------------------

ApplicationId = Annotated[int, Path(ge=1, le=2**31 - 1)]
_SCREENING_ERRORS: dict[int | str, dict[str, Any]] = {
    s: {"description": "error: {error: {code, message, detail}}"}
    for s in (401, 403, 404, 409, 422, 429, 503)
}


def _limits(settings: Any) -> screening.Limits:
    e = settings.economy
    return screening.Limits(
        statement_max_chars=e.screening_statement_max_chars,
        reason_max_chars=e.screening_reason_max_chars,
        per_wallet_per_day=e.screening_applications_per_wallet_per_day,
    )


@router.post(
    "/screening/applications",
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
    "/screening/applications/mine",
    response_model=schemas.ApplicationOut,
    responses=_SCREENING_ERRORS,
)
def my_application(player: CurrentPlayer, session: SessionDep) -> schemas.ApplicationOut:
    """The signed-in wallet's latest application: its state, and a rejection's reason."""
    return schemas.ApplicationOut(**screening.mine(session=session, applicant=player.address))


@router.get(
    "/screening/queue",
    response_model=list[schemas.ApplicationOut],
    responses=_SCREENING_ERRORS,
)
def screening_queue(
    player: CurrentPlayer,
    screeners: ScreenersDep,
    session: SessionDep,
    limit: Annotated[int, Query(ge=1, le=screening.MAX_QUEUE)] = 100,
) -> list[schemas.ApplicationOut]:
    """Open applications, oldest first: only for a wallet holding SCREENER_ROLE on chain."""
    screeners.require(player.address)
    return [schemas.ApplicationOut(**a) for a in screening.queue(session=session, limit=limit)]


@router.post(
    "/screening/applications/{application_id}/approve",
    response_model=schemas.TransactionsOut,
    responses=_SCREENING_ERRORS,
)
def approve_application(
    application_id: ApplicationId,
    player: CurrentPlayer,
    screeners: ScreenersDep,
    session: SessionDep,
    builder: BuilderDep,
) -> schemas.TransactionsOut:
    """The screener's ``setScreened(owner, true)`` for their own wallet to sign; the
    application turns approved when the chain shows it (``/receipt`` or the indexer)."""
    screener = screeners.require(player.address)
    owner = screening.pending_applicant(session=session, application_id=application_id)
    return _txs(builder.screen_owner(screener=screener, owner=owner, approved=True))


@router.post(
    "/screening/applications/{application_id}/reject",
    response_model=schemas.ApplicationOut,
    responses=_SCREENING_ERRORS,
)
def reject_application(
    application_id: ApplicationId,
    body: schemas.RejectionIn,
    player: CurrentPlayer,
    screeners: ScreenersDep,
    session: SessionDep,
    settings: SettingsDep,
) -> schemas.ApplicationOut:
    """The screener refuses an open application, off chain, with the reason the owner sees."""
    screener = screeners.require(player.address)
    app = screening.reject(
        session=session,
        application_id=application_id,
        screener=screener,
        reason=body.reason,
        limits=_limits(settings),
    )
    return schemas.ApplicationOut(**app)


@router.post(
    "/screening/applications/{application_id}/receipt",
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


# --- the mirror ---------------------------------------------------------------------------


def _agreement_out(a: AgreementMirror) -> schemas.AgreementOut:
    return schemas.AgreementOut(
        id=a.id,
        avatar_id=a.avatar_id,
        owner=a.owner,
        scholar=a.scholar,
        terms=a.terms,
        duration_s=a.duration_s,
        rent=a.rent,
        owner_bps=a.owner_bps,
        manager_bps=a.manager_bps,
        manager=a.manager,
        dust_to=a.dust_to,
        status=reports.agreement_status(a),
        starts_at=a.starts_at,
        ends_at=a.ends_at,
        ended_at=a.ended_at,
        valid_until=a.valid_until,
        rent_escrowed=a.rent_escrowed,
        rent_paid=a.rent_paid,
        rent_refunded=a.rent_refunded,
    )


@router.get("/agreements", response_model=list[schemas.AgreementOut])
def list_agreements(
    session: SessionDep,
    avatar_id: Annotated[int | None, Query(ge=1, le=MAX_ID)] = None,
    owner: str | None = None,
    scholar: str | None = None,
    open_listings: Annotated[bool, Query(description="only offers any scholar may take")] = False,
    limit: Annotated[int, Query(ge=1, le=500)] = 100,
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
    return [_agreement_out(a) for a in session.scalars(query)]


@router.get("/agreements/{agreement_id}", response_model=schemas.AgreementOut, responses=_ERRORS)
def get_agreement(agreement_id: AgreementId, session: SessionDep) -> schemas.AgreementOut:
    agreement = session.get(AgreementMirror, agreement_id)
    if agreement is None:
        raise exc.AgreementNotFound(f"no agreement {agreement_id!r} (yet) in the mirror")
    return _agreement_out(agreement)


# --- reports ------------------------------------------------------------------------------


def _wei(row: dict[str, Any], *keys: str) -> dict[str, Any]:
    return {k: (str(v) if k in keys else v) for k, v in row.items()}


AVATAR_WEI = ("gross", "owner_share", "manager_share", "scholar_share", "paid", "pending")


@router.get(
    "/owners/{address}/avatars", response_model=list[schemas.AvatarReportOut], responses=_ERRORS
)
def owner_avatars(address: str, session: SessionDep) -> list[schemas.AvatarReportOut]:
    """Per avatar: matches, wins, gross, owner and scholar shares, agreement status."""
    rows = reports.owner_view(session=session, owner=address)
    return [schemas.AvatarReportOut(**_wei(r, *AVATAR_WEI)) for r in rows]


@router.get("/avatars/{avatar_id}", response_model=schemas.AvatarReportOut)
def avatar(avatar_id: AvatarId, session: SessionDep) -> schemas.AvatarReportOut:
    row = reports.avatar_report(session=session, avatar_id=avatar_id)
    return schemas.AvatarReportOut(**_wei(row, *AVATAR_WEI))


@router.get(
    "/scholars/{address}/earnings", response_model=schemas.ScholarEarningsOut, responses=_ERRORS
)
def scholar(address: str, session: SessionDep) -> schemas.ScholarEarningsOut:
    # The reports are plain mappings of wei amounts and nested rows.
    data: Mapping[str, Any] = reports.scholar_earnings(session=session, scholar=address)
    return schemas.ScholarEarningsOut(
        address=data["address"],
        paid=str(data["paid"]),
        pending=str(data["pending"]),
        avatars=[
            schemas.ScholarAvatarOut(**_wei(a, "pending", "paid", "failed"))
            for a in data["avatars"]
        ],
        agreements=[
            schemas.ScholarAgreementOut(**_wei(a, "rent", "rent_refunded"))
            for a in data["agreements"]
        ],
    )


@router.get("/wallets/{address}", response_model=schemas.WalletOut, responses=_ERRORS)
def wallet(address: str, session: SessionDep) -> schemas.WalletOut:
    """Earned, pending and paid DEW of a wallet, in total and per role."""
    data: Mapping[str, Any] = reports.wallet_summary(session=session, address=address)
    return schemas.WalletOut(
        address=data["address"],
        earned=str(data["earned"]),
        pending=str(data["pending"]),
        paid=str(data["paid"]),
        failed=str(data["failed"]),
        by_role={
            role: {k: str(v) for k, v in values.items()} for role, values in data["by_role"].items()
        },
        markets=schemas.WalletMarketsTotalsOut(**{k: str(v) for k, v in data["markets"].items()}),
    )


@router.get(
    "/wallets/{address}/statement",
    response_model=list[schemas.StatementLineOut],
    responses=_ERRORS,
)
def statement(
    address: str, session: SessionDep, limit: Annotated[int, Query(ge=1, le=1000)] = 200
) -> list[schemas.StatementLineOut]:
    """Every ledger line of a wallet: per match, its role, amount, status and tx hash."""
    rows = reports.wallet_statement(session=session, address=address, limit=limit)
    return [schemas.StatementLineOut(**_wei(r, "amount")) for r in rows]


@router.get("/stakes/{address}", response_model=schemas.StakeBalanceOut, responses=_ERRORS)
def stake(address: str, session: SessionDep) -> schemas.StakeBalanceOut:
    """DEW the wallet deposited into the vault and has not staked (or withdrawn) yet."""
    balance = stakes.stake_balance(session=session, address=address)
    return schemas.StakeBalanceOut(address=reports.checksum(address), balance=str(balance))


@router.get("/matches/{match_id}", response_model=schemas.SettlementOut, responses=_ERRORS)
def settlement(match_id: str, session: SessionDep) -> schemas.SettlementOut:
    """A finished match's reward plan and where its payment stands."""
    s = session.get(PlannedSettlement, match_id)
    if s is None:
        raise exc.NotFound(f"match {match_id!r} has not been planned")
    return schemas.SettlementOut(
        match_id=s.match_id,
        chain_match_id=s.chain_match_id,
        economy=s.economy,
        status=s.status,
        stake_pot=s.stake_pot,
        emission=s.emission,
        fee=s.fee,
        returned=s.returned,
        paid=s.paid,
        tx_hash=s.tx_hash,
        season_id=s.season_id,
    )


@router.get("/seasons", response_model=list[schemas.SeasonOut])
def seasons(session: SessionDep) -> list[schemas.SeasonOut]:
    """The season schedule: upcoming, running and finished seasons with their budgets and
    reward tables (each place's payout from the ledger once the season's rewards are planned)."""
    rows = reports.season_schedule(session=session)
    return [
        schemas.SeasonOut(
            **{
                **_wei(r, "emission_budget", "emitted", "remaining"),
                "rewards": [_reward_place(p) for p in cast(list[dict[str, Any]], r["rewards"])],
            }
        )
        for r in rows
    ]


def _reward_place(place: dict[str, Any]) -> schemas.SeasonRewardPlaceOut:
    paid = place["paid"]
    return schemas.SeasonRewardPlaceOut(
        **{**_wei(place, "amount"), "paid": None if paid is None else str(paid)}
    )


@router.get(
    "/seasons/{season_id}/leaderboard",
    response_model=list[schemas.LeaderboardRowOut],
    responses=_ERRORS,
)
def leaderboard(
    season_id: SeasonId, session: SessionDep, limit: Annotated[int, Query(ge=1, le=500)] = 50
) -> list[schemas.LeaderboardRowOut]:
    """Players of a season by wins, then game points; ``reward`` is the season's reward for
    the row's place when the season has a reward table."""
    rows = reports.season_leaderboard(session=session, season_id=season_id, limit=limit)
    return [
        schemas.LeaderboardRowOut(
            **{**_wei(r, "earned"), "reward": None if r["reward"] is None else str(r["reward"])}
        )
        for r in rows
    ]
