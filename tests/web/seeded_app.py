"""The app with every match dealt from one seed, ``DEW_TEST_DEAL_SEED``, for a browser test
that needs a known deal (tests/web/drawing.py). Only tests launch it; the product's
``backend.api.app`` always deals from a fresh secret seed."""

from __future__ import annotations

import os

from fastapi import FastAPI

from backend.api.app import create_app as create_product_app
from backend.game import commitment
from backend.tables import play


def create_app() -> FastAPI:
    seed = os.environ["DEW_TEST_DEAL_SEED"]
    play.new_seed = lambda: (seed, commitment(seed))  # type: ignore[method-assign]
    return create_product_app()
