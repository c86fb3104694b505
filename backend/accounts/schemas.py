"""Request and response bodies of the sign-in API."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field


class NonceRequest(BaseModel):
    address: str | None = Field(
        default=None,
        description="If given (EIP-55), the response includes the exact message to sign.",
        max_length=42,
    )
    accept_terms: bool = Field(
        default=False,
        description="The message also accepts the current terms and confirms legal age "
        "(its statement and resources; needed for earning and staked play).",
    )


class NonceOut(BaseModel):
    nonce: str
    domain: str
    uri: str
    chain_id: int
    statement: str
    version: str = "1"
    issued_at: datetime
    expiration_time: datetime
    message: str | None = Field(default=None, description="EIP-4361 text, when address was given")
    resources: list[str] = Field(default=[], description="EIP-4361 resources to sign, if any")


class SignInRequest(BaseModel):
    message: str = Field(max_length=4096, description="The signed EIP-4361 message text")
    signature: str = Field(max_length=200, description="0x-prefixed 65-byte EIP-191 signature")
    guest_token: str | None = Field(
        default=None,
        max_length=2048,
        description="This browser's guest access token: its history moves to the wallet",
    )


class RefreshRequest(BaseModel):
    refresh_token: str = Field(max_length=200)


class TokensOut(BaseModel):
    address: str
    token_type: str = "bearer"
    access_token: str
    access_expires_at: datetime
    refresh_token: str
    refresh_expires_at: datetime
    terms_version: str | None = Field(
        default=None, description="The terms version this sign-in accepted, if any"
    )


class MeOut(BaseModel):
    address: str
    session_id: str


class TermsOut(BaseModel):
    """This deployment's terms and what the signed-in wallet has accepted."""

    required: bool = Field(description="Earning and staked play need the terms accepted")
    version: str | None
    uri: str | None
    resources: list[str] = Field(description="The resources a sign-in accepting them carries")
    statement: str | None = Field(description="The statement a sign-in accepting them carries")
    staked_play: bool = Field(description="False: this deployment offers no staked tables")
    accepted: bool = Field(description="This wallet accepted the current terms (legal age too)")
    accepted_at: datetime | None


class NameRequest(BaseModel):
    # Bounded before it is read; ``backend.accounts.names`` holds the real limits.
    name: str = Field(max_length=200)


class NameOut(BaseModel):
    """A wallet's or guest's display name, and when it may change again (null: now)."""

    address: str
    name: str | None
    changed_at: datetime | None
    next_change_at: datetime | None


class NamesOut(BaseModel):
    """The display names of the asked addresses that have one (address -> name)."""

    names: dict[str, str]
