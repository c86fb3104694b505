"""The hub keeps nothing of a connect it refused (issue 17, finding 5)."""

from __future__ import annotations

import asyncio

import pytest

from backend.config import Settings
from backend.tables import exceptions as exc
from backend.tables.live.connections import Conn
from backend.tables.live.hub import MatchHub


def test_a_connect_to_an_unknown_table_leaves_no_hub_state(db_engine, session_factory) -> None:  # type: ignore[no-untyped-def]
    hub = MatchHub(Settings(), db_engine, session_factory)

    async def connects() -> None:
        for n in range(50):
            with pytest.raises(exc.TableNotFound):
                await hub.attach(f"{n:032x}", Conn(None))

    asyncio.run(connects())
    # Before, each refused id stayed in the loading map with its lock, for good.
    assert hub._loading == {} and hub.tables == {}
