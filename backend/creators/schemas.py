"""Request and response bodies of the creators' routes: a creator code, and the statement a
player's wallet signs to bind to it."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field

CODE_PATTERN = r"^[A-Za-z0-9]+$"


class RegisterIn(BaseModel):
    code: str = Field(min_length=4, max_length=16, pattern=CODE_PATTERN)


class StatementIn(BaseModel):
    code: str = Field(min_length=4, max_length=16, pattern=CODE_PATTERN)


class StatementOut(BaseModel):
    nonce: str
    code: str
    message: str
    expires_at: datetime


class BindIn(BaseModel):
    nonce: str = Field(min_length=32, max_length=32, pattern=r"^[0-9a-f]+$")
    signature: str = Field(min_length=130, max_length=132, pattern=r"^(0x)?[0-9a-fA-F]+$")


class BindingOut(BaseModel):
    player: str
    code: str
    creator: str
    bound_at: datetime
    earns_until: datetime
