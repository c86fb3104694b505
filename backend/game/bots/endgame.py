"""Exact search of a hand's end in one sampled deal, for the expert.

Once few tiles are left, a deal of the unseen tiles (sampled by the expert, consistent with
what its seat knows) is small enough to solve exactly: every seat plays perfectly against the
expert's side (the other sides minimise its value, "paranoid" search, which is exact minimax in
the two-team games). The value of a finished hand is the same as in the expert's playouts: the
side's points minus the mean of the other sides' points, plus or minus a bonus for winning the
hand, with every point the preset gives (``Rules.score_hand``, open-end points, the table's
bonus trackers).

Alpha-beta with move ordering (the transposition table's best move first, then heavy tiles
and doubles, which a hand wants to shed) and a transposition table keyed on everything the
rest of the hand depends on: the hands, the open ends (and what they are worth when open ends
score), whose turn it is, and, only where the preset needs them, the passes in a row and the
bonus trackers' state. The solver never draws: the expert calls it only when nobody can draw
any more (no boneyard, or an empty one).
"""

from __future__ import annotations

from copy import copy
from typing import TYPE_CHECKING

from backend.game.moves import LEFT, Move
from backend.game.rules import Award, BonusTracker, HandEnd
from backend.game.tiles import BIT, EITHER_SUIT, HIGH, IS_DOUBLE, LOW, OTHER_HALF, PIPS

if TYPE_CHECKING:  # the expert imports this module; only type names flow back
    from backend.game.bots.position import Position

EXACT, LOWER, UPPER = 0, 1, 2
_INF = float("inf")
# Move ordering: heavy tiles and doubles first (the player model's own taste).
_ORDER: tuple[int, ...] = tuple(
    sorted(range(28), key=lambda t: -(PIPS[t] + (8 if IS_DOUBLE[t] else 0)))
)


class _Points(Award):
    """Collects the points a bonus tracker awards during one step of the search."""

    __slots__ = ("points", "scores", "seats", "sides", "target")

    def __init__(self, solver: EndgameSolver) -> None:
        self.seats = solver.seats
        self.sides = solver.sides
        self.target = solver.target
        self.scores = solver.scores
        self.points = [0] * solver.side_count

    def score_of(self, side: int) -> int:
        return self.scores[side] + self.points[side]

    def __call__(self, side: int, points: int, reason: str) -> None:
        self.points[side] += points


