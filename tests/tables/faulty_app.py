"""The app with failures injected into live tables' background work, for the tests that check
that no match waits forever (``tests/hostile/test_stalls.py``). Only tests launch it; the
product's ``backend.api.app`` carries no such switch (the chaos run makes the database refuse
commits instead).

- ``DEW_TEST_FAIL_BOT_MOVES``: the first N bot moves computed raise ``UnknownBotError`` (as
  the registry's first-load race did); ``always``: every one does.
- ``DEW_TEST_FAIL_BOT_COMMITS``: the first N commits holding a bot's move (the group
  commit's batch, or a match's final commit) raise, as a database refusing them would.
- ``DEW_TEST_RETRY_S``: the supervisor's first pause and longest pause are this and 4x this
  (instead of seconds), so a test sees every step of the ladder quickly.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import Any

from fastapi import FastAPI

from backend.api.app import create_app as create_product_app
from backend.game import UnknownBotError
from backend.tables import play
from backend.tables.live import loops, store


class Budget:
    """How many more failures to inject (thread-safe: bots and commits run in threads)."""

    def __init__(self, setting: str | None) -> None:
        self.always = setting == "always"
        self.left = 0 if self.always or not setting else int(setting)
        self.spent = 0
        self._lock = threading.Lock()

    def take(self) -> bool:
        with self._lock:
            if self.always or self.left > 0:
                self.left -= 1
                self.spent += 1
                return True
            return False


def _failing_bot_move(budget: Budget, real: Callable[..., str]) -> Callable[..., str]:
    def bot_move(match: Any, level: str, salt: str) -> str:
        if budget.take():
            raise UnknownBotError(f"no bot {level!r}; bots: [] (injected)")
        return real(match, level, salt)

    return bot_move


def _refusing(budget: Budget, real: Callable[..., Any], rows_of: Callable[..., Any]) -> Any:
    def write(*args: Any) -> Any:
        if any(row.get("actor") == "bot" for row in rows_of(*args)) and budget.take():
            raise RuntimeError("injected: the database refused a bot's move")
        return real(*args)

    return write


def create_app() -> FastAPI:
    moves = Budget(os.environ.get("DEW_TEST_FAIL_BOT_MOVES"))
    commits = Budget(os.environ.get("DEW_TEST_FAIL_BOT_COMMITS"))
    play.bot_move = _failing_bot_move(moves, play.bot_move)  # type: ignore[assignment]
    writer = store.MoveWriter
    writer._insert_core = _refusing(commits, writer._insert_core, lambda _self, rows: rows)  # type: ignore[method-assign]
    writer._insert_pg = _refusing(commits, writer._insert_pg, lambda _self, rows: rows)  # type: ignore[method-assign]
    store.commit_final = _refusing(  # type: ignore[assignment]
        commits, store.commit_final, lambda _engine, last_move, _finish: [last_move]
    )
    if "DEW_TEST_RETRY_S" in os.environ:
        loops.RETRY_FIRST_S = float(os.environ["DEW_TEST_RETRY_S"])
        loops.RETRY_MAX_S = 4 * loops.RETRY_FIRST_S
    return create_product_app()
