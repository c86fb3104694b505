"""`dew moderation` (sanctions, appeals, the moderator's role), `dew limits` (a player's
own limits and breaks, set on the player's written request) and `dew support` (players'
tickets and the operator's answers), through the services the ``/care`` routes call: the
same bounds, the same one gate."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict
from datetime import timedelta
from functools import partial
from typing import TYPE_CHECKING, Annotated, TypeVar

import typer

from backend.cli.app import app
from backend.cli.kit import database, echo_rows, refused
from backend.kit.errors import DewError

# The services are imported inside each command: start-up cost (see backend/cli/__init__.py).

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from backend.care.moderation import SanctionRow
    from backend.tables.moderation.support import TicketRow

# Who did it, in the audit, when the operator acts from its shell.
CLI_ACTOR = "operator:cli"

moderation_app = typer.Typer(
    help="Sanctions on wallets (warn, mute, suspend, ban), appeals and moderators.",
    no_args_is_help=True,
)
limits_app = typer.Typer(
    help="A player's own deposit and stake limits, time-outs and self-exclusions.",
    no_args_is_help=True,
)
support_app = typer.Typer(
    help="Players' support tickets: read the threads, answer, close.", no_args_is_help=True
)
app.add_typer(moderation_app, name="moderation")
app.add_typer(limits_app, name="limits")
app.add_typer(support_app, name="support")

T = TypeVar("T")


@contextmanager
def _session() -> Iterator[Session]:
    """One session on the configured database; a service's refusal ends the command (2)."""
    with database() as sessions, sessions() as session:
        try:
            yield session
        except DewError as error:
            refused(error)


def _run(work: Callable[[Session], T]) -> T:
    with _session() as session:
        return work(session)


def _line(s: SanctionRow) -> str:
    state = "lifted" if s.lifted_at else f"until {s.expires_at:%Y-%m-%d %H:%M}"
    appeal = f"  appeal: {s.appeal!r}" if s.appeal else ""
    answer = f"  answer: {s.answer!r}" if s.answer else ""
    return f"#{s.id}  {s.kind:<7}  {s.address}  {state}  {s.reason!r}{appeal}{answer}"


Hours = Annotated[int, typer.Option(min=1, max=87_600, help="How long it lasts, in hours")]
SanctionKind = Annotated[str, typer.Option(help="warn, mute, suspend or ban")]
Reason = Annotated[str, typer.Option(help="Why: the wallet reads it")]


def _impose(act: Callable[..., SanctionRow], kind: str, reason: str, hours: int) -> None:
    """Sanction through ``act`` (on a complaint, or on a wallet), as the operator's shell."""
    from backend.care.moderation import Terms

    terms = Terms(kind, reason, timedelta(hours=hours))
    typer.echo(_line(_run(lambda s: act(session=s, terms=terms, actor=CLI_ACTOR))))


@moderation_app.command("list")
def list_command(
    address: Annotated[str | None, typer.Option(help="Only this wallet's")] = None,
    appealed: Annotated[bool, typer.Option(help="Only appeals waiting for an answer")] = False,
    limit: Annotated[int, typer.Option(min=1, max=10_000)] = 100,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON array")] = False,
) -> None:
    """Sanctions, newest first."""
    from backend.care import moderation

    rows = _run(
        lambda s: (
            moderation.sanctions_of(session=s, address=address, limit=limit)
            if address
            else moderation.list_sanctions(session=s, appealed=appealed, limit=limit)
        )
    )
    echo_rows(rows, _line, "sanction", as_json=as_json, as_dict=asdict)


@moderation_app.command("act")
def act_command(complaint_id: int, kind: SanctionKind, reason: Reason, hours: Hours) -> None:
    """Sanction the wallet an open complaint reports, and close the complaint with it."""
    from backend.tables.moderation import actions

    _impose(partial(actions.act_on_complaint, complaint_id=complaint_id), kind, reason, hours)


@moderation_app.command("sanction")
def sanction_command(address: str, kind: SanctionKind, reason: Reason, hours: Hours) -> None:
    """Sanction a wallet with no complaint behind it."""
    from backend.care import moderation

    _impose(partial(moderation.impose, address=address), kind, reason, hours)


@moderation_app.command("lift")
def lift_command(
    sanction_id: int, note: Annotated[str, typer.Option(help="Why it ends early")]
) -> None:
    """End a sanction early."""
    from backend.care import moderation

    row = _run(
        lambda s: moderation.lift(session=s, sanction_id=sanction_id, actor=CLI_ACTOR, note=note)
    )
    typer.echo(_line(row))


@moderation_app.command("answer")
def answer_command(
    sanction_id: int,
    note: Annotated[str, typer.Option(help="The answer the wallet reads")],
    uphold: Annotated[bool, typer.Option("--uphold/--lift", help="Keep it, or lift it")],
) -> None:
    """Answer a wallet's appeal."""
    from backend.care import moderation

    row = _run(
        lambda s: moderation.answer(
            session=s, sanction_id=sanction_id, actor=CLI_ACTOR, uphold=uphold, note=note
        )
    )
    typer.echo(_line(row))


@moderation_app.command("audit")
def audit_command(sanction_id: int) -> None:
    """A sanction's audit rows as JSON, oldest first."""
    from backend.care import moderation

    rows = _run(lambda s: moderation.audit(session=s, sanction_id=sanction_id))
    typer.echo(json.dumps(rows, default=str))


@moderation_app.command("grant")
def grant_command(address: str) -> None:
    """Give a wallet the moderator's role."""
    from backend.care import moderation

    new = _run(lambda s: moderation.grant(session=s, address=address, by=CLI_ACTOR))
    typer.echo(f"{address} {'is now' if new else 'was already'} a moderator")


