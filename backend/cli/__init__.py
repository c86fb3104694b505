"""The ``dew`` command line. Each module below registers its own commands on ``app``."""

from backend.cli import chain, competitions, db, demo, game, money, server, stack  # noqa: F401  (registers commands)
from backend.cli.app import app

__all__ = ["app"]
