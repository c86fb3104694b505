"""What a seat knows: the expert's reading of its view (who cannot hold which numbers, the
other seats' free choices, the table's bonus rules replayed to where the hand stands)."""

from __future__ import annotations

from dataclasses import dataclass

from backend.game.moves import LEFT, Move, parse_move
from backend.game.rules import Award, BonusTracker, Rules, rules_for
from backend.game.tiles import (
    ALL_TILES_MASK,
    BIT,
    DOUBLE_SIX,
    HIGH,
    LOW,
    OTHER_HALF,
    parse_tile,
)
from backend.game.view import SeatView

# Pips on each tile as a 7-bit mask: a tile is excluded by a "lacks" fact if they intersect.
PIP_MASK: tuple[int, ...] = tuple((1 << HIGH[t]) | (1 << LOW[t]) for t in range(28))


def ends_after(left: int, right: int, move: Move) -> tuple[int, int]:
    """The line's open ends after ``move`` (a play) at ends ``left`` and ``right`` (``-1``
    before the first play: the lead opens both ends)."""
    t = move.tile
    if left < 0:
        return HIGH[t], LOW[t]
    if move.side == LEFT:
        return OTHER_HALF[t][left], right
    return left, OTHER_HALF[t][right]


@dataclass(slots=True)
class Group:
    """Unseen tiles in one place that share what they cannot show: ``count`` tiles of another
    seat's hand (``seat >= 0``) or of the boneyard (``seat == -1``) whose pips avoid ``lacking``."""

    seat: int
    lacking: int
    count: int


@dataclass(slots=True)
class Position:
    """What the seat knows now, read from its view once per decision."""

    rules: Rules
    seats: int
    me: int
    sides: tuple[int, ...]
    my_hand: int
    unseen: int
    groups: list[Group]
    observations: list[tuple[int, int, int, int, int]]
    """Other seats' free choices: (seat, left, right, tile played, tiles it played from then on);
    ``left == -1`` for a lead. Only choices after the seat's last draw, so that its hand then
    is exactly its hand now plus the tiles it played since."""
    left: int
    right: int
    left_value: int
    right_value: int
    passes: int
    last_player: int
    starter: int
    draw_mode: int
    bonuses: list[BonusTracker]
    """The table's bonus rules, as they stand after replaying this hand's history."""
    scores: tuple[int, ...]
    target: int


class BonusPoints(Award):
    """Lets the rules' own bonus trackers award points inside a playout (or, with ``points``
    None, replays history without awarding anything: those points are already in the scores)."""

    __slots__ = ("points", "scores", "seats", "sides", "target")

    def __init__(
        self, position: Position, points: list[int] | None, scores: tuple[int, ...]
    ) -> None:
        self.seats = position.seats
        self.sides = position.sides
        self.target = position.target
        self.scores = scores
        self.points = points

    def score_of(self, side: int) -> int:
        return self.scores[side] + (self.points[side] if self.points is not None else 0)

    def __call__(self, side: int, points: int, reason: str) -> None:
        if self.points is not None:
            self.points[side] += points


_RULES_CACHE: dict[tuple[str, tuple[tuple[str, int | str | bool], ...]], Rules] = {}


def _rules_of(view: SeatView) -> Rules:
    key = (view["preset"], tuple(sorted(view["options"].items())))
    rules = _RULES_CACHE.get(key)
    if rules is None:
        rules = _RULES_CACHE[key] = rules_for(view["preset"], view["options"])
    return rules


