"""`dew demo`: the main job. One command plays a short season and pays it on chain.

It starts a real anvil and deploys the contracts, starts the match server (``dew serve``), a
Celery worker and beat as subprocesses (``backend.cli.stack``) on the embedded defaults
(SQLite database and SQLite broker in a fresh directory), then plays the season as real
clients (``backend.cli.season``): every wallet signs in with SIWE over HTTP, signs the
transactions the API hands it with its own key, and plays its seats over the WebSocket.
The operator's side (season, mint request, VIP pass, the economy's periodic jobs) runs in
this process. It ends with a table per wallet and the reconciliation of the ledger against
the chain (``backend.cli.report``); the exit code is 0 only if they agree to the unit and
every wallet's DEW balance moved by exactly what the ledger says it was paid.

The same scenario runs on PostgreSQL + Redis (``--db-url``, ``--redis-url``): the e2e tests
in ``tests/e2e`` run it both ways and check the balances with their own arithmetic.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Annotated

import typer

from backend.cli import creators_demo, epilogue, market_demo, report
from backend.cli.app import app

# The demo's public names, importable from here as before the split.
from backend.cli.players import ChainClient as ChainClient
from backend.cli.players import DemoFailed as DemoFailed
from backend.cli.players import PlannedTable as PlannedTable
from backend.cli.players import Wallet as Wallet
from backend.cli.players import api_txs as api_txs
from backend.cli.players import choose_move as choose_move
from backend.cli.players import ok as ok
from backend.cli.results import DemoResult as DemoResult
from backend.cli.results import dew_amount as dew_amount
from backend.cli.season import EMISSION_PER_SEAT as EMISSION_PER_SEAT
from backend.cli.season import FIXED_RENT as FIXED_RENT
from backend.cli.season import RD_OWNER_BPS as RD_OWNER_BPS
from backend.cli.season import RENT_FAUCET as RENT_FAUCET
from backend.cli.season import DemoConfig as DemoConfig
from backend.cli.season import DemoContext as DemoContext
from backend.cli.season import Season as Season
from backend.cli.stack import REPO_ROOT
from backend.cli.stack import wait_for as wait_for


def run_demo(config: DemoConfig, check: Callable[[DemoContext], None] | None = None) -> DemoResult:
    """Play the season; ``check`` (the tests) runs with everything still up, before teardown."""
    config.workdir.mkdir(parents=True, exist_ok=True)
    with ExitStack() as stack:
        season = Season(config, stack)
        season.start()
        season.sign_in()
        creators_demo.bring_players(season)
        season.mint_avatars()
        creators_demo.open_center(season)
        season.scholarships()
        season.vip_pass()
        season.entry_deposits()
        season.deposit_savings()
        season.play()
        season.settle()
        epilogue.campeonato(season)
        epilogue.withdrawal(season)
        result = report.close_the_books(season)
        if config.boundaries:
            result = epilogue.boundaries(season, result)
        result = epilogue.season_rewards(season, result)
        result = market_demo.markets(season, result)
        if check is not None:
            check(season.context())
        if config.stay:
            season.stay()
        season.step("stopping")
    return result


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
    import logging

    from backend.chain.crash import STEPS

    if crash_worker_at is not None and crash_worker_at not in STEPS:
        raise typer.BadParameter(f"--crash-worker-at must be one of {list(STEPS)}")
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s %(message)s")
    if workdir is None:
        (REPO_ROOT / "var" / "demo").mkdir(parents=True, exist_ok=True)
        workdir = Path(tempfile.mkdtemp(prefix="run-", dir=REPO_ROOT / "var" / "demo"))
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
