"""The application factory: ``create_app()`` wires settings, database, routers and live play."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from backend.api import ws
from backend.api.edge import install_http_edge
from backend.api.errors import install_error_handlers
from backend.api.ops.http import install as install_ops
from backend.api.routers import (
    auth,
    care,
    centers,
    competitions,
    complaints,
    creators,
    economy,
    fees,
    friends,
    markets,
    matches,
    matchmaking,
    names,
    operator,
    presets,
    results,
    tables,
    wallet,
)
from backend.api.web import install_web_client
from backend.competitions.watch import TournamentWatch
from backend.config import Settings, get_settings
from backend.db import create_db_engine, make_session_factory
from backend.ops.redaction import install_log_redaction
from backend.tables.gating import ClosedGate, Gate
from backend.tables.live.hub import MatchHub

log = logging.getLogger(__name__)

API_DESCRIPTION = """Domino Earning World match server.

Sign in with your wallet (EIP-4361), find or create a table, then play over the
WebSocket described in docs/protocol.md. Every error has the shape
`{"error": {"code": "...", "message": "...", "detail": ...}}` with a stable `code`.
"""


def create_app(settings: Settings | None = None, gate: Gate | None = None) -> FastAPI:
    # Access tokens travel in the play socket's query string: keep them out of every log.
    install_log_redaction()
    settings = settings or get_settings()
    engine = create_db_engine(
        settings.db.url, echo=settings.db.echo, pool_size=settings.server.db_pool_size
    )

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        install_log_redaction()  # again: uvicorn (re)configures logging after the factory
        hub: MatchHub = app.state.hub
        gate = app.state.gate
        await hub.start()
        if hasattr(gate, "start"):
            gate.start()
        try:
            yield
        finally:
            if hasattr(gate, "stop"):
                gate.stop()
            await app.state.tournament_watch.stop()
            await hub.stop()
            engine.dispose()

    app = FastAPI(
        title="DEW match server",
        version="1",
        description=API_DESCRIPTION,
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.engine = engine
    app.state.session_factory = make_session_factory(engine)
    app.state.read_session_factory = make_session_factory(engine, read_only=True)
    app.state.gate = gate or _default_gate(settings)
    app.state.hub = MatchHub(settings, engine, app.state.session_factory, app.state.gate)
    # Polls only read: deferred sessions, which on SQLite take no write lock.
    app.state.tournament_watch = TournamentWatch(settings.sockets, app.state.read_session_factory)
    # Every service's errors become statuses in one table (backend/api/errors.py).
    install_error_handlers(app)
    # One router per URL prefix, each in backend/api/routers/<prefix>.py.
    app.include_router(auth.router)
    app.include_router(names.router)
    app.include_router(presets.router)
    app.include_router(tables.router)
    app.include_router(matchmaking.router)
    app.include_router(matches.router)
    app.include_router(results.router)
    app.include_router(ws.router)
    app.include_router(competitions.router)
    app.include_router(centers.router)  # Game Centers
    app.include_router(creators.router)
    app.include_router(fees.router)
    # The player's money (docs/economy.md, "Deposits and withdrawals"): withdrawals need
    # only the outbox; a deposit or the on-chain balance answers 503 without a deployment.
    app.include_router(wallet.router)
    app.include_router(complaints.router)
    app.include_router(friends.router)  # friends, private messages, invitations
    app.include_router(care.router)  # standing, limits, breaks, moderation
    app.include_router(operator.router)
    if settings.chain.manifest_path.exists():
        # Scholarship transactions to sign, the mirror, reports and seasons (docs/economy.md).
        # Only with a deployment, like the on-chain gate: without one every write route
        # could only answer 503 chain_unavailable.
        app.include_router(economy.router)
        # The shop, the resale market and accessories (docs/economy.md, "Markets").
        app.include_router(markets.router)

    @app.get("/health", tags=["meta"])
    def health() -> dict[str, str]:
        return {"status": "ok"}

    install_web_client(app)
    install_http_edge(app, settings)
    # Last, so its middleware is the outermost: request ids and latency cover the edge's own
    # refusals too (429, 413), and /metrics and /ready (docs/operations.md).
    install_ops(app, settings)
    return app


def _default_gate(settings: Settings) -> Gate:
    """The on-chain gate when a deployment manifest exists, else a closed gate."""
    if settings.chain.manifest_path.exists():
        from backend.tables.chain_gate import ChainGate

        return ChainGate.from_settings(settings)
    return ClosedGate()
