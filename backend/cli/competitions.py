"""Operator commands for tournaments: create one, cancel one (refunding every entry fee)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Annotated

import typer

from backend.cli.app import app
from backend.cli.kit import database, echo_rows
from backend.competitions import exceptions as exc
from backend.config import get_settings

# The services are imported inside each command: start-up cost (see backend/cli/__init__.py).


def _settlement_limit() -> int:
    """The vault's per-match payout limit, read from the configured chain."""
    from web3 import Web3

    from backend.chain.contracts import Contracts, load_manifest
    from backend.competitions import service

    settings = get_settings()
    w3 = Web3(Web3.HTTPProvider(settings.chain.rpc_url))
    return service.settlement_limit(Contracts(w3, load_manifest(settings.chain.manifest_path)))


@app.command("create-tournament")
def create_tournament(
    name: Annotated[str, typer.Argument(help="Unique name, e.g. 'Campeonato 1'")],
    preset: Annotated[str, typer.Option(help="Rule preset of every game")] = "draw",
    tier: Annotated[str, typer.Option(help="campeonato|campeonisimo|supercampeones")] = (
        "campeonato"
    ),
    fmt: Annotated[str, typer.Option("--format", help="swiss|elimination")] = "swiss",
    season_id: Annotated[int | None, typer.Option(help="Season for seeding and max-rank")] = None,
    entry_fee: Annotated[int, typer.Option(help="DEW wei taken from the stake balance")] = 0,
    added_prize: Annotated[int, typer.Option(help="DEW wei from the season's budget")] = 0,
    fee_bps: Annotated[int, typer.Option(help="Platform fee on entry fees, bps")] = 0,
    prize_bps: Annotated[
        str, typer.Option(help="Comma-separated bps per place")
    ] = "5000,3000,2000",
    qualify_top: Annotated[int, typer.Option(help="Places qualifying for the next tier")] = 0,
    qualifier_of: Annotated[int | None, typer.Option(help="The feeder tournament")] = None,
    max_rank: Annotated[int | None, typer.Option(help="Season rank needed to enter")] = None,
    vip: Annotated[bool, typer.Option(help="Entrants need a VIP pass")] = False,
    avatar: Annotated[bool, typer.Option(help="Entrants play an avatar")] = False,
    min_entrants: Annotated[int, typer.Option()] = 4,
    max_entrants: Annotated[int, typer.Option()] = 64,
    starts_in_s: Annotated[float, typer.Option(help="Registration closes in this long")] = 3600,
    round_every_s: Annotated[float, typer.Option(help="Rounds no closer than this")] = 0,
    turn_timeout_s: Annotated[float, typer.Option()] = 30.0,
) -> None:
    """Open a tournament for registration."""
    from backend.competitions import service

    with database(exc.CompetitionsError, ValueError) as sessions:
        spec = service.TournamentSpec(
            name=name,
            preset=preset,
            tier=tier,
            format=fmt,
            season_id=season_id,
            entry_fee=entry_fee,
            added_prize=added_prize,
            fee_bps=fee_bps,
            prize_bps=[int(x) for x in prize_bps.split(",") if x.strip()],
            qualify_top=qualify_top,
            qualifier_of=qualifier_of,
            max_rank=max_rank,
            requires_vip=vip,
            requires_avatar=avatar,
            min_entrants=min_entrants,
            max_entrants=max_entrants,
            starts_at=datetime.now(UTC) + timedelta(seconds=starts_in_s),
            round_every_s=round_every_s,
            turn_timeout_s=turn_timeout_s,
        )
        # A pool is paid by one settlement: it must fit the vault's limit, read from the chain.
        pool = max_entrants * entry_fee + added_prize
        try:
            limit = _settlement_limit() if pool else None
        except Exception as error:  # no manifest, node down: the pool cannot be checked
            typer.echo(f"error: cannot read the vault's limits from the chain: {error}", err=True)
            raise typer.Exit(1) from None

        with sessions() as session:
            t = service.create_tournament(
                session=session,
                spec=spec,
                created_by="operator",
                settlement_limit=limit,
                max_fee_bps=get_settings().fees.tournament_max_bps,
                settings=get_settings(),
            )
            typer.echo(f"tournament {t.id} {t.name!r} open until {t.starts_at.isoformat()}")


