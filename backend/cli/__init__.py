"""The ``dew`` command line. Each module below registers its own commands on ``app``.

Only commands live here: the process harness is ``backend.devstack`` and the demo's story is
``backend.demo``. A command module imports at its top what is cheap (settings, the error
kinds, the engine, the harness and the demo); a command imports the services it drives (the
database models, web3, the API, the Celery app) inside its function, because every ``dew``
start pays for what the modules import at their top: with all of it there, ``dew --help``
took 4.6 s of CPU against 1.7 s with the services imported inside (``/usr/bin/time``, three
runs each, 2026-11-27). The metrics-creating modules (``backend.api``, ``backend.chain.jobs``)
must be imported inside the command anyway: ``dew serve`` and ``dew worker`` set the metrics'
multiprocess directory before any metric exists (``backend/ops/multiproc.py``).
"""

from backend.cli import (  # noqa: F401  (registers commands)
    care,
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
