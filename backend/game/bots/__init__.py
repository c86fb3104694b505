"""Bots: a bot gets a seat's view and returns one of its legal moves. Registered by name.

To add a bot, write a module in this package that decorates a factory with
``@register_bot("name")``; modules named in ``_BOT_MODULES`` are imported on first lookup, so
``backend/game/bots/expert.py`` is picked up as soon as it exists.
"""

from __future__ import annotations

import importlib
import random
import threading
from collections.abc import Callable
from typing import Protocol, runtime_checkable

from backend.game.view import SeatView


@runtime_checkable
class Bot(Protocol):
    """A player that sees only its seat's view."""

    name: str

    def choose(self, view: SeatView) -> str:
        """One of ``view["legal_moves"]`` (called only on the bot's turn)."""
        ...


BotFactory = Callable[[random.Random], Bot]
"""Builds a bot; all of the bot's chance must come from the given ``random.Random``."""

_REGISTRY: dict[str, BotFactory] = {}
_BOT_MODULES = ("backend.game.bots.heuristic", "backend.game.bots.expert")
_loaded = False
# Bots are made in worker threads (the server computes bot moves off its event loop): the
# first lookups of several threads must all wait for the one import of the bot modules.
_load_lock = threading.RLock()


class UnknownBotError(KeyError):
    """No bot is registered under this name."""

    def __str__(self) -> str:
        return str(self.args[0])


def register_bot(name: str) -> Callable[[BotFactory], BotFactory]:
    """Decorator: register a bot factory under ``name`` (a later registration replaces it)."""

    def decorate(factory: BotFactory) -> BotFactory:
        _REGISTRY[name] = factory
        return factory

    return decorate


def _load_builtin() -> None:
    global _loaded
    if _loaded:
        return
    # Re-entrant: a bot module may look up another bot while it is imported.
    with _load_lock:
        if _loaded:
            return
        for module in _BOT_MODULES:
            try:
                importlib.import_module(module)
            except ModuleNotFoundError as error:
                if error.name != module:  # a missing dependency inside a bot is a real error
                    raise
        # Only now: a thread that sees the flag finds every bot registered.
        _loaded = True


def bot_names() -> list[str]:
    """Names of every registered bot."""
    _load_builtin()
    return sorted(_REGISTRY)


def make_bot(name: str, rng: random.Random | int | str = 0) -> Bot:
    """A new bot by name; ``rng`` (or a seed for one) is its only source of chance."""
    _load_builtin()
    try:
        factory = _REGISTRY[name]
    except KeyError:
        raise UnknownBotError(f"no bot {name!r}; bots: {sorted(_REGISTRY)}") from None
    return factory(rng if isinstance(rng, random.Random) else random.Random(rng))


__all__ = ["Bot", "BotFactory", "UnknownBotError", "bot_names", "make_bot", "register_bot"]
