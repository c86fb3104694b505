"""The expert bot: determinized Monte Carlo search over the seat's view, and nothing else.

For each decision the bot

1. reads the public history of the hand (``SeatView["history"]``) to learn what each other seat
   cannot hold: a seat that passed, or drew, while the ends showed ``a`` and ``b`` held neither
   number at that moment (tiles it draws afterwards are free again);
2. samples a pool of worlds: deals of the unseen tiles to the other seats and to the boneyard,
   uniformly over every deal consistent with those facts and with every seat's tile count
   (``DealSampler``; a boneyard order is part of a world);
3. weighs each world by how well it explains the other seats' past free choices under a model of
   a sensible player (unload heavy tiles and doubles, keep many numbers, keep tiles that follow;
   a softmax with some uniform noise), and resamples the worlds it will play out by that weight;
4. plays every candidate move in every chosen world, then finishes the hand with a playout
   policy in which every seat plays the same model's favourite tile, or now and then a random
   legal one (common random numbers: each world uses the same chances for every candidate), and
   scores the finished hand with the preset's own ``Rules.score_hand``, open-end points and the
   table's own bonus rules (replayed to where the hand stands);
5. plays the candidate with the best mean value: the side's points minus the opponents' points,
   plus a bonus for winning the hand.

The budget is a fixed number of simulated moves per decision (no clock), so for a given view and
``random.Random`` state the choice is always the same. The bot never sees a hidden hand: its only
input is the view; the worlds it plays out are its own guesses.
"""

from __future__ import annotations

import random
from bisect import bisect_right
from collections.abc import Iterable, Iterator, Sequence
from copy import copy
from math import ceil, exp, factorial, log

from backend.game.bots import Bot, register_bot
from backend.game.bots.budget import Budget, DealMemory, World
from backend.game.bots.endgame import EndgameSolver
from backend.game.bots.position import PIP_MASK, BonusPoints, Position, read_position
from backend.game.bots.settings import ExpertSettings
from backend.game.moves import LEFT, Move, parse_move
from backend.game.rules import (
    DRAW_ONE_THEN_PASS,
    NO_DRAWING,
    BonusTracker,
    HandEnd,
)
from backend.game.tiles import (
    BIT,
    EITHER_SUIT,
    HIGH,
    IS_DOUBLE,
    LOW,
    OTHER_HALF,
    PIPS,
    tiles_of,
)
from backend.game.view import SeatView

# Playout policy: heavier tiles and doubles go first (what a sensible player unloads).
_PLAYOUT_WEIGHT: tuple[int, ...] = tuple(PIPS[t] + (8 if IS_DOUBLE[t] else 0) for t in range(28))


class _Dealer:
    """What a sampler deals to: the table's seats, ours and our hand, each group's seat."""

    __slots__ = ("me", "my_hand", "seats", "targets")

    def __init__(self, position: Position) -> None:
        self.seats = position.seats
        self.me = position.me
        self.my_hand = position.my_hand
        self.targets = [g.seat for g in position.groups]


