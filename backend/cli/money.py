"""`dew withdraw`: the operator's view of stake withdrawals, and a withdrawal filed for a
player who asked for it (support). Payment goes through the outbox like any payout."""

from __future__ import annotations

import json
import re
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Annotated

import typer

from backend.cli.app import app
from backend.cli.kit import echo_rows, refused
from backend.config import get_settings
from backend.economy.exceptions import EconomyError
from backend.kit import errors as kind

# The services are imported inside each command: start-up cost (see backend/cli/__init__.py).

if TYPE_CHECKING:
    from sqlalchemy.orm import Session, sessionmaker

    from backend.config import Settings

withdraw_app = typer.Typer(
    help="Stake withdrawals: list and inspect them, or file one for a player.",
    no_args_is_help=True,
)
app.add_typer(withdraw_app, name="withdraw")

DEW = 10**18
AMOUNT = re.compile(r"^[0-9]{1,30}(\.[0-9]{1,18})?$")


def parse_dew(text: str) -> int:
    """``"2.5"`` DEW as wei, exactly; anything but a positive decimal is refused."""
    if not AMOUNT.match(text):
        raise typer.BadParameter(f"not a DEW amount (e.g. 2.5): {text!r}", param_hint="AMOUNT")
    try:
        wei = int(Decimal(text) * DEW)
    except InvalidOperation:  # the pattern above makes this unreachable; keep it explicit
        raise typer.BadParameter(f"not a DEW amount: {text!r}", param_hint="AMOUNT") from None
    if wei <= 0:
        raise typer.BadParameter(f"the amount must be positive: {text!r}", param_hint="AMOUNT")
    return wei


def _sessions() -> tuple[Settings, sessionmaker[Session]]:
    from backend.db import create_db_engine, make_session_factory

    settings = get_settings()
    return settings, make_session_factory(create_db_engine(settings.db.url))


def _line(w: dict[str, object]) -> str:
    amount = int(w["amount"])  # type: ignore[call-overload]
    text = (
        f"{w['id']}  {w['address']}  {Decimal(amount) / DEW:>14} DEW  {w['state']:<9}"
        f"  {w['tx_hash'] or '-'}"
    )
    return text + (f"  ({w['reason']})" if w["reason"] else "")


@withdraw_app.command("list")
def list_command(
    address: Annotated[str | None, typer.Option(help="Only this wallet's")] = None,
    state: Annotated[
        str | None, typer.Option(help="requested, sent, waiting, paid or failed")
    ] = None,
    limit: Annotated[int, typer.Option(min=1, max=10_000)] = 50,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON array")] = False,
) -> None:
    """Withdrawals, newest first, with their state and transaction."""
    from backend.economy.withdrawals import list_withdrawals

    _settings, sessions = _sessions()
    with sessions() as session:
        try:
            rows = list_withdrawals(session=session, address=address, state=state, limit=limit)
        except EconomyError as error:
            refused(error)
    echo_rows(rows, _line, "withdrawal", as_json=as_json)


@withdraw_app.command("show")
def show_command(withdrawal_id: str) -> None:
    """One withdrawal as JSON; exit 1 if there is none."""
    from backend.economy.withdrawals import get_withdrawal

    _settings, sessions = _sessions()
    with sessions() as session:
        try:
            row = get_withdrawal(session=session, withdrawal_id=withdrawal_id)
        except kind.NotFound as error:
            typer.echo(str(error), err=True)
            raise typer.Exit(1) from None
        except EconomyError as error:
            refused(error)
    typer.echo(json.dumps(row, default=str))


@withdraw_app.command("request")
def request_command(
    address: str,
    amount: Annotated[str, typer.Argument(help="DEW, e.g. 2.5 (at most 18 decimals)")],
    key: Annotated[
        str, typer.Option(help="The player's request id: the same key never pays twice")
    ],
) -> None:
    """File a withdrawal of ADDRESS's stake balance that the player asked for (support)."""
    from backend.economy.stakes import WithdrawalBounds, request_withdrawal
    from backend.economy.withdrawals import get_withdrawal

    wei = parse_dew(amount)
    settings, sessions = _sessions()
    with sessions() as session:
        try:
            settlement = request_withdrawal(
                session=session,
                address=address,
                amount=wei,
                key=key,
                chain_id=settings.chain.chain_id,
                bounds=WithdrawalBounds.from_settings(settings.economy),
            )
            session.commit()
        except EconomyError as error:
            session.rollback()
            refused(error)
        row = get_withdrawal(session=session, withdrawal_id=settlement.match_id)
    typer.echo(_line(row))