def read_position(view: SeatView) -> Position:
    """Everything the search needs, derived from the view alone."""
    rules = _rules_of(view)
    me = view["seat"]
    counts = view["tile_counts"]
    seats = len(counts)
    my_hand = 0
    for text in view["hand"]:
        my_hand |= BIT[parse_tile(text)]
    in_line = 0
    for text in view["line"]:
        in_line |= BIT[parse_tile(text)]
    unseen = ALL_TILES_MASK & ~my_hand & ~in_line

    # Replay the public history: each seat's unseen tiles as slots, each slot the mask of pips
    # that tile cannot show.
    moves = [(seat, parse_move(text)) for seat, text in view["history"]]
    played = [0] * seats
    drew = [0] * seats
    for seat, move in moves:
        if move.kind == "play":
            played[seat] += 1
        elif move.kind == "draw":
            drew[seat] += 1
    slots: list[list[int]] = [
        [0] * (counts[seat] + played[seat] - drew[seat]) for seat in range(seats)
    ]
    left = right = -1
    passes = 0
    last_player = -1
    starter = moves[0][0] if moves else (view["turn"] if view["turn"] is not None else me)
    choices: list[tuple[int, int, int, int]] = []
    for seat, move in moves:
        own = slots[seat]
        if move.kind == "play":
            t = move.tile
            choices.append((seat, left, right, t))
            left, right = ends_after(left, right, move)
            _remove_slot(own, PIP_MASK[t])
            passes = 0
            last_player = seat
        else:
            if left >= 0:
                lacking = (1 << left) | (1 << right)
                for i in range(len(own)):
                    own[i] |= lacking
            if move.kind == "draw":
                own.append(0)  # a drawn tile may be anything
                choices = [c for c in choices if c[0] != seat]
            else:
                passes += 1
    groups: list[Group] = []
    for seat in range(seats):
        if seat == me or not counts[seat]:
            continue
        own = slots[seat][: counts[seat]]
        own.extend([0] * (counts[seat] - len(own)))  # the shown counts win any mismatch
        for lacking in sorted(set(own)):
            groups.append(Group(seat, lacking, own.count(lacking)))
    if view["boneyard"]:
        groups.append(Group(-1, 0, view["boneyard"]))

    # Which choices tell us something: not ours, not a lead the rules forced.
    free_lead = view["preset"] != "draw" and (
        view["hand_number"] > 0 or view["options"].get("first_hand") == "random"
    )
    observations: list[tuple[int, int, int, int, int]] = []
    later = [0] * seats
    for seat, before_left, before_right, t in reversed(choices):
        later[seat] |= BIT[t]
        if seat != me and (before_left >= 0 or (free_lead and t != DOUBLE_SIX)):
            observations.append((seat, before_left, before_right, t, later[seat]))
    left_value = right_value = 0
    line = view["line"]
    if line:
        first, last = line[0].split(":"), line[-1].split(":")
        left_value = int(first[0]) * (2 if first[0] == first[1] else 1)
        right_value = int(last[1]) * (2 if last[0] == last[1] else 1)
    bonuses = rules.bonus_trackers()
    scores = tuple(view["scores"])
    position = Position(
        rules=rules,
        seats=seats,
        me=me,
        sides=tuple(view["sides"]),
        my_hand=my_hand,
        unseen=unseen,
        groups=groups,
        observations=observations,
        left=left,
        right=right,
        left_value=left_value,
        right_value=right_value,
        passes=passes,
        last_player=last_player,
        starter=starter,
        draw_mode=rules.draw_mode(seats),
        bonuses=bonuses,
        scores=scores,
        target=rules.target,
    )
    if bonuses:
        _replay_bonuses(position, moves)
    return position


def _replay_bonuses(position: Position, moves: list[tuple[int, Move]]) -> None:
    """Bring the bonus trackers to where this hand stands (who passed after whose play...)."""
    award = BonusPoints(position, None, position.scores)
    for tracker in position.bonuses:
        tracker.start_hand()
    left = right = -1
    for seat, move in moves:
        if move.kind == "play":
            t = move.tile
            for tracker in position.bonuses:
                tracker.on_play(award, seat, t, left, right, False)
            left, right = ends_after(left, right, move)
        elif move.kind == "pass":
            for tracker in position.bonuses:
                tracker.on_pass(award, seat)


def _remove_slot(slots: list[int], tile_pips: int) -> None:
    """A seat played a tile: drop the slot it most likely came from.

    Facts only accumulate, so the slots' masks are nested; dropping the most constrained slot that
    could hold the tile keeps every deal that is still possible.
    """
    best = -1
    best_size = -1
    for i, forbidden in enumerate(slots):
        if not forbidden & tile_pips:
            size = forbidden.bit_count()
            if size > best_size:
                best, best_size = i, size
    if best < 0:  # inconsistent with what we inferred: drop the least constrained slot
        best = min(range(len(slots)), key=lambda i: slots[i].bit_count()) if slots else -1
    if best >= 0:
        slots.pop(best)
