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


class SignInRequest(BaseModel):
    message: str = Field(max_length=4096, description="The signed EIP-4361 message text")
    signature: str = Field(max_length=200, description="0x-prefixed 65-byte EIP-191 signature")


class RefreshRequest(BaseModel):
    refresh_token: str = Field(max_length=200)


class TokensOut(BaseModel):
    address: str
    token_type: str = "bearer"
    access_token: str
    access_expires_at: datetime
    refresh_token: str
    refresh_expires_at: datetime


class MeOut(BaseModel):
    address: str
    session_id: str
