"""`dew status`: what /ready checks, plus waiting settlements and the vault's allowance."""

from __future__ import annotations

import json
from typing import Any

import typer

from backend.cli.app import app
from backend.config import get_settings

# The services are imported inside each command: start-up cost (see backend/cli/__init__.py).


def _dew(wei: int | None) -> str:
    return "unknown" if wei is None else f"{wei / 10**18:,.2f} DEW"


@app.command("status")
def status_command(
    as_json: bool = typer.Option(False, "--json", help="One JSON object instead of text"),
) -> None:
    """Readiness of this installation (database, Redis, node, contracts, worker heartbeat),
    the transaction engine's requests by state, waiting settlements and the vault's window.
    Exits 1 when a check fails."""
    from sqlalchemy.orm import Session

    from backend.api.ops.readiness import Readiness
    from backend.api.ops.readiness import as_json as checks_json
    from backend.api.ops.state import read_state

    settings = get_settings()
    readiness = Readiness(settings)
    try:
        checks = readiness.run()
        state: dict[str, Any] | None = None
        if all(c.ok for c in checks if c.name == "database"):
            try:
                with Session(readiness.engine) as session:
                    state = read_state(session)
            except Exception as error:  # e.g. not migrated yet
                typer.echo(f"warning: could not read the state: {error!r}", err=True)
    finally:
        readiness.close()
    report = {**checks_json(checks), "state": state}
    if as_json:
        typer.echo(json.dumps(report, indent=2, default=str))
    else:
        typer.echo(f"status: {report['status']}")
        for c in checks:
            typer.echo(
                f"  {'ok  ' if c.ok else 'FAIL'} {c.name:<10} {c.detail} ({c.seconds:.2f} s)"
            )
        if state is not None:
            r = state["requests"]
            typer.echo(
                "chain requests: "
                + ", ".join(f"{k} {v}" for k, v in r.items())
                + f" (oldest waiting {state['oldest']['waiting']:.0f} s)"
            )
            typer.echo(f"settlements waiting on the vault: {state['waiting_settlements']}")
            limit, available = state["vault_limit"], state["vault_available"]
            share = f" ({available / limit:.0%} of {_dew(limit)})" if limit else ""
            typer.echo(f"vault window allowance: {_dew(available)}{share}")
            lag = ", ".join(f"{k} {v} blocks" for k, v in state["indexer_lag"].items())
            typer.echo(f"indexer lag: {lag or 'unknown'}; head {state['chain_head']}")
            typer.echo(
                f"live matches {state['live_matches']}, matchmaking queue "
                f"{state['queue_length']} (oldest {state['queue_oldest_s']:.0f} s)"
            )
    if report["status"] != "ready":
        raise typer.Exit(1)
