"""Imports every aggregate's models so that ``Base.metadata`` is complete (Alembic, tests)."""

from backend.db.base import Base

# Each aggregate adds its import here, e.g.:
#   import backend.accounts.models  # noqa: F401
import backend.chain.models  # noqa: F401
import backend.accounts.models  # noqa: F401
import backend.tables.models  # noqa: F401
import backend.economy.models  # noqa: F401

metadata = Base.metadata
