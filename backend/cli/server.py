"""`dew` commands for the server area: run the match server."""

from __future__ import annotations

import os
from typing import Annotated

import typer

from backend.cli.app import app
from backend.cli.kit import database
from backend.config import VAR_DIR, get_settings
from backend.ops.redaction import install_log_redaction
from backend.tables import exceptions as tables_exc

# The services are imported inside each command: start-up cost (see backend/cli/__init__.py).


@app.command()
def serve(
    host: Annotated[str | None, typer.Option(help="Bind address (DEW_SERVER_HOST)")] = None,
    port: Annotated[int | None, typer.Option(help="Port (DEW_SERVER_PORT)")] = None,
    migrate_db: Annotated[
        bool, typer.Option("--migrate/--no-migrate", help="Upgrade the database first")
    ] = True,
    log_level: Annotated[str, typer.Option(help="debug, info, warning")] = "info",
    workers: Annotated[
        int,
        typer.Option(
            min=1,
            help="uvicorn worker processes (more than one needs DEW_SERVER_REDIS_URL: the "
            "workers share live matches through PostgreSQL and Redis like separate servers)",
        ),
    ] = 1,
) -> None:
    """Run the match server (HTTP API + WebSocket play) on the configured database.

    With no configuration it uses the embedded defaults: a SQLite file under var/ and a
    single process (no Redis). Set DEW_DB_URL / DEW_SERVER_REDIS_URL for PostgreSQL and
    several processes.
    """
    import uvicorn

    from backend.db import migrate
    from backend.ops import logs, multiproc

    settings = get_settings()
    logs.configure(settings.log.format, log_level, force=True)
    # uvicorn's spawned workers configure their own logging from settings: same level.
    os.environ["DEW_LOG_LEVEL"] = log_level
    install_log_redaction()
    if settings.metrics.enabled:
        # One directory per run, wiped first; uvicorn's worker processes inherit it.
        multiproc.prepare(settings.metrics.multiproc_dir, VAR_DIR, "serve")
    from backend.api.app import create_app  # after the metrics directory is set

    if workers > 1 and not settings.server.redis_url:
        typer.echo("error: --workers above 1 needs DEW_SERVER_REDIS_URL", err=True)
        raise typer.Exit(2)
    if migrate_db:
        migrate(settings.db.url)
    typer.echo(
        f"DEW match server on http://{host or settings.server.host}:{port or settings.server.port}"
        f" (database {settings.db.url.split('@')[-1]}, docs at /docs)"
    )
    uvicorn.run(
        # Several workers each build their own app from the same settings (environment).
        "backend.api.app:create_app" if workers > 1 else create_app(settings),
        factory=workers > 1,
        workers=workers,
        host=host or settings.server.host,
        port=port or settings.server.port,
        log_level=log_level,
        # Logging is ours (backend/ops/logs.py): uvicorn's loggers write through it.
        log_config=None,
        # The protocol refuses big messages itself; this only caps what is buffered.
        ws_max_size=max(settings.server.ws_max_message_bytes * 4, 65536),
        # Moves are ~1 KB of JSON: compressing them costs more CPU and memory than it saves.
        ws_per_message_deflate=False,
        # Sockets are closed (clients reconnect elsewhere and resync); do not wait forever.
        timeout_graceful_shutdown=10,
        # Only these proxies may name the client in X-Forwarded-For: the rate limits count
        # per client address (docs/security.md).
        forwarded_allow_ips=settings.http.forwarded_allow_ips,
    )


@app.command("abandon-match")
def abandon_match(
    match_id: Annotated[str, typer.Argument(help="The live match to end without a result")],
    reason: Annotated[str, typer.Option(help="Why (stored with the match)")] = "operator",
) -> None:
    """End a live match without a result and give every escrowed stake back."""
    from backend.tables import service

    with database(tables_exc.TablesError) as sessions, sessions() as session:
        released = service.abandon_match(session=session, match_id=match_id, reason=reason)
    typer.echo(f"match {match_id} abandoned; {released} DEW wei of stakes released")