class DealSampler(_Dealer):
    """Deals the unseen tiles to the groups, uniformly over every deal consistent with what the
    seat knows: each group's size and the numbers its tiles cannot show.

    Tiles that may go to the same set of groups form a class. For each class in turn the sampler
    draws how many of its tiles each group gets, in proportion to the number of complete deals
    that choice leaves possible (counted exactly, with memoised big integers), then which tiles,
    uniformly. Positions with too many combinations of group sizes to count (not met in play)
    fall back to a greedy sampler; so do facts that admit no deal at all, which would mean a seat
    passed while holding a fitting tile (the rules forbid it).
    """

    __slots__ = ("caps", "classes", "fallback", "memo")

    MAX_STATES = 50_000

    def __init__(self, position: Position) -> None:
        super().__init__(position)
        groups = position.groups
        self.caps = tuple(g.count for g in groups)
        by_places: dict[tuple[int, ...], list[int]] = {}
        for t in tiles_of(position.unseen):
            places = tuple(k for k, g in enumerate(groups) if not g.lacking & PIP_MASK[t])
            by_places.setdefault(places, []).append(t)
        # Most constrained classes first: fewer choices near the root of the count.
        self.classes = sorted(by_places.items(), key=lambda item: (len(item[0]), item[0]))
        self.memo: dict[tuple[int, tuple[int, ...]], tuple[list[tuple[int, ...]], list[int]]] = {}
        self.fallback: _GreedySampler | None = None
        states = 1
        for cap in self.caps:
            states *= cap + 1
        consistent = (
            sum(self.caps) == position.unseen.bit_count()
            and states * max(1, len(self.classes)) <= self.MAX_STATES
            and all(places for places in by_places)
            and self.count() > 0
        )
        if not consistent:
            self.fallback = _GreedySampler(position)

    def count(self) -> int:
        """How many deals are consistent with the facts (tiles told apart, boneyard unordered)."""
        return self._count(0, self.caps)

    def _count(self, index: int, caps: tuple[int, ...]) -> int:
        if index == len(self.classes):
            return 1
        running = self._options(index, caps)[1]
        return running[-1] if running else 0

    def _options(
        self, index: int, caps: tuple[int, ...]
    ) -> tuple[list[tuple[int, ...]], list[int]]:
        """Ways to split class ``index`` over its groups given the room left: each split (tiles
        per group, in the class's group order) and the running total of the deals it leaves."""
        key = (index, caps)
        found = self.memo.get(key)
        if found is not None:
            return found
        places, tiles = self.classes[index]
        splits: list[tuple[int, ...]] = []
        running: list[int] = []
        total = 0
        for split in _splits(len(tiles), [caps[k] for k in places]):
            rest = list(caps)
            ways = _FACTORIAL[len(tiles)]
            for k, n in zip(places, split, strict=True):
                rest[k] -= n
                ways //= _FACTORIAL[n]
            if index + 1 < len(self.classes):
                ways *= self._count(index + 1, tuple(rest))
            elif any(rest):
                ways = 0
            if ways:
                total += ways
                splits.append(split)
                running.append(total)
        found = self.memo[key] = (splits, running)
        return found

    def sample(self, rng: random.Random) -> tuple[list[int], list[int]]:
        """Every seat's hand (ours as it is) and a boneyard order."""
        if self.fallback is not None:
            return self.fallback.sample(rng)
        caps = list(self.caps)
        targets = self.targets
        hands = [0] * self.seats
        boneyard: list[int] = []
        for index, (places, tiles) in enumerate(self.classes):
            splits, running = self._options(index, tuple(caps))
            if len(splits) == 1:  # forced (e.g. a class only one group may hold): no draw
                split = splits[0]
            else:
                split = splits[bisect_right(running, rng.randrange(running[-1]))]
            if max(split) == len(tiles):  # the whole class goes to one group: no shuffle
                pool = tiles
            else:
                pool = tiles[:]
                rng.shuffle(pool)
            at = 0
            for k, n in zip(places, split, strict=True):
                if not n:
                    continue
                caps[k] -= n
                seat = targets[k]
                if seat < 0:
                    boneyard.extend(pool[at : at + n])
                else:
                    for t in pool[at : at + n]:
                        hands[seat] |= BIT[t]
                at += n
        hands[self.me] = self.my_hand
        rng.shuffle(boneyard)
        return hands, boneyard


_FACTORIAL: tuple[int, ...] = tuple(factorial(n) for n in range(29))


def _splits(total: int, room: list[int]) -> Iterator[tuple[int, ...]]:
    """Every way to put ``total`` items into places holding at most ``room[i]`` each."""
    if len(room) == 1:
        if total <= room[0]:
            yield (total,)
        return
    rest_room = sum(room[1:])
    for first in range(max(0, total - rest_room), min(total, room[0]) + 1):
        for rest in _splits(total - first, room[1:]):
            yield (first, *rest)


