"""Structured logs with structlog: one event per line, keys not sentences.

Every stdlib record (uvicorn, Celery, ours) and every structlog event goes through one
handler on the root logger, rendered as JSON (``DEW_LOG_FORMAT=json``) or for a terminal.
Context bound with :func:`bind` (``request_id``, ``match_id``, ``task``...) is carried by
contextvars into each line, through ``run_in_threadpool`` and into Celery tasks (the
request id travels in the task's headers, see ``worker/celery_app.py``).

Credentials never reach a line: the redaction filter of ``backend.ops.redaction``
rewrites records first, and :func:`_redact_event` scrubs every string of the final event.
"""

from __future__ import annotations

import logging
import re
import sys
import uuid
from typing import Any

import structlog
from structlog.contextvars import bind_contextvars, bound_contextvars, get_contextvars
from structlog.typing import EventDict

from backend.ops.redaction import install_log_redaction, redact

REQUEST_ID_HEADER = "x-request-id"
# What a caller's X-Request-ID may be to be kept: short, and only characters that cannot
# break a log line or a header.
_SANE_ID = re.compile(r"[A-Za-z0-9._:-]{1,64}")

bind = bind_contextvars
bound = bound_contextvars
__all__ = ["bind", "bound", "configure", "current_request_id", "request_id_from"]


def request_id_from(header: str | None) -> str:
    """The caller's request id if it is a sane value, else a new one."""
    if header and _SANE_ID.fullmatch(header):
        return header
    return uuid.uuid4().hex


def current_request_id() -> str | None:
    value = get_contextvars().get("request_id")
    return value if isinstance(value, str) else None


def _redact_value(value: Any) -> Any:
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {k: _redact_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_redact_value(v) for v in value]
    return value


def _drop_color(_logger: Any, _name: str, event: EventDict) -> EventDict:
    event.pop("color_message", None)  # uvicorn's copy of the message with terminal escapes
    return event


def _redact_event(_logger: Any, _name: str, event: EventDict) -> EventDict:
    return {k: _redact_value(v) for k, v in event.items()}


class _Handler(logging.StreamHandler):  # type: ignore[type-arg]
    """Ours (so configure() is idempotent and knows its own handler)."""


def configure(fmt: str = "console", level: str = "INFO", *, force: bool = False) -> None:
    """Route every log record through structlog's renderer on stderr. With ``force`` it
    replaces what is there (``dew serve``, ``dew worker``); without, it configures only an
    unconfigured root logger (a spawned uvicorn worker), and otherwise leaves logging as
    its owner set it (the CLI's level, pytest's capture) and only adds the redaction."""
    root = logging.getLogger()
    if root.handlers and not force:
        install_log_redaction()
        return
    shared: list[Any] = [
        structlog.contextvars.merge_contextvars,
        structlog.stdlib.add_log_level,
        structlog.stdlib.add_logger_name,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
        structlog.stdlib.ExtraAdder(),
        _drop_color,
    ]
    renderer: Any = (
        structlog.processors.JSONRenderer()
        if fmt == "json"
        else structlog.dev.ConsoleRenderer(colors=sys.stderr.isatty())
    )
    formatter = structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=shared,
        processors=[
            structlog.stdlib.ProcessorFormatter.remove_processors_meta,
            structlog.processors.format_exc_info,
            _redact_event,
            renderer,
        ],
    )
    handler = _Handler(sys.stderr)
    handler.setFormatter(formatter)
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level.upper())
    structlog.configure(
        processors=[*shared, structlog.stdlib.ProcessorFormatter.wrap_for_formatter],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=True,
    )
    # uvicorn's and Celery's loggers write through the root handler (no handlers of their own).
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access", "celery"):
        logger = logging.getLogger(name)
        logger.handlers.clear()
        logger.propagate = True
    install_log_redaction()
