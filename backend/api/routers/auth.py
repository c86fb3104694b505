"""Sign-In with Ethereum: nonce, sign-in, refresh, logout."""

from __future__ import annotations

from fastapi import APIRouter, status
from web3 import Web3

from backend.accounts import exceptions as accounts_exc
from backend.accounts import schemas
from backend.accounts import service as accounts
from backend.api.deps import CurrentPlayer, SessionDep, SettingsDep
from backend.api.errors import ErrorResponse

router = APIRouter(prefix="/auth", tags=["auth"])

_ERRORS = {
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


@router.post("/nonce", response_model=schemas.NonceOut, responses={422: {"model": ErrorResponse}})
def create_nonce(
    settings: SettingsDep, body: schemas.NonceRequest | None = None
) -> schemas.NonceOut:
    """A single-use nonce and the fields of the EIP-4361 message to sign with it."""
    address = body.address if body else None
    if address is not None and not Web3.is_checksum_address(address):
        raise accounts_exc.MalformedSignIn(f"address {address!r} is not an EIP-55 address")
    grant = accounts.issue_nonce(settings=settings)
    return schemas.NonceOut(
        nonce=grant.nonce,
        domain=grant.domain,
        uri=grant.uri,
        chain_id=grant.chain_id,
        statement=grant.statement,
        issued_at=grant.issued_at,
        expiration_time=grant.expires_at,
        message=accounts.compose_message(grant, address) if address else None,
    )


@router.post("/signin", response_model=schemas.TokensOut, responses=_ERRORS)
def sign_in(
    body: schemas.SignInRequest, session: SessionDep, settings: SettingsDep
) -> schemas.TokensOut:
    """Verify a signed EIP-4361 message; returns an access token and a refresh token."""
    pair = accounts.sign_in(
        session=session, settings=settings, message=body.message, signature=body.signature
    )
    return _tokens(pair)


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
