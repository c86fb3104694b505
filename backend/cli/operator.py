"""Operator commands: avatar mints and VIP passes through the chain outbox, and seasons.

``dew mint-avatars`` queues a mint in the outbox (the worker sends it; ``--wait`` polls the
request until it is confirmed or failed), ``dew vip issue|revoke`` queues a VIP pass issue or
revoke the same way, ``dew season create|schedule`` opens seasons.
They call the same services as the operator-only routes (``backend.economy.operator``),
straight on the configured database: whoever can run ``dew`` there is the operator.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Annotated

import typer

from backend.cli.app import app
from backend.cli.kit import RequestKey, Wait, WaitTimeout, database, fail, queued
from backend.economy.exceptions import EconomyError

# The services are imported inside each command: start-up cost (see backend/cli/__init__.py).

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

season_app = typer.Typer(help="Open seasons (each with an emission budget).", no_args_is_help=True)
app.add_typer(season_app, name="season")
vip_app = typer.Typer(
    help="Issue and revoke VIP passes (through the chain outbox).", no_args_is_help=True
)
app.add_typer(vip_app, name="vip")


def _when(value: str | None, what: str) -> datetime:
    """ISO 8601 (a time without a zone is UTC); ``None`` is now."""
    if value is None:
        return datetime.now(UTC)
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        raise fail(f"{what} is not an ISO 8601 time: {value!r}") from None
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)


def _wei(value: str, what: str) -> int:
    if not value.isdigit():
        raise fail(f"{what} must be DEW wei, a whole number: {value!r}")
    return int(value)


@app.command("mint-avatars")
def mint_avatars(
    recipients: Annotated[list[str], typer.Argument(help="One avatar to each address")],
    key: RequestKey,
    wait: Wait = False,
    timeout_s: WaitTimeout = 120.0,
) -> None:
    """Queue avatar mints in the chain outbox; the worker sends them."""
    from backend.economy import operator

    status = queued(
        EconomyError,
        operator.queue_mint,
        operator.mint_status,
        "mint request",
        lambda status: (
            f"mint request #{status.id} ({status.status}): {len(status.recipients)} avatars, "
            f"key {status.idempotency_key!r}"
        ),
        key=key,
        wait=wait,
        timeout_s=timeout_s,
        recipients=recipients,
    )
    if wait:
        for recipient, token_id in zip(status.recipients, status.token_ids or [], strict=True):
            typer.echo(f"  avatar #{token_id} -> {recipient}")
        typer.echo(f"minted in tx {status.tx_hash}")


@season_app.command("create")
def season_create(
    name: Annotated[str, typer.Argument(help="Unique name, 1..64 characters")],
    budget: Annotated[str, typer.Option(help="Emission budget, DEW wei")],
    starts: Annotated[str | None, typer.Option(help="ISO 8601 start (default: now)")] = None,
    ends: Annotated[str | None, typer.Option(help="ISO 8601 end (default: --days on)")] = None,
    days: Annotated[float, typer.Option(help="Length when --ends is not given")] = 7.0,
    rewards: Annotated[
        str, typer.Option(help="DEW wei per leaderboard place, comma-separated, place 1 first")
    ] = "",
) -> None:
    """Open one season; overlapping another season is refused. ``--rewards`` pays the
    leaderboard's top places at its end (reserved from the budget now)."""
    from backend.db.base import aware
    from backend.economy import operator

    starts_at = _when(starts, "--starts")
    if ends is not None:
        ends_at = _when(ends, "--ends")
    elif days > 0:
        ends_at = starts_at + timedelta(days=days)
    else:
        raise fail(f"--days must be positive, got {days}")
    with database(EconomyError) as sessions, sessions.begin() as session:
        season = operator.create_season(
            session=session,
            name=name,
            starts_at=starts_at,
            ends_at=ends_at,
            emission_budget=_wei(budget, "--budget"),
            rewards=[_wei(a.strip(), "--rewards") for a in rewards.split(",") if a.strip()],
        )
        typer.echo(
            f"season #{season.id} {season.name!r} {aware(season.starts_at).isoformat()} .. "
            f"{aware(season.ends_at).isoformat()}, budget {season.emission_budget} DEW wei"
        )
        if rewards:
            typer.echo(
                f"  rewards by place (DEW wei): {rewards}; reserved from the budget: "
                f"{season.emitted}"
            )


