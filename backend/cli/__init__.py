"""The ``dew`` command line. Each module below registers its own commands on ``app``."""

from backend.cli import (  # noqa: F401  (registers commands)
    centers,
    chain,
    competitions,
    complaints,
    db,
    demo,
    game,
    money,
    operator,
    ops,
    server,
    shop,
    stack,
)
from backend.cli.app import app

__all__ = ["app"]
