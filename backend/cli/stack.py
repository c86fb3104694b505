"""`dew stack`: the docker-compose topology as local processes (``backend.devstack.stack``)."""

from __future__ import annotations

import signal
import threading
from pathlib import Path
from typing import Annotated

import typer

from backend.cli.app import app
from backend.cli.kit import run_dir
from backend.devstack.services import StackFailed
from backend.devstack.stack import Out, StackConfig, running_stack


@app.command("stack")
def stack_command(
    workdir: Annotated[
        Path | None, typer.Option(help="State and logs (default: a fresh one under var/stack)")
    ] = None,
    apis: Annotated[int, typer.Option(min=1, max=8, help="API processes")] = 2,
    workers: Annotated[int, typer.Option(min=0, max=8, help="Celery workers")] = 2,
    db_url: Annotated[
        str | None, typer.Option(help="PostgreSQL URL (default: a private cluster on a free port)")
    ] = None,
    redis_url: Annotated[
        str | None, typer.Option(help="redis://host:port (default: a private redis-server)")
    ] = None,
) -> None:
    """Run the docker-compose topology as local processes until Ctrl-C or SIGTERM: PostgreSQL,
    Redis, anvil (1 s blocks), migrate, deploy, the API processes, the workers and beat."""
    workdir = run_dir(workdir, "stack")
    stop = threading.Event()
    previous = signal.signal(signal.SIGTERM, lambda *_: stop.set())
    out: Out = lambda text: typer.echo(text, nl=True)  # noqa: E731
    config = StackConfig(
        workdir=workdir, apis=apis, workers=workers, db_url=db_url, redis_url=redis_url, out=out
    )
    try:
        with running_stack(config) as stack:
            for url in stack.api_urls:
                out(f"api {url}")
            out(f"chain {stack.node_url}")
            out(f"database {stack.db_url}")
            out(f"broker {stack.broker_url}")
            out(f"workers {workers}, beat 1; logs in {workdir}")
            out("ready (Ctrl-C to stop)")
            try:
                while not stop.wait(1.0):
                    for service in stack.services.values():
                        service.check_alive()
            except KeyboardInterrupt:
                pass
            out("stopping")
    except StackFailed as error:
        typer.echo(f"STACK FAILED: {error}\n(logs in {workdir})", err=True)
        raise typer.Exit(1) from None
    finally:
        signal.signal(signal.SIGTERM, previous)
    out("stopped")
