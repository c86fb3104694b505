"""`dew migrate`: bring the configured database up to date."""

import typer

from backend.cli.app import app
from backend.config import get_settings

# The services are imported inside each command: start-up cost (see backend/cli/__init__.py).


@app.command("migrate")
def migrate_command(
    revision: str = typer.Option("heads", help="Alembic revision to upgrade to"),
) -> None:
    """Run the Alembic migrations on the database of DEW_DB_URL."""
    from backend.db import migrate

    url = get_settings().db.url
    migrate(url, revision)
    typer.echo(f"database at {revision}: {url}")
