"""A bot's wait for its turn is armed once: a socket's catch-up (a guest's table opening, a
spectator connecting) used to re-arm it, putting the bot's move off by another bot delay."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, cast

from backend.config import ServerSettings, Settings
from backend.tables.live.loops import Host, Loops
from backend.tables.live.state import LiveTable

DELAY_S = 0.2


@dataclass
class BotToMove:
    """What the timer reads of a table whose seat 1, a bot, is to move."""

    table_id: str = "0" * 32
    match_id: str | None = "m" * 32
    ply: int = 0
    timer: asyncio.TimerHandle | None = None
    timer_for: tuple[str | None, int, str, int] | None = None

    def to_move(self) -> int:
        return 1

    def bot_level(self, seat: int) -> str:
        return "easy"

    def deadline(self) -> None:
        return None


@dataclass
class Bots:
    """The hub's side of a bot's turn: the plies it was asked to play."""

    settings: Settings = field(
        default_factory=lambda: Settings(server=ServerSettings(bot_move_delay_s=DELAY_S))
    )
    played: list[int] = field(default_factory=list)

    async def bot_turn(self, lt: Any, ply: int) -> None:
        self.played.append(ply)


def test_a_catch_up_keeps_the_bots_wait_and_a_new_turn_arms_a_new_one() -> None:
    async def scenario() -> None:
        bots = Bots()
        loops = Loops(cast(Host, bots))
        table = BotToMove()
        lt = cast(LiveTable, table)
        loops.schedule(lt)
        armed = table.timer
        assert armed is not None
        loops.schedule(lt)  # a socket attached: catch_up schedules again
        assert table.timer is armed and not armed.cancelled()
        await asyncio.sleep(DELAY_S * 3)
        assert bots.played == [0]  # played once, at the first wait's end
        # Fired: the same ply scheduled again (its move refused, say) arms a new wait.
        loops.schedule(lt)
        assert table.timer is not None and table.timer is not armed
        again = table.timer
        table.ply = 1  # the match moved on: the next turn's wait replaces this one
        loops.schedule(lt)
        assert again.cancelled() and table.timer is not again
        loops.stop_turns()
        table.timer.cancel()

    asyncio.run(scenario())