@moderation_app.command("revoke")
def revoke_command(address: str) -> None:
    """Take the moderator's role back."""
    from backend.care import moderation

    held = _run(lambda s: moderation.revoke(session=s, address=address))
    typer.echo(f"{address} {'is no longer' if held else 'was not'} a moderator")


@moderation_app.command("moderators")
def moderators_command() -> None:
    """The wallets holding the moderator's role."""
    from backend.care import moderation

    for address in _run(lambda s: moderation.moderators(session=s)):
        typer.echo(address)


@moderation_app.command("payout")
def payout_command(
    address: str,
    key: Annotated[str, typer.Option(help="Idempotency key: a repeat is the same withdrawal")],
) -> None:
    """Withdraw a wallet's whole stake balance to the wallet itself (a banned wallet with no
    session): the worker pays it like any withdrawal."""
    from backend.care import moderation
    from backend.config import get_settings
    from backend.economy.stakes import WithdrawalBounds

    settings = get_settings()
    amount = _run(
        lambda s: moderation.pay_out(
            session=s,
            address=address,
            key=key,
            chain_id=settings.chain.chain_id,
            bounds=WithdrawalBounds.from_settings(settings.economy),
        )
    )
    typer.echo(f"{amount} DEW wei to {address}" if amount else f"nothing to pay to {address}")


# -- limits ----------------------------------------------------------------------------------


@limits_app.command("show")
def show_command(address: str) -> None:
    """A wallet's limits (in force, waiting, used) and breaks, as JSON."""
    from backend.care import limits

    def read(s: Session) -> dict[str, object]:
        return {
            "limits": [asdict(x) for x in limits.limits_of(session=s, address=address)],
            "breaks": [asdict(b) for b in limits.breaks_of(session=s, address=address)],
        }

    typer.echo(json.dumps(_run(read), default=str))


@limits_app.command("set")
def set_command(
    address: str,
    kind: Annotated[str, typer.Option(help="deposit or stake")],
    period: Annotated[str, typer.Option(help="day, week or month")],
    amount: Annotated[
        str, typer.Option(help="DEW wei, or 'none' to remove (a raise waits 24 hours)")
    ],
) -> None:
    """Set a limit on the player's request: lower holds at once, higher after 24 hours."""
    from backend.care import limits

    if amount != "none" and not amount.isdigit():
        refused(ValueError(f"an amount is DEW wei or 'none', not {amount!r:.40}"))
    wei = None if amount == "none" else int(amount)
    row = _run(
        lambda s: limits.set_limit(session=s, address=address, kind=kind, period=period, amount=wei)
    )
    waiting = f", {row.pending} from {row.pending_from:%Y-%m-%d %H:%M}" if row.pending_from else ""
    typer.echo(f"{row.kind} per {row.period}: {row.amount}{waiting} (used {row.used})")


@limits_app.command("break")
def break_command(
    address: str,
    kind: Annotated[str, typer.Option(help="timeout (1-42 days) or exclusion (183+ days)")],
    days: Annotated[int, typer.Option(min=1, max=5 * 365)],
) -> None:
    """Start a time-out or a self-exclusion on the player's request; nothing ends it early."""
    from backend.care import limits

    row = _run(
        lambda s: limits.take_break(
            session=s, address=address, kind=kind, duration=timedelta(days=days)
        )
    )
    typer.echo(f"{row.kind} #{row.id} until {row.ends_at:%Y-%m-%d %H:%M} UTC")


# -- support tickets -------------------------------------------------------------------------


def _ticket_line(t: TicketRow) -> str:
    return f"#{t.id}  {t.status:<8}  {t.address}  {t.about} {t.ref}  {t.subject!r}"


def _thread(t: TicketRow) -> None:
    typer.echo(_ticket_line(t))
    for m in t.messages:
        who = f"staff {m.author}" if m.staff else "player"
        body = "(removed: the account was closed)" if m.body is None else m.body
        typer.echo(f"  {m.created_at:%Y-%m-%d %H:%M}  {who}: {body}")


@support_app.command("list")
def support_list_command(
    status: Annotated[
        str | None, typer.Option(help="open (waiting for an answer), answered or closed")
    ] = "open",
    address: Annotated[str | None, typer.Option(help="Only this wallet's")] = None,
    limit: Annotated[int, typer.Option(min=1, max=1000)] = 100,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON array")] = False,
) -> None:
    """Tickets newest first."""
    from backend.tables.moderation import support

    rows = _run(lambda s: support.tickets(session=s, address=address, status=status, limit=limit))
    echo_rows(rows, _ticket_line, "ticket", as_json=as_json, as_dict=asdict)


@support_app.command("show")
def support_show_command(ticket_id: int) -> None:
    """A ticket with its thread, oldest message first."""
    from backend.tables.moderation import support

    _thread(_run(lambda s: support.ticket(session=s, ticket_id=ticket_id)))


@support_app.command("answer")
def support_answer_command(
    ticket_id: int,
    text: Annotated[str, typer.Option(help="The answer the player reads")],
    close: Annotated[bool, typer.Option(help="And close the ticket")] = False,
) -> None:
    """Answer in a ticket's thread."""
    from backend.tables.moderation import support

    _thread(
        _run(
            lambda s: support.answer(
                session=s, ticket_id=ticket_id, actor=CLI_ACTOR, text=text, close=close
            )
        )
    )


@support_app.command("close")
def support_close_command(ticket_id: int) -> None:
    """Close a ticket."""
    from backend.tables.moderation import support

    _thread(_run(lambda s: support.close(session=s, ticket_id=ticket_id)))
