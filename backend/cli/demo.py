"""`dew demo`: the main job. One command plays a short season and pays it on chain.

It starts a real anvil and deploys the contracts, starts the match server (``dew serve``), a
Celery worker and beat as subprocesses (``backend.devstack.stack``) on the embedded defaults
(SQLite database and SQLite broker in a fresh directory), then plays the season as real
clients (``backend.demo.season``): every wallet signs in with SIWE over HTTP, signs the
transactions the API hands it with its own key, and plays its seats over the WebSocket.
The operator's side (season, mint request, VIP pass, the economy's periodic jobs) runs in
this process. It ends with a table per wallet and the reconciliation of the ledger against
the chain (``backend.demo.report``); the exit code is 0 only if they agree to the unit and
every wallet's DEW balance moved by exactly what the ledger says it was paid.

The same scenario runs on PostgreSQL + Redis (``--db-url``, ``--redis-url``): the e2e tests
in ``tests/e2e`` run it both ways and check the balances with their own arithmetic.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Annotated

import typer

from backend.chain.crash import STEPS
from backend.cli.app import app
from backend.cli.kit import run_dir
from backend.demo.players import DemoFailed
from backend.demo.run import run_demo
from backend.demo.season import DemoConfig


@app.command("demo")
def demo_command(
    workdir: Annotated[
        Path | None, typer.Option(help="State directory (default: a fresh one under var/demo)")
    ] = None,
    db_url: Annotated[
        str | None, typer.Option(help="Database (default: SQLite in workdir)")
    ] = None,
    broker_url: Annotated[
        str | None, typer.Option(help="Celery broker (default: SQLite in workdir)")
    ] = None,
    redis_url: Annotated[str | None, typer.Option(help="Server pub/sub (default: none)")] = None,
    keep: Annotated[bool, typer.Option(help="Keep the state directory afterwards")] = True,
    boundaries: Annotated[
        bool,
        typer.Option(help="Then: early termination refund, an expired rental refused at join"),
    ] = False,
    crash_worker_at: Annotated[
        str | None,
        typer.Option(help="Kill the worker at this step of the first settlement, then restart it"),
    ] = None,
    stay: Annotated[
        bool, typer.Option(help="Keep serving after the season (web client at /) until Ctrl-C")
    ] = False,
) -> None:
    """Play a short season end to end on a fresh chain and pay it; exit 0 only if it reconciles."""
    if crash_worker_at is not None and crash_worker_at not in STEPS:
        raise typer.BadParameter(f"--crash-worker-at must be one of {list(STEPS)}")
    workdir = run_dir(workdir, "demo")
    config = DemoConfig(
        workdir=workdir,
        db_url=db_url,
        broker_url=broker_url,
        redis_url=redis_url,
        crash_worker_at=crash_worker_at,
        boundaries=boundaries,
        stay=stay,
        out=lambda text: typer.echo(text),
    )
    try:
        result = run_demo(config)
    except DemoFailed as error:
        typer.echo(f"DEMO FAILED: {error}\n(logs in {workdir})", err=True)
        raise typer.Exit(1) from None
    typer.echo(f"done in {result.seconds:.0f}s; state and logs in {workdir}")
    if not keep:
        shutil.rmtree(workdir, ignore_errors=True)
    raise typer.Exit(0 if result.ok else 1)