class EndgameSolver:
    """Solves one deal after one candidate move; ``nodes`` counts positions searched.

    The transposition table may be shared by several deals and candidates of one decision: its
    key holds all the hands, so one entry never stands for two different positions.
    """

    __slots__ = (
        "block_on_passes",
        "hands",
        "my_side",
        "nodes",
        "position",
        "rules",
        "score_ends",
        "scores",
        "seats",
        "side_count",
        "sides",
        "table",
        "target",
        "trackers",
        "win_bonus",
    )

    def __init__(self, position: Position, win_bonus: float, table: bool = True) -> None:
        self.position = position
        self.rules = position.rules
        self.seats = position.seats
        self.sides = position.sides
        self.side_count = max(position.sides) + 1
        self.my_side = position.sides[position.me]
        self.score_ends = position.rules.scores_open_ends
        self.block_on_passes = position.rules.blocks_when_all_pass
        self.win_bonus = win_bonus
        self.target = position.target
        self.scores = position.scores
        self.table: dict[object, tuple[float, int, int]] | None = {} if table else None
        self.nodes = 0
        self.hands: list[int] = []
        self.trackers: list[BonusTracker] = []

    def solve(self, hands: list[int], first: Move) -> float:
        """The exact value for the expert's side of playing ``first`` in this deal."""
        p = self.position
        self.hands = hands[:]
        self.trackers = [copy(t) for t in p.bonuses]
        self.scores = tuple(p.scores)
        if first.kind == "play":
            return self._play(
                p.me, first.tile, first.side, p.left, p.right, p.left_value, p.right_value,
                -_INF, _INF,
            )  # fmt: skip
        return self._pass(
            p.me, p.left, p.right, p.left_value, p.right_value, p.passes, p.last_player,
            -_INF, _INF,
        )  # fmt: skip

    # -- values -----------------------------------------------------------------------------
    def _worth(self, points: list[int] | tuple[int, ...]) -> float:
        """Points as the expert's value: its side's minus the mean of the others'."""
        ours = points[self.my_side]
        return ours - (sum(points) - ours) / (self.side_count - 1)

    def _end(self, reason: str, last: int, left: int, right: int) -> float:
        """The value of the points the hand's end gives (and the bonus for winning it)."""
        p = self.position
        end = HandEnd(reason, last, p.starter, tuple(self.hands))  # type: ignore[arg-type]
        score = self.rules.score_hand(end, self.seats)
        value = self._worth(score.points)
        if self.trackers:
            award = _Points(self)
            for tracker in self.trackers:
                copy(tracker).on_hand_end(award, end, score, left, right)
            value += self._worth(award.points)
        if score.winner is not None:
            value += self.win_bonus if score.winner == self.my_side else -self.win_bonus
        return value

    def _key(self, seat: int, left: int, right: int, lv: int, rv: int, passes: int) -> object:
        packed = 0
        for k, hand in enumerate(self.hands):
            packed |= hand << (28 * k)
        if left > right:  # the line reads the same from either end
            left, right, lv, rv = right, left, rv, lv
        key = (packed << 8) | ((left * 7 + right) << 2) | seat
        if not (self.score_ends or self.block_on_passes or self.trackers):
            return key
        state: tuple[object, ...] = (key, lv, rv, passes)
        for tracker in self.trackers:
            state += tuple(vars(tracker).values())
        return state + self.scores[: self.side_count] if self.trackers else state

    # -- search -----------------------------------------------------------------------------
    def _search(
        self,
        seat: int,
        left: int,
        right: int,
        lv: int,
        rv: int,
        passes: int,
        last: int,
        alpha: float,
        beta: float,
    ) -> float:
        """The value of the hand from here, ``seat`` to move (points from here on only)."""
        self.nodes += 1
        hand = self.hands[seat]
        playable = hand & EITHER_SUIT[left][right]
        if not playable:
            return self._pass(seat, left, right, lv, rv, passes, last, alpha, beta)
        table = self.table
        key = self._key(seat, left, right, lv, rv, passes) if table is not None else None
        hint = -1
        original_alpha, original_beta = alpha, beta
        if table is not None:
            entry = table.get(key)
            if entry is not None:
                value, flag, hint = entry
                if flag == EXACT:
                    return value
                if flag == LOWER:
                    alpha = max(alpha, value)
                else:
                    beta = min(beta, value)
                if alpha >= beta:
                    return value
        maximise = self.sides[seat] == self.my_side
        best = -_INF if maximise else _INF
        best_move = -1
        for move in self._moves(playable, left, right, lv, rv, hint):
            value = self._play(seat, move >> 1, move & 1, left, right, lv, rv, alpha, beta)
            if maximise:
                if value > best:
                    best, best_move = value, move
                    if best > alpha:
                        alpha = best
            elif value < best:
                best, best_move = value, move
                if best < beta:
                    beta = best
            if alpha >= beta:
                break
        if table is not None:
            if best <= original_alpha:
                flag = UPPER
            elif best >= original_beta:
                flag = LOWER
            else:
                flag = EXACT
            table[key] = (best, flag, best_move)
        return best

    def _moves(
        self, playable: int, left: int, right: int, lv: int, rv: int, hint: int
    ) -> list[int]:
        """Plays as ``tile * 2 + side``, best guess first; one side only when both read alike."""
        moves: list[int] = []
        same = left == right and (not self.score_ends or lv == rv)
        for t in _ORDER:
            if not playable & BIT[t]:
                continue
            if OTHER_HALF[t][left] >= 0:
                moves.append(t * 2 + LEFT)
            if OTHER_HALF[t][right] >= 0 and not same:
                moves.append(t * 2 + 1)
        if hint >= 0 and hint in moves and moves[0] != hint:
            moves.remove(hint)
            moves.insert(0, hint)
        return moves

    def _pass(
        self,
        seat: int,
        left: int,
        right: int,
        lv: int,
        rv: int,
        passes: int,
        last: int,
        alpha: float,
        beta: float,
    ) -> float:
        """``seat`` cannot play (and nobody can draw): it passes."""
        passes += 1
        if self.block_on_passes and passes >= self.seats:
            return self._end("blocked", last, left, right)
        gained = 0.0
        saved = self.trackers
        if saved:
            award = _Points(self)
            self.trackers = [copy(t) for t in saved]
            for tracker in self.trackers:
                tracker.on_pass(award, seat)
            gained = self._step(award.points)
        following = seat + 1 if seat + 1 < self.seats else 0
        value = gained + self._search(
            following, left, right, lv, rv, passes, last, alpha - gained, beta - gained
        )
        if saved:
            self.trackers = saved
            self.scores = self._unstep()
        return value

    def _play(
        self,
        seat: int,
        t: int,
        side: int,
        left: int,
        right: int,
        lv: int,
        rv: int,
        alpha: float,
        beta: float,
    ) -> float:
        """``seat`` plays tile ``t`` on ``side``; the value from here on."""
        before_left, before_right = left, right
        gained = 0.0
        if left < 0:
            left, right = HIGH[t], LOW[t]
            lv, rv = (2 * left, 2 * left) if IS_DOUBLE[t] else (left, right)
            total = lv if IS_DOUBLE[t] else lv + rv
        elif side == LEFT:
            left = OTHER_HALF[t][left]
            lv = 2 * left if IS_DOUBLE[t] else left
            total = lv + rv
        else:
            right = OTHER_HALF[t][right]
            rv = 2 * right if IS_DOUBLE[t] else right
            total = lv + rv
        mover = self.sides[seat]
        points: list[int] | None = None
        if self.score_ends and total % 5 == 0 and total:
            points = [0] * self.side_count
            points[mover] += total
        hands = self.hands
        hand = hands[seat] ^ BIT[t]
        hands[seat] = hand
        saved = self.trackers
        if saved:
            award = _Points(self)
            if points is not None:
                award.points = points
            self.trackers = [copy(tracker) for tracker in saved]
            for tracker in self.trackers:
                tracker.on_play(award, seat, t, before_left, before_right, not hand)
            points = award.points
        if points is not None:
            gained = self._step(points)
        if not hand:
            value = self._end("domino", seat, left, right)
        else:
            held = 0
            for other in hands:
                held |= other
            if not held & EITHER_SUIT[left][right]:
                value = self._end("blocked", seat, left, right)
            else:
                following = seat + 1 if seat + 1 < self.seats else 0
                value = self._search(
                    following, left, right, lv, rv, 0, seat, alpha - gained, beta - gained
                )
        hands[seat] = hand | BIT[t]
        if points is not None:
            self.scores = self._unstep()
        if saved:
            self.trackers = saved
        return gained + value

    def _step(self, points: list[int]) -> float:
        """Points earned by one move, added to the scores (bonus rules look at them). The
        scores before it stay behind the first ``side_count`` entries, for ``_unstep``."""
        before = self.scores
        now = tuple(before[side] + points[side] for side in range(self.side_count))
        self.scores = now + before
        return self._worth(points)

    def _unstep(self) -> tuple[int, ...]:
        """The scores before the last ``_step``."""
        return self.scores[self.side_count :]