class _GreedySampler(_Dealer):
    """The fallback when exact counting is too big: deals the unseen tiles to the groups, most
    constrained tiles first, each to a random free place that may hold it (not exactly uniform).
    After ``attempts`` dead ends the facts are dropped."""

    __slots__ = ("counts", "eligible", "order")

    def __init__(self, position: Position) -> None:
        super().__init__(position)
        groups = position.groups
        self.counts = [g.count for g in groups]
        tiles = list(tiles_of(position.unseen))
        self.eligible: dict[int, list[int]] = {
            t: [k for k, g in enumerate(groups) if not g.lacking & PIP_MASK[t]] for t in tiles
        }
        room = {t: sum(self.counts[k] for k in self.eligible[t]) for t in tiles}
        self.order = sorted(tiles, key=room.__getitem__)

    def sample(self, rng: random.Random, attempts: int = 12) -> tuple[list[int], list[int]]:
        """Every seat's hand (ours as it is) and a boneyard order."""
        counts, eligible, targets = self.counts, self.eligible, self.targets
        randrange = rng.randrange
        for attempt in range(attempts + 1):
            relaxed = attempt == attempts
            room = counts[:]
            hands = [0] * self.seats
            boneyard: list[int] = []
            order = self.order
            if attempt:
                order = order[:]
                rng.shuffle(order)
            ok = True
            for t in order:
                places = range(len(room)) if relaxed else eligible[t]
                total = 0
                for k in places:
                    total += room[k]
                if not total:
                    ok = False
                    break
                pick = randrange(total)
                for k in places:
                    pick -= room[k]
                    if pick < 0:
                        break
                room[k] -= 1
                seat = targets[k]
                if seat < 0:
                    boneyard.append(t)
                else:
                    hands[seat] |= BIT[t]
            if ok:
                hands[self.me] = self.my_hand
                rng.shuffle(boneyard)
                return hands, boneyard
        raise AssertionError("a relaxed deal always fits")  # pragma: no cover


def _or_all(masks: Iterable[int]) -> int:
    total = 0
    for mask in masks:
        total |= mask
    return total


# Pips present in every 7-bit slice of a hand mask, so "how many numbers does this hand hold"
# is four lookups.
_PIPSET_BY_SLICE: tuple[tuple[int, ...], ...] = tuple(
    tuple(
        _or_all(PIP_MASK[7 * part + i] for i in range(7) if chunk >> i & 1) for chunk in range(128)
    )
    for part in range(4)
)


def _pip_counts(t: int) -> int:
    """One tile's numbers, four bits each (a double shows its number once)."""
    return (1 << 4 * HIGH[t]) | (1 << 4 * LOW[t])


# Pip counts of every 7-bit slice of a hand mask, four bits per number (a double counts once):
# the sum over the four slices is the hand's count of tiles showing each number.
_PIPCOUNT_BY_SLICE: tuple[tuple[int, ...], ...] = tuple(
    tuple(
        sum(_pip_counts(7 * part + i) for i in range(7) if chunk >> i & 1) for chunk in range(128)
    )
    for part in range(4)
)


def _numbers_held(mask: int) -> int:
    """How many different numbers (0-6) the tiles of a hand show."""
    a, b, c, d = _PIPSET_BY_SLICE
    return (a[mask & 127] | b[mask >> 7 & 127] | c[mask >> 14 & 127] | d[mask >> 21]).bit_count()


def _model_scores(hand: int, legal: int, left: int, right: int) -> list[tuple[float, int, int]]:
    """The player model's liking for each play of ``legal`` from ``hand``, lowest tile first:
    (value, tile, end), in the spirit of seed 004's advice: unload heavy tiles and doubles, keep
    many numbers, keep tiles that follow. The end is the one that leaves more tiles that follow.

    A play leaves the hand one number short for each of its halves that no other tile in the
    hand shows (pip counts packed four bits a number)."""
    a, b, c, d = _PIPCOUNT_BY_SLICE
    counts = a[hand & 127] + b[hand >> 7 & 127] + c[hand >> 14 & 127] + d[hand >> 21]
    held = _numbers_held(hand)
    scores: list[tuple[float, int, int]] = []
    m = legal
    while m:
        bit = m & -m
        m ^= bit
        x = bit.bit_length() - 1
        high, low = HIGH[x], LOW[x]
        kept = held - (counts >> 4 * high & 15 == 1)
        if low != high and counts >> 4 * low & 15 == 1:
            kept -= 1
        rest = hand ^ bit
        side = LEFT
        if left < 0:
            follow = (rest & EITHER_SUIT[high][low]).bit_count()
        else:
            follow = -1
            new_left = OTHER_HALF[x][left]
            if new_left >= 0:
                follow = (rest & EITHER_SUIT[new_left][right]).bit_count()
            new_right = OTHER_HALF[x][right]
            if new_right >= 0:
                other = (rest & EITHER_SUIT[left][new_right]).bit_count()
                if other > follow:
                    follow, side = other, 1
        scores.append((PIPS[x] + 6.0 * IS_DOUBLE[x] + 2.0 * kept + 2.5 * follow, x, side))
    return scores


