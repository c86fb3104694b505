"""How the expert spends its search: more on close decisions, less on clear ones,
and deals kept from one decision to the next when the moves since then allow them.

Both are counted, never timed, so a decision stays a function of the view and the bot's
``random.Random`` state (and of the views it decided on before in this hand).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from math import inf, sqrt
from typing import TYPE_CHECKING, Protocol

from backend.game.bots.position import ends_after
from backend.game.moves import parse_move
from backend.game.tiles import BIT, EITHER_SUIT
from backend.game.view import SeatView

if TYPE_CHECKING:  # the expert imports this module; only type names flow back
    from backend.game.bots.position import Position
    from backend.game.bots.settings import ExpertSettings

World = tuple[list[int], list[int]]
"""Every seat's hand (masks) and a boneyard order."""


class Sampler(Protocol):
    def sample(self, rng: random.Random) -> World: ...


class Budget:
    """Collects each world's values of the candidates and says when to stop.

    The values of the candidates in one world are paired (the same deal, the same chances), so
    the leader's lead over another candidate is judged on the per-world differences. After
    ``min_share`` of the budget the search stops as soon as the leader is ``clear_z`` standard
    errors ahead of every other candidate; at the full budget it stops unless some candidate is
    within ``close_z`` standard errors, and such close decisions may go on up to ``max_share``.
    """

    __slots__ = ("base", "clear_z", "close_z", "limit", "min_worlds", "next_check", "rows", "spent")

    def __init__(self, settings: ExpertSettings, candidates: int) -> None:
        self.base = settings.step_budget
        self.limit = settings.step_budget * max(1.0, settings.max_share)
        self.clear_z = settings.clear_z
        self.close_z = settings.close_z
        self.min_worlds = settings.min_worlds
        self.next_check = settings.step_budget * settings.min_share
        self.spent = 0
        self.rows: list[list[float]] = []

    def add(self, values: list[float]) -> None:
        """One world's value of every candidate."""
        self.rows.append(values)

    def spend(self, cost: int) -> bool:
        """Charge ``cost`` simulated moves; whether the search should stop now."""
        self.spent += cost
        if len(self.rows) < self.min_worlds:
            return False
        if self.spent >= self.limit:
            return True
        if self.spent < self.next_check:
            return False
        step = self.spent + self.base / 5
        self.next_check = self.base if self.spent < self.base < step else step
        lead = self.lead()
        return lead >= (self.close_z if self.spent >= self.base else self.clear_z)

    def means(self) -> list[float]:
        """Each candidate's mean value over the worlds seen."""
        count = len(self.rows)
        return [sum(column) / count for column in zip(*self.rows, strict=True)]

    def lead(self) -> float:
        """The leader's smallest paired lead over another candidate, in standard errors."""
        means = self.means()
        leader = max(range(len(means)), key=means.__getitem__)
        n = len(self.rows)
        smallest = inf
        for k in range(len(means)):
            if k == leader:
                continue
            diffs = [row[leader] - row[k] for row in self.rows]
            mean = sum(diffs) / n
            variance = sum((d - mean) ** 2 for d in diffs) / max(1, n - 1)
            if variance > 0:
                smallest = min(smallest, mean / sqrt(variance / n))
            elif mean <= 0:  # equal in every world: more worlds would not tell them apart
                continue
        return smallest


class DealMemory:
    """The worlds of the seat's previous decision in this hand, carried to the next one.

    A world survives the moves made since then if it gave each tile played by another seat to
    that seat and no seat a tile fitting the ends it passed on. Those worlds are a uniform draw
    from the deals consistent with the old facts, kept only where the new facts hold, so they
    are a uniform draw from the deals consistent with the new facts: the same law as fresh
    ones. A draw since then (who got which tile is only partly known) ends the chain.
    """

    __slots__ = ("enabled", "history", "key", "worlds")

    def __init__(self, enabled: bool = True) -> None:
        self.enabled = enabled
        self.key: tuple[object, ...] | None = None
        self.history: list[list[object]] = []
        self.worlds: list[World] = []

    def forget(self) -> None:
        self.key = None
        self.worlds = []

    def pool(
        self,
        view: SeatView,
        position: Position,
        size: int,
        rng: random.Random,
        new_sampler: Callable[[], Sampler],
    ) -> list[World]:
        """``size`` worlds: the surviving ones first, then fresh ones from ``new_sampler``."""
        kept = self._carry(view, position)[:size] if self.enabled else []
        if len(kept) < size:
            sampler = new_sampler()
            kept += [sampler.sample(rng) for _ in range(size - len(kept))]
        if self.enabled:
            self.key = _key_of(view)
            self.history = [list(entry) for entry in view["history"]]
            self.worlds = kept
        return kept

    def _carry(self, view: SeatView, position: Position) -> list[World]:
        history = view["history"]
        old = len(self.history)
        if (
            self.key != _key_of(view)
            or not self.worlds
            or [list(entry) for entry in history[:old]] != self.history
        ):
            return []
        me = position.me
        counts = view["tile_counts"]
        left = right = -1
        plays: list[tuple[int, int]] = []
        passes: list[tuple[int, int]] = []
        for index, (seat, text) in enumerate(history):
            move = parse_move(text)
            if move.kind == "draw" and index >= old:
                return []
            if move.kind == "pass" and index >= old and seat != me:
                passes.append((seat, EITHER_SUIT[left][right] if left >= 0 else 0))
            if move.kind != "play":
                continue
            t = move.tile
            if index >= old and seat != me:
                plays.append((seat, t))
            left, right = ends_after(left, right, move)
        survivors: list[World] = []
        for hands, boneyard in self.worlds:
            hands = hands[:]
            alive = True
            for seat, t in plays:
                if not hands[seat] & BIT[t]:
                    alive = False
                    break
                hands[seat] ^= BIT[t]
            if not alive or any(hands[seat] & fits for seat, fits in passes):
                continue
            hands[me] = position.my_hand
            others = 0
            for seat, hand in enumerate(hands):
                if seat != me:
                    others |= hand
                    if hand.bit_count() != counts[seat]:
                        alive = False
            for t in boneyard:
                others |= BIT[t]
            if alive and others == position.unseen:
                survivors.append((hands, boneyard))
        return survivors


def _key_of(view: SeatView) -> tuple[object, ...]:
    """Which hand of which table a view belongs to, as far as the view tells."""
    history = view["history"]
    opening = tuple(history[0]) if history else None
    return (view["preset"], view["seat"], view["hand_number"], len(view["previous_hands"]), opening)
