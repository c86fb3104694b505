"""Sign-In with Ethereum: nonce, sign-in, refresh, logout; the terms a wallet accepts."""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

import orjson
from fastapi import APIRouter, Request, Response, status
from fastapi.concurrency import run_in_threadpool
from sqlalchemy.orm import Session

from backend.accounts import exceptions as accounts_exc
from backend.accounts import guests, schemas, siwe_message, terms
from backend.accounts import service as accounts
from backend.api.deps import CurrentPlayer, SessionDep, SettingsDep
from backend.api.errors import ErrorResponse
from backend.care import standing
from backend.care.exceptions import CareError
from backend.care.standing import Door
from backend.ops.metrics import SIGNIN_REFUSALS, SIGNINS
from backend.tables import service as tables

log = logging.getLogger(__name__)
router = APIRouter(prefix="/auth", tags=["auth"])

_ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorResponse, "description": "Malformed sign-in message"},
    401: {"model": ErrorResponse, "description": "Refused; see error.code"},
}


def _tokens(pair: accounts.TokenPair) -> schemas.TokensOut:
    return schemas.TokensOut(
        address=pair.address,
        access_token=pair.access_token,
        access_expires_at=pair.access_expires_at,
        refresh_token=pair.refresh_token,
        refresh_expires_at=pair.refresh_expires_at,
    )


def _json(payload: dict[str, Any]) -> Response:
    # Sign-in is the busiest HTTP route: its two answers are encoded directly (the models
    # above still document them in OpenAPI, and tests check the fields).
    return Response(orjson.dumps(payload), media_type="application/json")


def _time(moment: datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


@router.post("/nonce", response_model=schemas.NonceOut, responses={422: {"model": ErrorResponse}})
async def create_nonce(request: Request, body: schemas.NonceRequest | None = None) -> Response:
    """A single-use nonce and the fields of the EIP-4361 message to sign with it."""
    # No I/O at all (the nonce is MACed, not stored): answered on the event loop. Settings
    # come straight from the app, not through a dependency (one less to solve per request).
    address = body.address if body else None
    if address is not None and not siwe_message.is_checksum_address(address):
        raise accounts_exc.MalformedSignIn(f"address {address!r} is not an EIP-55 address")
    grant = accounts.issue_nonce(
        settings=request.app.state.settings, accept_terms=body.accept_terms if body else False
    )
    return _json(
        {
            "nonce": grant.nonce,
            "domain": grant.domain,
            "uri": grant.uri,
            "chain_id": grant.chain_id,
            "statement": grant.statement,
            "version": "1",
            "issued_at": _time(grant.issued_at),
            "expiration_time": _time(grant.expires_at),
            "message": accounts.compose_message(grant, address) if address else None,
            "resources": list(grant.resources),
        }
    )


@router.post("/signin", response_model=schemas.TokensOut, responses=_ERRORS)
async def sign_in(body: schemas.SignInRequest, request: Request) -> Response:
    """Verify a signed EIP-4361 message; returns an access token and a refresh token."""

    def verify_and_open() -> accounts.TokenPair:
        # One hop to a worker thread for the whole unit of work (verification and write).
        pair = accounts.sign_in(
            engine=request.app.state.engine,
            settings=request.app.state.settings,
            message=body.message,
            signature=body.signature,
        )
        # The one gate: a banned wallet's session ends as it opens (the refusal says why).
        with Session(request.app.state.engine) as session:
            try:
                standing.require(session, pair.address, Door.SIGN_IN)
            except CareError:
                accounts.logout(session=session, session_id=pair.session_id)
                raise
        if body.guest_token:  # the guest this browser played as: its history is the wallet's
            # An expired or foreign guest token moves nothing; the sign-in stands.
            with Session(request.app.state.engine) as session:
                _take_over_guest(session, request, body.guest_token, pair.address)
        return pair

    try:
        pair = await run_in_threadpool(verify_and_open)
    except (accounts_exc.AccountsError, CareError) as error:
        SIGNIN_REFUSALS.labels(error.code).inc()  # codes are our constants, a bounded set
        raise
    SIGNINS.inc()
    return _json(
        {
            "address": pair.address,
            "token_type": "bearer",
            "access_token": pair.access_token,
            "access_expires_at": _time(pair.access_expires_at),
            "refresh_token": pair.refresh_token,
            "refresh_expires_at": _time(pair.refresh_expires_at),
            "terms_version": pair.terms_version,
        }
    )


def _take_over_guest(session: Session, request: Request, guest_token: str, wallet: str) -> None:
    """The guest's results become the wallet's and the guest's session ends, in one
    transaction. An expired or foreign guest token moves nothing; the sign-in stands."""
    try:
        guest = guests.claim(
            session=session,
            settings=request.app.state.settings,
            guest_token=guest_token,
            wallet=wallet,
        )
    except accounts_exc.GuestTokenRefused:
        return
    moved = tables.move_results(session=session, from_address=guest.address, to_address=wallet)
    accounts.logout(session=session, session_id=guest.session_id)  # commits both
    log.info("a wallet took over a guest session: %d results", moved)


@router.post(
    "/guest",
    response_model=schemas.TokensOut,
    status_code=201,
    responses={429: {"model": ErrorResponse}},
)
def guest(session: SessionDep, settings: SettingsDep) -> schemas.TokensOut:
    """A guest session without a wallet: free play only (practice, same-device, bots-only).
    Rate-limited per client address with sign-in (``api.ratelimit``)."""
    return _tokens(guests.open_session(session=session, settings=settings))


@router.post("/refresh", response_model=schemas.TokensOut, responses=_ERRORS)
def refresh(
    body: schemas.RefreshRequest, session: SessionDep, settings: SettingsDep
) -> schemas.TokensOut:
    """Rotate a refresh token: the old one stops working; reusing it revokes the session."""
    return _tokens(
        accounts.refresh(session=session, settings=settings, refresh_token=body.refresh_token)
    )


@router.post("/logout", status_code=status.HTTP_204_NO_CONTENT, responses=_ERRORS)
def logout(player: CurrentPlayer, session: SessionDep) -> None:
    """End this session: its access and refresh tokens are refused from now on."""
    accounts.logout(session=session, session_id=player.session_id)


@router.get("/me", response_model=schemas.MeOut, responses=_ERRORS)
def me(player: CurrentPlayer) -> schemas.MeOut:
    return schemas.MeOut(address=player.address, session_id=player.session_id)


@router.get("/terms", response_model=schemas.TermsOut, responses=_ERRORS)
def terms_status(
    player: CurrentPlayer, session: SessionDep, settings: SettingsDep
) -> schemas.TermsOut:
    """The current terms, how to accept them, and whether this wallet has (legal age too)."""
    current = terms.current(settings)
    found = terms.acceptance(session=session, settings=settings, address=player.address)
    return schemas.TermsOut(
        required=current is not None,
        version=current.version if current else None,
        uri=current.uri if current else None,
        resources=list(current.resources) if current else [],
        statement=current.statement if current else None,
        staked_play=settings.tables.staked_play,
        accepted=found is not None,
        accepted_at=found.accepted_at if found else None,
    )