def _model_choice(hand: int, playable: int, left: int, right: int) -> tuple[int, int]:
    """The player model's favourite play (the highest tile among equals) and its end."""
    if left >= 0 and not playable & (playable - 1):
        tile = playable.bit_length() - 1
        fits_left = OTHER_HALF[tile][left] >= 0
        if fits_left != (OTHER_HALF[tile][right] >= 0):  # one tile, one end: nothing to weigh
            return tile, LEFT if fits_left else 1
    _, tile, side = max(_model_scores(hand, playable, left, right))
    return tile, side


class _Likelihood:
    """How well a world explains the other seats' past choices under the player model.

    A seat's share depends only on that seat's hand, so it is computed once per hand seen."""

    __slots__ = ("by_seat", "cache", "noise", "temperature")

    def __init__(self, position: Position, temperature: float, noise: float) -> None:
        self.temperature = temperature
        self.noise = noise
        self.by_seat: dict[int, list[tuple[int, int, int, int]]] = {}
        for seat, left, right, t, since in position.observations:
            self.by_seat.setdefault(seat, []).append((left, right, t, since))
        self.cache: dict[tuple[int, int], float] = {}

    def __call__(self, hands: list[int]) -> float:
        total = 0.0
        cache = self.cache
        for seat, observations in self.by_seat.items():
            key = (seat, hands[seat])
            part = cache.get(key)
            if part is None:
                part = cache[key] = self._seat(hands[seat], observations)
            total += part
        return total

    def _seat(self, now: int, observations: list[tuple[int, int, int, int]]) -> float:
        """The log-likelihood of one seat's observed choices if it holds ``now``."""
        temperature, noise = self.temperature, self.noise
        total = 0.0
        for left, right, t, since in observations:
            hand = now | since
            legal = hand if left < 0 else hand & EITHER_SUIT[left][right]
            if legal & (legal - 1) == 0:
                continue  # a single option says nothing
            scores = _model_scores(hand, legal, left, right)
            chosen = 0.0
            for value, x, _ in scores:
                if x == t:
                    chosen = value
            mass = 0.0
            for value, _, _ in scores:
                mass += exp((value - chosen) / temperature)
            total += log((1.0 - noise) / mass + noise / len(scores))
        return total


