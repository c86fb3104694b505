"""What the operator's commands share: the configured database for one command, the exit of a
refused command, a listing's answer, the options of and the wait for a request queued in
the chain outbox, and the logging and fresh state directory of a long-running command."""

from __future__ import annotations

import json
import logging
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn, TypeVar

import typer

from backend.config import VAR_DIR, get_settings

if TYPE_CHECKING:
    from sqlalchemy.orm import Session, sessionmaker

    from backend.chain.operator_requests import RequestState


# The options of every command that queues a chain request: ``--key K [--wait] [--timeout-s S]``.
RequestKey = Annotated[
    str, typer.Option(help="Idempotency key: running again with it never queues twice")
]
Wait = Annotated[bool, typer.Option(help="Wait until the worker's transaction is confirmed")]
WaitTimeout = Annotated[float, typer.Option(help="How long --wait waits")]


def fail(error: object) -> typer.Exit:
    """Say ``error`` on stderr; the exit (code 1) for the caller to raise."""
    typer.echo(f"error: {error}", err=True)
    return typer.Exit(1)


def refused(error: Exception, code: int = 2) -> NoReturn:
    """Say a service's refusal on stderr and end the command (exit 2, or ``code``)."""
    typer.echo(f"refused: {error}", err=True)
    raise typer.Exit(code)


T = TypeVar("T")


def echo_rows(
    rows: Sequence[T],
    line: Callable[[T], str],
    noun: str,
    *,
    as_json: bool,
    as_dict: Callable[[T], object] | None = None,
) -> None:
    """A listing command's answer: one JSON array (each row through ``as_dict`` if given),
    or a line per row and then how many ``noun`` there are."""
    if as_json:
        typer.echo(json.dumps([as_dict(r) if as_dict else r for r in rows], default=str))
        return
    for row in rows:
        typer.echo(line(row))
    typer.echo(f"{len(rows)} {noun}(s)")


@contextmanager
def database(*refusals: type[Exception]) -> Iterator[sessionmaker[Session]]:
    """Sessions on the configured database for one command; an error of ``refusals`` ends
    the command with its message and exit code 1. The engine is closed either way."""
    from backend.db import create_db_engine, make_session_factory

    engine = create_db_engine(get_settings().db.url)
    try:
        yield make_session_factory(engine)
    except refusals as error:
        raise fail(error) from None
    finally:
        engine.dispose()


R = TypeVar("R", bound="RequestState")


def reader(
    sessions: sessionmaker[Session], lookup: Callable[..., R], request_id: int
) -> Callable[[], R]:
    """A call that reads the request anew, in a session of its own, through ``lookup``
    (an operator service's ``*_status(session=, request_id=)``)."""

    def again() -> R:
        with sessions() as session:
            return lookup(session=session, request_id=request_id)

    return again


def settled(
    status: R, again: Callable[[], R], noun: str, timeout_s: float, *, wait: bool = True
) -> R:
    """The request once the worker confirmed it (``again`` reads it anew every half second);
    one that failed, or (``wait``) is still open after ``timeout_s``, ends the command."""
    deadline = time.monotonic() + timeout_s
    while wait and status.status not in ("confirmed", "failed"):
        if time.monotonic() > deadline:
            raise fail(f"{noun} #{status.id} still {status.status} after {timeout_s}s")
        time.sleep(0.5)
        status = again()
    if status.status == "failed":
        raise fail(f"{noun} #{status.id} failed: {status.failure_reason}")
    return status


def queued(
    refusals: type[Exception],
    queue: Callable[..., R],
    lookup: Callable[..., R],
    noun: str,
    said: Callable[[R], str],
    *,
    key: str,
    wait: bool,
    timeout_s: float,
    **fields: object,
) -> R:
    """A chain request queued in one transaction by the operator service ``queue(session=,
    idempotency_key=key, chain_id=, **fields)`` (a refusal ends the command) and said by
    ``said``; with ``wait``, read anew through ``lookup`` until the worker confirmed it. A
    failed one ends the command, waited for or not (``settled``)."""
    chain_id = get_settings().chain.chain_id
    with database(refusals) as sessions:
        with sessions.begin() as session:
            status = queue(session=session, idempotency_key=key, chain_id=chain_id, **fields)
        typer.echo(said(status))
        again = reader(sessions, lookup, status.id)
        return settled(status, again, noun, timeout_s, wait=wait)


def run_dir(workdir: Path | None, kind: str) -> Path:
    """``workdir``, or a fresh ``run-*`` directory under ``var/<kind>``; warnings and worse
    are logged from here on."""
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s %(message)s")
    if workdir is not None:
        return workdir
    (VAR_DIR / kind).mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix="run-", dir=VAR_DIR / kind))
