"""`dew complaints`: the operator's queue of reports of players (list, show, close)."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import TYPE_CHECKING, Annotated

import typer

from backend.cli.app import app
from backend.cli.kit import echo_rows, refused
from backend.config import get_settings
from backend.tables.exceptions import ComplaintNotFound, TablesError

# The services are imported inside each command: start-up cost (see backend/cli/__init__.py).

if TYPE_CHECKING:
    from sqlalchemy.orm import Session, sessionmaker

    from backend.tables.moderation.complaints import ComplaintRow

complaints_app = typer.Typer(
    help="Reports of players by their table mates: list, show and close them.",
    no_args_is_help=True,
)
app.add_typer(complaints_app, name="complaints")


def _sessions() -> sessionmaker[Session]:
    from backend.db import create_db_engine, make_session_factory

    return make_session_factory(create_db_engine(get_settings().db.url))


def _line(c: ComplaintRow) -> str:
    note = f"  {c.note!r}" if c.note else ""
    where = f"table {c.table_id}" if c.table_id else f"message {c.message_id}: {c.message!r}"
    return (
        f"#{c.id}  {c.status:<6}  {c.created_at:%Y-%m-%d %H:%M}  {c.reason:<16}  "
        f"{c.reported} by {c.reporter}  {where}{note}"
    )


@complaints_app.command("list")
def list_command(
    status: Annotated[str, typer.Option(help="open, closed or all")] = "open",
    reported: Annotated[str | None, typer.Option(help="Only about this wallet")] = None,
    limit: Annotated[int, typer.Option(min=1, max=10_000)] = 50,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON array")] = False,
) -> None:
    """Complaints, newest first."""
    from backend.tables.moderation.complaints import list_complaints

    with _sessions()() as session:
        try:
            rows = list_complaints(
                session=session,
                status=None if status == "all" else status,
                reported=reported,
                limit=limit,
            )
        except TablesError as error:
            refused(error)
    echo_rows(rows, _line, "complaint", as_json=as_json, as_dict=asdict)


@complaints_app.command("show")
def show_command(complaint_id: int) -> None:
    """One complaint as JSON; exit 1 if there is none."""
    from backend.tables.moderation.complaints import get_complaint

    with _sessions()() as session:
        try:
            row = get_complaint(session=session, complaint_id=complaint_id)
        except ComplaintNotFound as error:
            refused(error, 1)
    typer.echo(json.dumps(asdict(row), default=str))


@complaints_app.command("close")
def close_command(
    complaint_id: int,
    resolution: Annotated[str, typer.Option(help="What was done (kept with the complaint)")],
) -> None:
    """Close an open complaint with a resolution."""
    from backend.tables.moderation.complaints import close_complaint

    with _sessions()() as session:
        try:
            row = close_complaint(session=session, complaint_id=complaint_id, resolution=resolution)
        except ComplaintNotFound as error:
            refused(error, 1)
        except TablesError as error:
            refused(error)
    typer.echo(f"closed #{row.id}: {row.resolution}")
