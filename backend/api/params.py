"""What many routers' signatures share: ids in the path, bounded to what the database stores
(a bigger one is a bad request, not a database error), and the error responses they
document (every error has the one shape of ``backend/api/errors.py``)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Path

from backend.api.errors import ErrorResponse

MAX_ID = 2**63 - 1
Id63 = Annotated[int, Path(ge=1, le=MAX_ID)]  # a 64-bit id column
Id31 = Annotated[int, Path(ge=1, le=2**31 - 1)]  # a 32-bit id column
RequestId = Annotated[int, Path(ge=1, le=2**62)]  # an operator's chain request

Responses = dict[int | str, dict[str, Any]]


def error_responses(*statuses: int) -> Responses:
    """The statuses a route may answer with, each with the error model."""
    return {s: {"model": ErrorResponse} for s in statuses}


def described_errors(*statuses: int) -> Responses:
    """The statuses a route may answer with, each described in words only."""
    return {s: {"description": "error: {error: {code, message, detail}}"} for s in statuses}
