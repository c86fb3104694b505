"""`dew demo`: the main job (the DEMO engineer owns this file)."""

from backend.cli.app import app  # noqa: F401
