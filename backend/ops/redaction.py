"""Keep credentials out of every log line: access tokens in query strings (the play socket's
``?token=``), ``Authorization: Bearer`` values, and anything shaped like a JWT.

uvicorn's access log writes each request's path with its query string, and its error log
each WebSocket's; the filter rewrites the record's arguments in place (keeping their shape,
which uvicorn's access formatter unpacks) before any handler formats them.
"""

from __future__ import annotations

import logging
import re
from typing import Any

REDACTED = "[redacted]"

_SECRETS = (
    # token=, access_token=, refresh_token=, id_token= ... in a query string or a body.
    (re.compile(r"(?i)(\b[a-z_]*token=)[^&\s\"'#]+"), r"\1" + REDACTED),
    (re.compile(r"(?i)(\bbearer\s+)[^\s\"',]+"), r"\1" + REDACTED),
    # A JWT anywhere (header.payload.signature, the header starting with '{"').
    (re.compile(r"eyJ[\w-]*\.[\w-]*\.[\w-]*"), REDACTED),
)

# Records are created at these loggers (a logger's own filters see only its own records);
# the handlers of these see everything that propagates to them.
_LOGGERS = ("uvicorn", "uvicorn.error", "uvicorn.access", "uvicorn.asgi", "backend")
_HANDLER_OWNERS = ("", "uvicorn", "uvicorn.access")


def redact(text: str) -> str:
    for pattern, replacement in _SECRETS:
        text = pattern.sub(replacement, text)
    return text


def _redact_arg(arg: Any) -> Any:
    if isinstance(arg, str):
        return redact(arg)
    if arg is None or isinstance(arg, int | float):
        return arg
    text = str(arg)
    cleaned = redact(text)
    return arg if cleaned == text else cleaned


class RedactTokens(logging.Filter):
    """Rewrites credentials in a record's message, arguments and traceback text."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):
            record.msg = redact(record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(_redact_arg(a) for a in record.args)
        elif isinstance(record.args, dict):
            record.args = {k: _redact_arg(v) for k, v in record.args.items()}
        if record.exc_info and not record.exc_text:
            record.exc_text = redact(logging.Formatter().formatException(record.exc_info))
        elif record.exc_text:
            record.exc_text = redact(record.exc_text)
        return True


_FILTER = RedactTokens()


def _add(target: logging.Filterer) -> None:
    if not any(isinstance(f, RedactTokens) for f in target.filters):
        target.addFilter(_FILTER)


def install_log_redaction() -> None:
    """Put the filter on uvicorn's loggers, ours, and every handler they write through.
    Idempotent; call it again after something (re)configures logging (uvicorn does, in
    each worker process, before the app's lifespan starts)."""
    for name in _LOGGERS:
        _add(logging.getLogger(name))
    for name in _HANDLER_OWNERS:
        for handler in logging.getLogger(name).handlers:
            _add(handler)
    if logging.lastResort is not None:
        _add(logging.lastResort)