@season_app.command("schedule")
def season_schedule(
    count: Annotated[int, typer.Option(help="How many seasons, 1..100")],
    budget: Annotated[str, typer.Option(help="Each season's emission budget, DEW wei")],
    first: Annotated[str | None, typer.Option(help="ISO 8601 start of the first")] = None,
    days: Annotated[float, typer.Option(help="Each season's length")] = 7.0,
    prefix: Annotated[str, typer.Option(help="Named '<prefix> 1..count'")] = "Season",
) -> None:
    """Open back-to-back seasons: all of them, or none if one is refused."""
    from backend.db.base import aware
    from backend.economy import operator

    first_starts_at = _when(first, "--first")
    if not 0 < days <= 366:
        raise fail(f"--days must be in (0, 366], got {days}")
    with database(EconomyError) as sessions, sessions.begin() as session:
        created = operator.schedule_seasons(
            session=session,
            first_starts_at=first_starts_at,
            count=count,
            length=timedelta(days=days),
            emission_budget=_wei(budget, "--budget"),
            name_prefix=prefix,
        )
        for season in created:
            typer.echo(
                f"season #{season.id} {season.name!r} {aware(season.starts_at).isoformat()} .. "
                f"{aware(season.ends_at).isoformat()}"
            )


@season_app.command("end")
def season_end(
    season_id: Annotated[int, typer.Argument(help="The running season to end now")],
) -> None:
    """End a running season now; the worker then pays its leaderboard rewards."""
    from backend.db.base import aware
    from backend.economy import operator

    with database(EconomyError) as sessions, sessions.begin() as session:
        season = operator.end_season(session=session, season_id=season_id)
        typer.echo(f"season #{season.id} {season.name!r} ended {aware(season.ends_at).isoformat()}")


@vip_app.command("issue")
def vip_issue(
    address: Annotated[str, typer.Argument(help="The pass holder's address")],
    key: RequestKey,
    days: Annotated[float, typer.Option(help="The pass is valid this many days from now")] = 30.0,
    wait: Wait = False,
    timeout_s: WaitTimeout = 120.0,
) -> None:
    """Queue a VIP pass for ADDR valid --days from now; the worker sends it. Run again with
    the same key, it is the same request (the first run's expiry stands)."""
    from backend.economy import operator

    if not 0 < days <= operator.MAX_VIP_TERM_S / 86400:
        raise fail(f"--days must be in (0, {operator.MAX_VIP_TERM_S // 86400}], got {days}")

    def issue(*, session: Session, idempotency_key: str, chain_id: int) -> operator.VipStatus:
        first = operator.vip_by_key(session=session, idempotency_key=idempotency_key)
        expires_at = (
            first.expires_at
            if first is not None and first.action == "issue" and first.expires_at is not None
            else int(time.time() + days * 86400)
        )
        return operator.queue_vip(
            session=session,
            action="issue",
            address=address,
            expires_at=expires_at,
            idempotency_key=idempotency_key,
            chain_id=chain_id,
        )

    def said(status: operator.VipStatus) -> str:
        until = datetime.fromtimestamp(status.expires_at or 0, UTC).isoformat()
        return (
            f"VIP issue request #{status.id} ({status.status}): {status.address} until {until}, "
            f"key {status.idempotency_key!r}"
        )

    status = queued(
        EconomyError,
        issue,
        operator.vip_status,
        "VIP request",
        said,
        key=key,
        wait=wait,
        timeout_s=timeout_s,
    )
    if wait:
        typer.echo(f"issued in tx {status.tx_hash}")


@vip_app.command("revoke")
def vip_revoke(
    address: Annotated[str, typer.Argument(help="The pass holder's address")],
    key: RequestKey,
    wait: Wait = False,
    timeout_s: WaitTimeout = 120.0,
) -> None:
    """Queue the revoke of ADDR's VIP pass; the worker sends it (it fails if ADDR holds none)."""
    from backend.economy import operator

    status = queued(
        EconomyError,
        operator.queue_vip,
        operator.vip_status,
        "VIP request",
        lambda status: (
            f"VIP revoke request #{status.id} ({status.status}): {status.address}, "
            f"key {status.idempotency_key!r}"
        ),
        key=key,
        wait=wait,
        timeout_s=timeout_s,
        action="revoke",
        address=address,
    )
    if wait:
        typer.echo(f"revoked in tx {status.tx_hash}")
