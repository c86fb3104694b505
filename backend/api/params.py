"""What many routers share: ids in the path and the length of a list, bounded to what the
database stores (a bigger one is a bad request, not a database error), the error responses
they document (every error has the one shape of ``backend/api/errors.py``), and a response
model filled from a row."""

from __future__ import annotations

from typing import Annotated, Any, TypeVar

from fastapi import Path, Query
from pydantic import BaseModel

from backend.api.errors import ErrorResponse
from backend.kit.schemas import ADDRESS_PATTERN

MAX_ID = 2**63 - 1
Id63 = Annotated[int, Path(ge=1, le=MAX_ID)]  # a 64-bit id column
Id31 = Annotated[int, Path(ge=1, le=2**31 - 1)]  # a 32-bit id column
RequestId = Annotated[int, Path(ge=1, le=2**62)]  # an operator's chain request
AddressPath = Annotated[str, Path(pattern=ADDRESS_PATTERN)]  # a wallet's or a contract's
# How many rows a list route answers with (its default is the route's own): at most 500.
ListLimit = Annotated[int, Query(ge=1, le=500)]
# A list's page: the rows older than the row ``before`` (the last id of the page before; the
# answer's ``next_before``), of a 32-bit id column: a larger number failed on PostgreSQL (500).
Before = Annotated[
    int | None, Query(ge=1, le=2**31 - 1, description="the last id of the page before")
]

Responses = dict[int | str, dict[str, Any]]


def error_responses(*statuses: int) -> Responses:
    """The statuses a route may answer with, each with the error model."""
    return {s: {"model": ErrorResponse} for s in statuses}


def described_errors(*statuses: int) -> Responses:
    """The statuses a route may answer with, each described in words only."""
    return {s: {"description": "error: {error: {code, message, detail}}"} for s in statuses}


Out = TypeVar("Out", bound=BaseModel)


def out_of(model: type[Out], row: object, **given: Any) -> Out:
    """``model`` with every field read from ``row``'s attribute of the same name, but those
    ``given`` (what the route computes: a status, a link, what only the owner sees)."""
    read = {name: getattr(row, name) for name in model.model_fields if name not in given}
    return model(**read, **given)