class _Playout:
    """A stripped-down hand simulator for one world: bitmasks, the preset's draw mode, and the
    preset's own hand scoring. It starts right after our candidate move."""

    __slots__ = ("block_on_passes", "model", "position", "rules", "score_ends", "seats", "sides")

    def __init__(self, position: Position, model: bool = True) -> None:
        self.model = model
        self.position = position
        self.rules = position.rules
        self.score_ends = position.rules.scores_open_ends
        self.block_on_passes = position.rules.blocks_when_all_pass
        self.seats = position.seats
        self.sides = position.sides

    def run(
        self,
        hands: list[int],
        boneyard: Sequence[int],
        first: Move,
        noise: list[float],
        explore: float,
    ) -> tuple[list[int], int | None]:
        """Play ``first`` for us, then finish the hand; points per side and the hand's winner."""
        p = self.position
        seats = self.seats
        sides = self.sides
        score_ends = self.score_ends
        draw_mode = p.draw_mode
        points = [0] * (max(sides) + 1)
        left, right = p.left, p.right
        left_value, right_value = p.left_value, p.right_value
        passes = p.passes
        last_player = p.last_player
        drawn = 0
        bone_count = len(boneyard)
        held = 0
        for mask in hands:
            held |= mask
        seat = p.me
        drawn_tile = -1
        move: Move | None = first
        draw = 0
        weight = _PLAYOUT_WEIGHT
        model = self.model
        steps = 0
        trackers = [copy(tracker) for tracker in p.bonuses] if p.bonuses else None
        award = BonusPoints(p, points, p.scores) if trackers else None
        while True:
            steps += 1
            hand = hands[seat]
            t = -1
            side = LEFT
            if move is not None:  # our candidate, already known to be legal
                kind = move.kind
                if kind == "play":
                    t, side = move.tile, move.side
                move = None
            else:
                if drawn_tile >= 0:
                    playable = hand & BIT[drawn_tile] & EITHER_SUIT[left][right]
                elif left < 0:
                    playable = hand
                else:
                    playable = hand & EITHER_SUIT[left][right]
                if playable:
                    kind = "play"
                    chance = noise[draw]
                    draw += 1
                    side = -1
                    if chance < explore:
                        options = list(tiles_of(playable))
                        t = options[int(chance / explore * len(options))]
                    elif model:
                        t, side = _model_choice(hand, playable, left, right)
                    else:
                        best = -1
                        m = playable
                        while m:
                            bit = m & -m
                            m ^= bit
                            tile = bit.bit_length() - 1
                            if weight[tile] > best:
                                best, t = weight[tile], tile
                    if side < 0:  # not the model's play: the end it fits, at random if both
                        side = LEFT
                        if left >= 0:
                            fits_left = OTHER_HALF[t][left] >= 0
                            if fits_left and OTHER_HALF[t][right] >= 0:
                                side = LEFT if noise[draw] < 0.5 else 1
                                draw += 1
                            elif not fits_left:
                                side = 1
                elif (
                    draw_mode != NO_DRAWING
                    and drawn < bone_count
                    and not (draw_mode == DRAW_ONE_THEN_PASS and drawn_tile >= 0)
                    and left >= 0
                ):
                    kind = "draw"
                else:
                    kind = "pass"
            if kind == "play":
                bit = BIT[t]
                total = 0
                before_left, before_right = left, right
                if left < 0:
                    left, right = HIGH[t], LOW[t]
                    if score_ends:
                        if IS_DOUBLE[t]:  # a lone opening double shows its full value once
                            left_value = right_value = total = 2 * HIGH[t]
                        else:
                            left_value, right_value = HIGH[t], LOW[t]
                            total = left_value + right_value
                elif side == LEFT:
                    left = OTHER_HALF[t][left]
                    if score_ends:
                        left_value = 2 * left if IS_DOUBLE[t] else left
                        total = left_value + right_value
                else:
                    right = OTHER_HALF[t][right]
                    if score_ends:
                        right_value = 2 * right if IS_DOUBLE[t] else right
                        total = left_value + right_value
                if score_ends and total % 5 == 0 and total:
                    points[sides[seat]] += total
                hand ^= bit
                hands[seat] = hand
                held ^= bit
                drawn_tile = -1
                passes = 0
                last_player = seat
                if trackers:
                    for tracker in trackers:
                        tracker.on_play(award, seat, t, before_left, before_right, not hand)  # type: ignore[arg-type]
                if not hand:
                    return self._finish("domino", seat, hands, points, trackers, left, right)
                if not held & EITHER_SUIT[left][right] and (
                    draw_mode == NO_DRAWING or drawn >= bone_count
                ):
                    return self._finish(
                        "blocked", last_player, hands, points, trackers, left, right
                    )
                seat = seat + 1 if seat + 1 < seats else 0
            elif kind == "draw":
                t = boneyard[drawn]
                drawn += 1
                hands[seat] = hand | BIT[t]
                held |= BIT[t]
                if draw_mode == DRAW_ONE_THEN_PASS:
                    drawn_tile = t
                if drawn >= bone_count and not held & EITHER_SUIT[left][right]:
                    return self._finish(
                        "blocked", last_player, hands, points, trackers, left, right
                    )
                # the same seat moves again (play the drawn tile, draw again, or pass)
            else:
                drawn_tile = -1
                passes += 1
                if trackers:
                    for tracker in trackers:
                        tracker.on_pass(award, seat)  # type: ignore[arg-type]
                if self.block_on_passes and passes >= seats:
                    return self._finish(
                        "blocked", last_player, hands, points, trackers, left, right
                    )
                seat = seat + 1 if seat + 1 < seats else 0
            if steps > 400:  # pragma: no cover - a hand has at most ~80 moves
                return self._finish("blocked", last_player, hands, points, trackers, left, right)

    def _finish(
        self,
        reason: str,
        last_seat: int,
        hands: list[int],
        points: list[int],
        trackers: list[BonusTracker] | None,
        left: int,
        right: int,
    ) -> tuple[list[int], int | None]:
        end = HandEnd(reason, last_seat, self.position.starter, tuple(hands))  # type: ignore[arg-type]
        score = self.rules.score_hand(end, self.seats)
        if trackers:  # bonuses at the hand's end (dead double blank) see the scores before it
            award = BonusPoints(self.position, points, self.position.scores)
            for tracker in trackers:
                tracker.on_hand_end(award, end, score, left, right)
        for side, gained in enumerate(score.points):
            points[side] += gained
        return points, score.winner


