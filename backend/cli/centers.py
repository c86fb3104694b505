"""``dew center mint``: the operator mints a Game Center through the chain outbox,
as ``POST /operator/centers`` does, through the same service (``backend.centers.operator``);
the worker sends it and the indexer mirrors it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from backend.centers.exceptions import CentersError
from backend.cli.app import app
from backend.cli.kit import RequestKey, Wait, WaitTimeout, queued

# The services are imported inside each command: start-up cost (see backend/cli/__init__.py).

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

center_app = typer.Typer(help="Game Centers (mint through the chain outbox).", no_args_is_help=True)
app.add_typer(center_app, name="center")


@center_app.command("mint")
def mint(
    to: Annotated[str, typer.Argument(help="The center's first owner (address)")],
    name: Annotated[str, typer.Option(help="Up to 64 bytes")],
    country: Annotated[str, typer.Option(help="ISO 3166-1 alpha-2, e.g. ES")],
    city: Annotated[str, typer.Option(help="Up to 64 bytes")],
    lat: Annotated[float, typer.Option(help="Latitude, degrees (kept to the hundredth)")],
    lon: Annotated[float, typer.Option(help="Longitude, degrees (kept to the hundredth)")],
    capacity: Annotated[int, typer.Option(help="Tables it may host at once, 1..500")],
    key: RequestKey,
    wait: Wait = False,
    timeout_s: WaitTimeout = 120.0,
) -> None:
    """Queue one Game Center mint in the chain outbox; the worker sends it."""
    from backend.centers import operator

    def mint(*, session: Session, idempotency_key: str, chain_id: int) -> operator.CenterMintStatus:
        center = operator.describe(
            to=to, name=name, country=country, city=city, lat_e2=round(lat * 100),
            lon_e2=round(lon * 100), capacity=capacity,
        )  # fmt: skip
        return operator.queue_center_mint(
            session=session, center=center, idempotency_key=idempotency_key, chain_id=chain_id
        )

    status = queued(
        CentersError,
        mint,
        operator.center_mint_status,
        "center mint",
        lambda status: (
            f"center mint #{status.id} ({status.status}), key {status.idempotency_key!r}"
        ),
        key=key,
        wait=wait,
        timeout_s=timeout_s,
    )
    if status.center_id is not None:
        typer.echo(f"center #{status.center_id} -> {status.center['to']} in tx {status.tx_hash}")


@center_app.command("report")
def report(
    center_id: Annotated[int, typer.Argument(help="The Game Center's id")],
    season: Annotated[int | None, typer.Option(help="Only this season")] = None,
    limit: Annotated[int, typer.Option(help="Matches listed, newest first (1..500)")] = 100,
    as_json: Annotated[bool, typer.Option("--json", help="The report as one JSON object")] = False,
) -> None:
    """A host's earnings: the center's fee share per season, then per match with the
    transaction that paid it (as ``GET /centers/{id}/report`` gives it)."""
    import json
    from decimal import Decimal

    from backend.cli.kit import database
    from backend.competitions import hosting

    if not 1 <= limit <= 500:
        raise typer.BadParameter(f"1..500, got {limit}", param_hint="--limit")
    with database(CentersError) as sessions, sessions() as session:
        got = hosting.center_report(
            session=session, center_id=center_id, season_id=season, limit=limit
        )
    if as_json:
        typer.echo(json.dumps(got, default=str))
        return

    def dew(wei: str) -> str:
        return f"{Decimal(wei) / 10**18:,.2f} DEW"

    typer.echo(f"center #{got['center_id']} {got['name']}, paid to {got['payee']}")
    for s in got["seasons"]:
        name = s["season"] or "no season"
        typer.echo(
            f"  {name}: {s['matches']} matches, earned {dew(s['earned'])} "
            f"(paid {dew(s['paid'])}, pending {dew(s['pending'])}, failed {dew(s['failed'])})"
        )
    for m in got["matches"]:
        typer.echo(
            f"  {m['finished_at']:%Y-%m-%d %H:%M}  {m['match_id']}  {dew(m['amount'])}  "
            f"{m['status']}  {m['tx_hash'] or '-'}"
        )
    typer.echo(f"earned {dew(got['earned'])}, paid {dew(got['paid'])}")
