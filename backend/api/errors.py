"""One JSON error shape for every HTTP and WebSocket error, with a stable ``code``.

    {"error": {"code": "table_not_found", "message": "...", "detail": ...}}

Services raise their own exceptions (each with a ``code``) and routes let them propagate;
``STATUS_BY_ERROR`` below is the one table that turns them into statuses, and
``install_error_handlers`` (called by ``create_app``) is the one place that registers the
handlers. Request validation, Starlette's own HTTP errors and anything unexpected (500) are
rendered in the same shape.
"""

from __future__ import annotations

import logging
from typing import Any

import orjson
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import Send

from backend.accounts import exceptions as accounts_exc
from backend.centers import exceptions as centers_exc
from backend.centers import operator as centers_operator
from backend.competitions import exceptions as competitions_exc
from backend.creators import exceptions as creators_exc
from backend.economy import exceptions as economy_exc
from backend.economy import operator as economy_operator
from backend.markets import exceptions as markets_exc
from backend.tables import exceptions as tables_exc

log = logging.getLogger(__name__)


class ErrorBody(BaseModel):
    code: str
    message: str
    detail: Any | None = None


class ErrorResponse(BaseModel):
    error: ErrorBody


# The root exception of each service whose errors reach HTTP callers.
DOMAIN_ERRORS: tuple[type[Exception], ...] = (
    accounts_exc.AccountsError,
    tables_exc.TablesError,
    economy_exc.EconomyError,
    competitions_exc.CompetitionsError,
    markets_exc.MarketsError,
    creators_exc.CreatorsError,
    centers_exc.CentersError,
)

# Most specific first: the first matching class decides the status. Each service's root
# comes last in its group: what its subclasses do not name more narrowly.
STATUS_BY_ERROR: list[tuple[type[Exception], int]] = [
    (accounts_exc.PlayRefused, 403),
    (accounts_exc.MalformedSignIn, 400),
    (accounts_exc.SignInRefused, 401),
    (accounts_exc.NotAuthenticated, 401),
    (accounts_exc.RefreshRefused, 401),
    (accounts_exc.AccountsError, 400),
    (tables_exc.TooManyReports, 429),
    (tables_exc.TalkRateLimited, 429),
    (tables_exc.NotFound, 404),
    (tables_exc.Forbidden, 403),
    (tables_exc.Conflict, 409),
    (tables_exc.InvalidRequest, 422),
    (tables_exc.Unavailable, 503),
    (tables_exc.TablesError, 400),
    (economy_exc.NotScreener, 403),
    (economy_exc.TooManyApplications, 429),
    (economy_operator.NotOperator, 403),
    (economy_exc.NotFound, 404),
    (economy_exc.Refused, 409),
    (economy_exc.Conflict, 409),
    (economy_exc.EconomyValueError, 422),
    (economy_exc.Unavailable, 503),
    (economy_exc.EconomyError, 400),
    (markets_exc.NotOwner, 403),
    (markets_exc.NotFound, 404),
    (markets_exc.Refused, 409),
    (markets_exc.Conflict, 409),
    (markets_exc.MarketsValueError, 422),
    (markets_exc.Unavailable, 503),
    (markets_exc.MarketsError, 400),
    (competitions_exc.TournamentNotFound, 404),
    (competitions_exc.NotEligible, 403),
    (competitions_exc.InvalidTournament, 422),
    # Registration closed, already registered, full, short of stake, not cancellable.
    (competitions_exc.CompetitionsError, 409),
    (creators_exc.CreatorNotFound, 404),
    (creators_exc.InvalidCode, 422),
    (creators_exc.BadStatement, 403),
    (creators_exc.BindRefused, 403),
    (creators_exc.TooManyStatements, 429),
    # A code taken, a second code for a wallet, a second bind.
    (creators_exc.CreatorsError, 409),
    # Game Centers (issue 20).
    (centers_operator.CenterMintConflict, 409),
    (centers_exc.CenterNotFound, 404),
    (centers_exc.NotCenterHost, 403),
    (centers_exc.CentersValueError, 422),
    (centers_exc.CentersError, 400),
]


def status_for(error: Exception) -> int:
    for cls, status in STATUS_BY_ERROR:
        if isinstance(error, cls):
            return status
    return 400


def error_payload(code: str, message: str, detail: Any = None) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, "detail": detail}}


Headers = list[tuple[bytes, bytes]]


async def send_error(
    send: Send,
    status: int,
    code: str,
    message: str,
    detail: Any = None,
    headers: Headers | None = None,
    *,
    websocket: bool = False,
) -> None:
    """An error in the house shape, sent straight from a middleware."""
    body = orjson.dumps(error_payload(code, message, detail))
    start = "websocket.http.response.start" if websocket else "http.response.start"
    body_type = "websocket.http.response.body" if websocket else "http.response.body"
    await send(
        {
            "type": start,
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                *(headers or []),
            ],
        }
    )
    await send({"type": body_type, "body": body})


def _domain_error(_request: Request, error: Exception) -> JSONResponse:
    code = getattr(error, "code", "error")
    # accounts' and tables' errors keep their message; economy's and competitions' are str()
    message = getattr(error, "message", str(error))
    return JSONResponse(error_payload(code, message), status_code=status_for(error))


def _validation_error(_request: Request, error: Exception) -> JSONResponse:
    assert isinstance(error, RequestValidationError)
    detail = [
        {"loc": list(e.get("loc", ())), "msg": e.get("msg", ""), "type": e.get("type", "")}
        for e in error.errors()
    ]
    return JSONResponse(
        error_payload("invalid_request", "the request does not match the schema", detail),
        status_code=422,
    )


_HTTP_CODES = {
    401: "not_authenticated",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    413: "too_large",
    429: "rate_limited",
}


def _http_error(_request: Request, error: Exception) -> JSONResponse:
    assert isinstance(error, StarletteHTTPException)
    code = _HTTP_CODES.get(error.status_code, f"http_{error.status_code}")
    return JSONResponse(
        error_payload(code, str(error.detail)),
        status_code=error.status_code,
        headers=getattr(error, "headers", None),
    )


def _unexpected_error(_request: Request, error: Exception) -> JSONResponse:
    log.exception("unhandled error", exc_info=error)
    return JSONResponse(error_payload("internal_error", "internal server error"), status_code=500)


def install_error_handlers(app: FastAPI) -> None:
    """Render every error of ``app`` in the one shape, with the status of the table above."""
    for root in DOMAIN_ERRORS:
        app.add_exception_handler(root, _domain_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(Exception, _unexpected_error)