class ExpertBot:
    """Determinized Monte Carlo search over the seat's view (see the module docstring)."""

    def __init__(self, rng: random.Random, settings: ExpertSettings | None = None) -> None:
        self.name = "expert"
        self.rng = rng
        self.settings = settings or ExpertSettings()
        self.memory = DealMemory(self.settings.reuse)

    def choose(self, view: SeatView) -> str:
        legal = view["legal_moves"]
        if len(legal) <= 1:
            self.memory.forget()  # a forced move (draw, pass) breaks the chain of decisions
            return legal[0]
        scores = self.evaluate(view)
        best = max(scores.values())
        return next(text for text in legal if scores[text] == best)

    def evaluate(self, view: SeatView) -> dict[str, float]:
        """Mean value of each distinct legal move over the sampled worlds."""
        settings = self.settings
        position = read_position(view)
        candidates = _distinct_moves(view, position)
        texts = list(candidates)
        moves = [candidates[text] for text in texts]
        if len(moves) == 1:  # twins on equal ends: nothing to weigh
            return dict.fromkeys(view["legal_moves"], 0.0)
        remaining = position.unseen.bit_count() + position.my_hand.bit_count()
        exact = 0 < remaining - view["boneyard"] <= settings.solve_below and (
            position.draw_mode == NO_DRAWING or not view["boneyard"]
        )
        per_world = max(1, len(moves) * max(4, remaining))
        count = settings.step_budget // per_world
        worlds = max(settings.min_worlds, min(settings.max_worlds, count))
        longest = ceil(worlds * settings.max_share) if settings.max_share > 1 else worlds
        # The first batch is what the first look at the budget needs (solved deals are costly,
        # so a few of them); the batches double from there.
        first = settings.min_worlds if exact else ceil(worlds * settings.min_share)
        # Deals sampled per world searched: ``pool_factor`` over the base budget's worlds.
        ratio = worlds * settings.pool_factor / longest
        stream = self._worlds(view, position, longest, max(settings.min_worlds, first), ratio)
        budget = Budget(settings, len(moves))
        if exact:
            solver = EndgameSolver(position, settings.win_bonus)
            for hands, _ in stream:
                before = solver.nodes
                budget.add([solver.solve(hands, move) for move in moves])
                if budget.spend((solver.nodes - before) * settings.node_cost):
                    break
        else:
            self._playouts(position, moves, stream, budget, remaining)
        means = budget.means()
        scores = dict(zip(texts, means, strict=True))
        for text in view["legal_moves"]:
            if text not in scores:
                scores[text] = scores[_twin(text)]
        return scores

    def _worlds(
        self, view: SeatView, position: Position, longest: int, first: int, ratio: float
    ) -> Iterator[World]:
        """Up to ``longest`` worlds to search, in batches that double from ``first``.

        Each batch samples ``ratio`` deals per world (the first batch starts with the
        deals carried from the previous decision) and resamples them by how well they explain
        the other seats' past choices. Sampling lazily matters where the budget buys few worlds
        (an exact search of 18 tiles solves about ten deals) or stops early on a clear decision:
        a pool sized for the whole budget cost as much CPU as the search itself.
        """
        settings = self.settings
        rng = self.rng
        sampler: DealSampler | None = None

        def new_sampler() -> DealSampler:
            nonlocal sampler
            if sampler is None:
                sampler = DealSampler(position)
            return sampler

        likelihood = (
            _Likelihood(position, settings.temperature, settings.model_noise)
            if position.observations and settings.pool_factor > 1
            else None
        )
        given = 0
        size = max(1, min(first, longest))
        while given < longest:
            size = min(size, longest - given)
            wanted = max(size, ceil(size * ratio))
            if given == 0:
                pool = self.memory.pool(view, position, wanted, rng, new_sampler)
            else:
                fresh = new_sampler()
                pool = [fresh.sample(rng) for _ in range(wanted)]
                if self.memory.enabled:
                    self.memory.worlds.extend(pool)
            if likelihood is not None:
                weights = [likelihood(hands) for hands, _ in pool]
                top = max(weights)
                weights = [exp(w - top) for w in weights]
            else:
                weights = [1.0] * len(pool)
            chosen = _resample(weights, size, rng)
            rng.shuffle(chosen)
            for index in chosen:
                yield pool[index]
            given += size
            size *= 2

    def _playouts(
        self,
        position: Position,
        moves: list[Move],
        worlds: Iterable[World],
        budget: Budget,
        remaining: int,
    ) -> None:
        """Plays every candidate out in the worlds given until the budget says stop."""
        settings = self.settings
        playout = _Playout(position, settings.playout == "model")
        random_ = self.rng.random
        chances = 2 * (remaining + position.seats * 2 + 4)  # two per move at most
        my_side = position.sides[position.me]
        sides = max(position.sides) + 1
        per_world = len(moves) * max(4, remaining)
        for hands, boneyard in worlds:
            # The same chances for every candidate (common random numbers).
            noise = [random_() for _ in range(chances)]
            values: list[float] = []
            for move in moves:
                points, winner = playout.run(hands[:], boneyard, move, noise, settings.explore)
                ours = points[my_side]
                value = ours - (sum(points) - ours) / (sides - 1)
                if winner is not None:
                    value += settings.win_bonus if winner == my_side else -settings.win_bonus
                values.append(value)
            budget.add(values)
            if budget.spend(per_world):
                break


