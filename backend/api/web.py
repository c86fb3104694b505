"""The web client: ``/`` serves the page, ``/web/...`` its ES modules and styles.

The files live in ``backend/web`` (inside the Python package, so a wheel carries them). They
are plain ES modules: there is no build step, and ``protocol.js`` is generated from
``backend/protocol/messages.py`` and checked for freshness by the tests.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

WEB_DIR = Path(__file__).resolve().parents[1] / "web"


def install_web_client(app: FastAPI) -> None:
    """Mount the page at ``/`` and its files under ``/web``."""

    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        # no-cache: the page revalidates (ETag) so a new deployment is seen at once.
        return FileResponse(WEB_DIR / "index.html", headers={"Cache-Control": "no-cache"})

    @app.get("/favicon.ico", include_in_schema=False)
    def favicon() -> FileResponse:
        # Browsers ask for /favicon.ico whatever the page links: the same drawn tile.
        return FileResponse(WEB_DIR / "favicon.svg", media_type="image/svg+xml")

    app.mount("/web", StaticFiles(directory=WEB_DIR), name="web")
