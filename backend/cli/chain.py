"""`dew` commands for the chain area."""

from backend.cli.app import app  # noqa: F401
