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

from backend.kit import errors as kind

log = logging.getLogger(__name__)


class ErrorBody(BaseModel):
    code: str
    message: str
    detail: Any | None = None


class ErrorResponse(BaseModel):
    error: ErrorBody


# One row per kind of error (backend.kit.errors), narrowest first: every package's errors
# subclass one kind, so a new error needs no row here.
STATUS_BY_ERROR: list[tuple[type[Exception], int]] = [(k, k.status) for k in kind.KINDS]


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
    assert isinstance(error, kind.DewError)
    return JSONResponse(
        error_payload(error.code, error.message, error.detail), status_code=status_for(error)
    )


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
    app.add_exception_handler(kind.DewError, _domain_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(Exception, _unexpected_error)
