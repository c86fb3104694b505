"""The HTTP edge: the request body limit, security headers and rate limits, as pure ASGI
middleware around the whole app (a ``dew serve`` reached without a proxy is still bounded).
"""

from __future__ import annotations

import re

from fastapi import FastAPI, HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from backend.api.errors import Headers, send_error
from backend.config import Settings

# --- request bodies ---------------------------------------------------------------------


class BodyTooLarge(HTTPException):
    """Raised from ``receive`` once a streamed body passes the limit; rendered as 413."""

    def __init__(self, limit: int) -> None:
        super().__init__(
            status_code=413,
            detail=f"request bodies are limited to {limit} bytes",
            headers={"Connection": "close"},
        )


class BodyLimitMiddleware:
    """Refuses a body over ``limit`` bytes: at once by its Content-Length, or, for a chunked
    or understated body, as soon as the bytes read pass the limit (never buffered whole)."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.limit
        for name, value in scope["headers"]:
            if name == b"content-length":
                if not value.isdigit() or int(value) > limit:
                    await self._refuse(send)
                    return
                break
        received = 0
        started = False

        async def counting_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise BodyTooLarge(limit)
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, counting_receive, tracking_send)
        except BodyTooLarge:
            # Read outside FastAPI's handlers (which render it themselves): answer here.
            if started:
                raise
            await self._refuse(send)

    async def _refuse(self, send: Send) -> None:
        # Connection: close, so that the server does not read the rest of the body.
        await send_error(
            send,
            413,
            "too_large",
            f"request bodies are limited to {self.limit} bytes",
            {"limit_bytes": self.limit},
            [(b"connection", b"close")],
        )


# --- security headers -------------------------------------------------------------------

# A Host header that can go into a CSP source expression as it is.
_HOST = re.compile(rb"^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?$")
# FastAPI's interactive docs load Swagger UI / ReDoc from a CDN with an inline script.
_DOCS_PATHS = frozenset({"/docs", "/docs/oauth2-redirect", "/redoc"})
_CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "font-src 'self'; connect-src 'self'{sockets}; manifest-src 'self'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)
_STATIC_HEADERS: Headers = [
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
]


def content_security_policy(host: bytes | None) -> bytes:
    """The page's policy: everything from this origin only, no inline script, and the
    table sockets of this host (``'self'`` does not cover ``ws:`` in every browser)."""
    sockets = ""
    if host and _HOST.match(host):
        name = host.decode()
        sockets = f" ws://{name} wss://{name}"
    return _CSP.format(sockets=sockets).encode()


class SecurityHeadersMiddleware:
    """Adds the headers to every HTTP response (the API's JSON as well as the web client)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        host = next((v for k, v in scope["headers"] if k == b"host"), None)
        docs = scope["path"] in _DOCS_PATHS

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {k.lower() for k, _ in headers}
                added = [(k, v) for k, v in _STATIC_HEADERS if k not in present]
                if not docs and b"content-security-policy" not in present:
                    added.append((b"content-security-policy", content_security_policy(host)))
                message = {**message, "headers": headers + added}
            await send(message)

        await self.app(scope, receive, with_headers)


def install_http_edge(app: FastAPI, settings: Settings) -> None:
    """Wrap the app: headers outermost (a 413 or 429 carries them too), then the rate
    limits (before any body is read), then the body limit."""
    from backend.api.ratelimit import RateLimitMiddleware

    app.add_middleware(BodyLimitMiddleware, limit=settings.http.max_body_bytes)
    if settings.http.rate_limits:
        app.add_middleware(RateLimitMiddleware, settings=settings)
    if settings.http.security_headers:
        app.add_middleware(SecurityHeadersMiddleware)