@app.command("cancel-tournament")
def cancel_tournament(
    tournament_id: Annotated[int, typer.Argument(help="The tournament to cancel")],
    reason: Annotated[str, typer.Option(help="Why (stored and shown)")] = "operator",
) -> None:
    """Cancel a tournament: every entry fee back to its wallet's stake balance."""
    from backend.competitions import service

    with database(exc.CompetitionsError) as sessions, sessions() as session:
        done = service.cancel(session=session, tournament_id=tournament_id, reason=reason)
    typer.echo(
        f"tournament {tournament_id} cancelled; {done.refunded} DEW wei of entry fees refunded; "
        f"{len(done.abandoned_matches)} matches abandoned"
    )


@app.command("contribute")
def contribute(
    tournament_id: Annotated[int, typer.Argument(help="The tournament whose prizes grow")],
    amount: Annotated[str, typer.Argument(help="DEW, e.g. 25 or 2.5")],
    sender: Annotated[str, typer.Option("--from", help="The contributing wallet's address")],
    key_env: Annotated[
        str | None,
        typer.Option(help="Sign and send with the private key in this environment variable"),
    ] = None,
) -> None:
    """DEW Contribution: add DEW to a tournament's prize pool through the Contributions
    contract. Checked first (the tournament open, the pool within what the vault pays in one
    settlement, the wallet's DEW); then the transactions are printed as JSON for the wallet to
    sign, or signed and sent with --key-env. The pool grows once the indexer sees them."""
    import json
    import os

    from web3 import Web3

    from backend.chain.contracts import Contracts, load_manifest
    from backend.chain.unsigned import sign_and_send
    from backend.cli.money import parse_dew
    from backend.competitions.contributions import ContributionTxBuilder

    wei = parse_dew(amount)
    key = os.environ.get(key_env) if key_env else None
    if key_env and not key:
        raise typer.BadParameter(f"{key_env} is not set", param_hint="--key-env")
    settings = get_settings()
    w3 = Web3(Web3.HTTPProvider(settings.chain.rpc_url))
    builder = ContributionTxBuilder(Contracts(w3, load_manifest(settings.chain.manifest_path)))
    with database(exc.CompetitionsError) as sessions, sessions() as session:
        txs = builder.contribute(
            session=session, tournament_id=tournament_id, contributor=sender, amount=wei
        )
    if key is None:
        typer.echo(json.dumps([tx.to_json() for tx in txs], indent=2))
        return
    for tx, tx_hash in zip(txs, sign_and_send(w3, key, txs), strict=True):
        typer.echo(f"{tx.description}: {tx_hash}")


@app.command("contributions")
def list_contributions(
    tournament_id: Annotated[int, typer.Argument(help="The tournament")],
    as_json: Annotated[bool, typer.Option("--json", help="One JSON array")] = False,
) -> None:
    """Who contributed DEW to a tournament's prizes (the newest 500), and the total."""
    from decimal import Decimal

    from backend.competitions import contributions, service

    with database(exc.CompetitionsError) as sessions, sessions() as session:
        service.get_tournament(session=session, tournament_id=tournament_id)
        rows = contributions.contributions_to(
            session=session, tournament_id=tournament_id, limit=500
        )
        total = contributions.contributed(session=session, tournament_id=tournament_id)
    echo_rows(
        [(r.created_at, r.contributor, int(r.amount)) for r in rows],
        lambda r: f"{r[0]:%Y-%m-%d %H:%M}  {r[1]}  {Decimal(r[2]) / 10**18} DEW",
        "contribution",
        as_json=as_json,
        as_dict=lambda r: {"at": r[0], "contributor": r[1], "amount": str(r[2])},
    )
    if not as_json:
        typer.echo(f"{Decimal(total) / 10**18} DEW contributed in all")
