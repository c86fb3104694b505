"""`dew` commands for the server area."""

from backend.cli.app import app  # noqa: F401
