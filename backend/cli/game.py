"""`dew` commands for the game area."""

from backend.cli.app import app  # noqa: F401
