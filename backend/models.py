"""Every aggregate's models, imported so that ``Base.metadata`` is complete (Alembic, tests).

It lives outside ``backend.db`` so that the database layer never imports the aggregates above it.
"""

import backend.accounts.models
import backend.care.models
import backend.centers.models
import backend.chain.follower
import backend.chain.models
import backend.competitions.contributions
import backend.competitions.models
import backend.creators.models
import backend.economy.models
import backend.friends.models
import backend.markets.models
import backend.ops.models
import backend.tables.models
import backend.tables.moderation.complaints
from backend.db.base import Base

metadata = Base.metadata

__all__ = ["backend", "metadata"]