def _resample(weights: list[float], count: int, rng: random.Random) -> list[int]:
    """Systematic resampling: ``count`` indices drawn in proportion to ``weights``."""
    total = sum(weights)
    step = total / count
    point = rng.random() * step
    chosen: list[int] = []
    running = 0.0
    index = 0
    for _ in range(count):
        while running + weights[index] < point and index < len(weights) - 1:
            running += weights[index]
            index += 1
        chosen.append(index)
        point += step
    return chosen


def _twin(text: str) -> str:
    """The same tile on the other end."""
    return text[:-1] + ("R" if text.endswith("L") else "L")


def _distinct_moves(view: SeatView, position: Position) -> dict[str, Move]:
    """Legal moves, dropping a play whose twin on the other end leads to the same position."""
    distinct: dict[str, Move] = {}
    same_ends = position.left == position.right and (
        not position.rules.scores_open_ends or position.left_value == position.right_value
    )
    for text in view["legal_moves"]:
        move = parse_move(text)
        if same_ends and move.kind == "play" and _twin(text) in distinct:
            continue
        distinct[text] = move
    return distinct


@register_bot("expert")
def expert(rng: random.Random) -> Bot:
    """Search bot: samples hidden tiles consistent with the public history and plays out."""
    return ExpertBot(rng)
