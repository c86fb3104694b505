"""Rule presets as subclasses of one ``Rules`` object. Each preset cites its seed file.

The hot path (playing tiles) reads plain data off the rules (draw mode, whether open ends
score); everything that happens once per hand (who starts, how a hand is scored, bonuses, when
the match ends) is a method that presets override. Every decision is explained in
``docs/rules.md``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar, Literal, NamedTuple

from backend.game import fairness
from backend.game.tiles import (
    BIT,
    DOUBLE_BLANK,
    DOUBLE_SIX,
    DOUBLES_MASK,
    IS_DOUBLE,
    PIPS,
    PIPS_BY_SLICE,
    SUIT,
    pips_of,
    rank,
    tiles_of,
)

OptionValue = int | str | bool

# How a stuck seat gets tiles: never (no boneyard), draw until a tile fits, or draw one then pass.
NO_DRAWING = 0
DRAW_UNTIL_PLAYABLE = 1
DRAW_ONE_THEN_PASS = 2

HandEndReason = Literal["domino", "blocked"]
NextLead = Literal["rotate", "repeat", "double_six"]
MatchVerdict = int | None | Literal["tie", "play_on"]
"""After a hand: the winning side, "tie" (the tie-break decides), "play_on", or None (drawn)."""


_new_tuple = tuple.__new__
"""Builds a NamedTuple from all its fields in C (its own ``__new__`` is a Python function):
for the verdicts that are given after every hand."""


class RulesError(ValueError):
    """An unknown preset, an unknown option, or an option value the preset does not offer."""


@dataclass(frozen=True)
class Requirement:
    """Choosing one of ``choices`` for an option needs ``option`` set to ``value``."""

    choices: tuple[OptionValue, ...]
    option: str
    value: OptionValue
    reason: str


@dataclass(frozen=True)
class OptionSpec:
    """One table option: its choices, default, which choices need a VIP pass, and which choices
    need another option set a certain way (``requires``)."""

    name: str
    choices: tuple[OptionValue, ...]
    default: OptionValue
    help: str
    premium: frozenset[OptionValue] = frozenset()
    seed: str = ""
    requires: tuple[Requirement, ...] = ()


class Opening(NamedTuple):
    """Who leads a hand, and the tile they must lead (``None``: any tile)."""

    seat: int
    tile: int | None


class HandEnd(NamedTuple):
    """How a hand finished, as the rules need it for scoring."""

    reason: HandEndReason
    last_seat: int
    """The seat that made the last play: it dominoed, or it blocked the line."""
    starter: int
    hands: tuple[int, ...]
    """Each seat's remaining tiles (masks)."""

    @property
    def pips(self) -> tuple[int, ...]:
        """Each seat's remaining pip total."""
        a, b, c, d = PIPS_BY_SLICE  # pips_of, inlined: this runs after every hand
        return tuple(
            [a[m & 127] + b[m >> 7 & 127] + c[m >> 14 & 127] + d[m >> 21] for m in self.hands]
        )

    @property
    def total_pips(self) -> int:
        """Pips left in all hands together."""
        return pips_of(sum(self.hands))  # the hands are disjoint, so their sum is their union


class HandScore(NamedTuple):
    """The rules' verdict on a hand: winning side (``None``: tied, nobody wins), points, next lead.

    ``points`` has one entry per side (a seat in individual games, a team in team games).
    ``next_lead`` is a seat number, or ``"rotate"`` (the seat after this hand's starter),
    ``"repeat"`` (this hand's starter again) or ``"double_six"`` (whoever is dealt it).
    """

    winner: int | None
    points: tuple[int, ...]
    next_lead: int | NextLead = "rotate"
    winner_seat: int | None = None
    note: str = ""


def _is_one_of(value: OptionValue, choices: Sequence[OptionValue]) -> bool:
    """``value in choices`` without taking ``True`` for ``1`` or ``False`` for ``0``."""
    return any(value == c and type(value) is type(c) for c in choices)


def round_to_five(pips: int) -> int:
    """DEW rounding (seed 000): 1-2 -> 0, 3-7 -> 5, 8-12 -> 10, and so on."""
    return (pips + 2) // 5 * 5


def highest_double_holder(hands: Sequence[int]) -> tuple[int, int] | None:
    """The seat holding the highest double and that double, or ``None`` if nobody has one."""
    best: tuple[int, int] | None = None
    for seat, mask in enumerate(hands):
        for t in tiles_of(mask & DOUBLES_MASK):
            if best is None or t > best[1]:
                best = (seat, t)
    return best


class Rules:
    """A preset plus its chosen options. Subclasses are the presets; they are immutable."""

    preset: ClassVar[str]
    title: ClassVar[str]
    seed_files: ClassVar[tuple[str, ...]]
    seat_counts: ClassVar[tuple[int, ...]]
    option_specs: ClassVar[tuple[OptionSpec, ...]] = ()
    hand_size: ClassVar[int] = 7
    team_game: ClassVar[bool] = False
    scores_open_ends: bool = False
    """Points whenever the open ends total a multiple of five (DEW; an option of
    ``partnership``, so a preset may set it per instance from its options)."""
    ends_at_once: ClassVar[bool] = False
    """Reaching the target mid-hand ends the match at that moment (DEW)."""
    blocks_when_all_pass: ClassVar[bool] = False
    """Seed 004: a hand is also blocked when every seat has passed in a row."""
    may_redeal: ClassVar[bool] = False
    """Whether the preset throws some deals in: set for a preset that overrides
    ``needs_redeal``, so that the others' deals are not looked at."""

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        cls.may_redeal = cls.needs_redeal is not Rules.needs_redeal

    def __init__(self, options: Mapping[str, OptionValue] | None = None) -> None:
        chosen = dict(options or {})
        specs = {spec.name: spec for spec in self.option_specs}
        unknown = sorted(set(chosen) - set(specs))
        if unknown:
            raise RulesError(
                f"preset {self.preset!r} has no option {unknown[0]!r}; options: {sorted(specs)}"
            )
        resolved: dict[str, OptionValue] = {}
        for name, spec in specs.items():
            value = chosen.get(name, spec.default)
            # bool is an int subclass: refuse True for a numeric option and 1 for a flag.
            if value not in spec.choices or type(value) is not type(spec.default):
                raise RulesError(
                    f"option {name!r} of preset {self.preset!r} cannot be {value!r}; "
                    f"choices: {list(spec.choices)}"
                )
            resolved[name] = value
        for spec in self.option_specs:
            value = resolved[spec.name]
            for need in spec.requires:
                if _is_one_of(value, need.choices) and not _is_one_of(
                    resolved[need.option], (need.value,)
                ):
                    raise RulesError(
                        f"option {spec.name!r} of preset {self.preset!r} can be {value!r} only "
                        f"with {need.option!r} set to {need.value!r}: {need.reason}"
                    )
        self._options = resolved
        target = resolved.get("target", 0)
        assert isinstance(target, int)
        self._target = target  # read after every hand: cached, since rules never change

    # -- identity --------------------------------------------------------------------------
    @property
    def options(self) -> dict[str, OptionValue]:
        """The resolved options (defaults filled in), JSON-serialisable."""
        return dict(self._options)

    def option(self, name: str) -> OptionValue:
        """One resolved option value."""
        return self._options[name]

    @property
    def premium_options(self) -> tuple[str, ...]:
        """Names of options set to a premium value (the table needs a VIP pass to be created)."""
        return tuple(
            spec.name for spec in self.option_specs if self._options[spec.name] in spec.premium
        )

    @property
    def requires_vip(self) -> bool:
        """Whether creating a table with these rules needs a VIP pass (joining never does)."""
        return bool(self.premium_options)

    @property
    def target(self) -> int:
        """Score that wins the match (0: the match is a single hand)."""
        return self._target

    def describe(self) -> dict[str, object]:
        """A JSON-serialisable description: preset, title, seeds, options, and per option its
        choices, default, premium choices and requirements (choices that need another option)."""
        return {
            "preset": self.preset,
            "title": self.title,
            "seed_files": list(self.seed_files),
            "seat_counts": list(self.seat_counts),
            "options": self.options,
            "option_specs": [
                {
                    "name": spec.name,
                    "choices": list(spec.choices),
                    "default": spec.default,
                    "premium": [c for c in spec.choices if c in spec.premium],
                    "help": spec.help,
                    "seed": spec.seed,
                    "requires": [
                        {
                            "choices": list(need.choices),
                            "option": need.option,
                            "value": need.value,
                            "reason": need.reason,
                        }
                        for need in spec.requires
                    ],
                }
                for spec in self.option_specs
            ],
            "requires_vip": self.requires_vip,
        }

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Rules) and (self.preset, self._options) == (
            other.preset,
            other._options,
        )

    def __hash__(self) -> int:
        return hash((self.preset, tuple(sorted(self._options.items()))))

    def __repr__(self) -> str:
        return f"rules_for({self.preset!r}, {self._options!r})"

    # -- seating ---------------------------------------------------------------------------
    def check_seats(self, seats: int) -> None:
        """Refuse a seat count the preset does not allow."""
        if seats not in self.seat_counts:
            raise RulesError(
                f"preset {self.preset!r} is for {list(self.seat_counts)} players, not {seats!r}"
            )

    def sides(self, seats: int) -> tuple[int, ...]:
        """The side (team, or the seat itself) each seat scores for."""
        if self.team_game:
            return tuple(seat % 2 for seat in range(seats))
        return tuple(range(seats))

    def draw_mode(self, seats: int) -> int:
        """How a stuck seat gets tiles with this many seats."""
        return NO_DRAWING

    # -- dealing and leading ---------------------------------------------------------------
    def needs_redeal(self, hands: Sequence[int]) -> bool:
        """Whether a deal must be thrown in and dealt again."""
        return False

    def first_opening(self, hands: Sequence[int], server_seed: str) -> Opening:
        """Who leads the first hand (default: whoever holds 6:6, leading it)."""
        return self.double_six_opening(hands)

    def next_opening(
        self,
        previous: HandScore,
        previous_starter: int,
        hands: Sequence[int],
        server_seed: str,
        hand_index: int,
    ) -> Opening:
        """Who leads a later hand, from the previous hand's verdict."""
        seats = len(hands)
        lead = previous.next_lead
        if lead == "rotate":
            return _new_tuple(Opening, ((previous_starter + 1) % seats, None))
        if lead == "repeat":
            return Opening(previous_starter, None)
        if lead == "double_six":
            return self.double_six_opening(hands)
        return Opening(lead, None)

    def double_six_opening(self, hands: Sequence[int]) -> Opening:
        """The seat dealt 6:6 leads it."""
        for seat, mask in enumerate(hands):
            if mask & BIT[DOUBLE_SIX]:
                return Opening(seat, DOUBLE_SIX)
        raise RulesError("nobody holds 6:6, so it cannot open")  # only with a boneyard

    # -- scoring ---------------------------------------------------------------------------
    def score_hand(self, end: HandEnd, seats: int) -> HandScore:
        """Score a finished hand."""
        raise NotImplementedError

    def match_winner(self, scores: Sequence[int], last_hand: HandScore) -> MatchVerdict:
        """Whether the match is over after a hand (see ``MatchVerdict``)."""
        target = self._target
        if max(scores) < target:  # the usual case, checked first: it runs after every hand
            return "play_on"
        leaders = [side for side, score in enumerate(scores) if score >= target]
        best = max(scores[side] for side in leaders)
        top = [side for side in leaders if scores[side] == best]
        return top[0] if len(top) == 1 else "tie"

    def tie_break(self, tied: Sequence[int], server_seed: str) -> tuple[int, list[tuple[int, int]]]:
        """Settle tied sides; returns the winner and what was drawn (default: play on)."""
        raise NotImplementedError

    # -- bonuses ---------------------------------------------------------------------------
    def bonus_trackers(self) -> list[BonusTracker]:
        """The in-hand bonus rules this table uses (fresh objects; they keep per-hand state)."""
        return []


class BonusTracker:
    """Watches one hand's plays and passes and awards bonus points through ``award``."""

    def start_hand(self) -> None:
        """Forget the previous hand."""

    def on_play(
        self, award: Award, seat: int, tile: int, left: int, right: int, last_tile: bool
    ) -> None:
        """A play; ``left``/``right`` are the open ends before it (-1 on the opening)."""

    def on_pass(self, award: Award, seat: int) -> None:
        """A pass."""

    def on_hand_end(
        self, award: Award, end: HandEnd, score: HandScore, left: int, right: int
    ) -> None:
        """The hand is over and scored; ``left``/``right`` are the final open ends."""


class Award:
    """What a bonus tracker may do to a match: read the seating and scores, award points."""

    seats: int
    sides: tuple[int, ...]
    target: int

    def score_of(self, side: int) -> int:  # pragma: no cover - interface
        """The side's match score right now."""
        raise NotImplementedError

    def __call__(self, side: int, points: int, reason: str) -> None:  # pragma: no cover
        """Give ``points`` to ``side`` for ``reason``."""
        raise NotImplementedError


# --------------------------------------------------------------------------------------------
# Bonus rules
# --------------------------------------------------------------------------------------------


class PassBonus(BonusTracker):
    """Seed 002 variation: a play answered by the next seat's pass scores 20 the first time in a
    hand, 10 afterwards, for the player's team."""

    def __init__(self) -> None:
        self.last_move_was_play_by: int | None = None
        self.awarded = 0

    def start_hand(self) -> None:
        self.last_move_was_play_by = None
        self.awarded = 0

    def on_play(
        self, award: Award, seat: int, tile: int, left: int, right: int, last_tile: bool
    ) -> None:
        self.last_move_was_play_by = seat

    def on_pass(self, award: Award, seat: int) -> None:
        player = self.last_move_was_play_by
        self.last_move_was_play_by = None
        if player is not None:
            award(award.sides[player], 20 if self.awarded == 0 else 10, "pass bonus")
            self.awarded += 1


class CollectiveBonus(BonusTracker):
    """Seed 003's comments: first-throw pass, round pass, capicua, and (unless
    ``dead_double_blank`` is off) the dead double blank."""

    def __init__(self, dead_double_blank: bool = True) -> None:
        self.dead_double_blank = dead_double_blank
        self.start_hand()

    def start_hand(self) -> None:
        self.plays = 0
        self.opener = -1
        self.opener_tile = -1
        self.first_throw_stage = 0  # 1: opener played; 2: the next seat passed
        self.last_player = -1
        self.passes_since_play = 0

    def _give(self, award: Award, side: int, points: int, reason: str) -> None:
        # "if the winning team needs 25 or less points to win these points does not apply"
        if award.target - award.score_of(side) > 25:
            award(side, points, reason)

    def on_play(
        self, award: Award, seat: int, tile: int, left: int, right: int, last_tile: bool
    ) -> None:
        self.plays += 1
        if self.plays == 1:
            self.opener, self.opener_tile, self.first_throw_stage = seat, tile, 1
        elif self.first_throw_stage == 2 and award.sides[seat] == award.sides[self.opener]:
            # Opener played, the rival passed and the partner played: the first throw paid off.
            self._give(
                award,
                award.sides[seat],
                25 if IS_DOUBLE[self.opener_tile] else 50,
                "first-throw pass",
            )
            self.first_throw_stage = 0
        else:
            self.first_throw_stage = 0
        if (
            last_tile
            and left >= 0
            and left != right
            and not IS_DOUBLE[tile]
            and BIT[tile] & SUIT[left] & SUIT[right]
        ):
            self._give(award, award.sides[seat], 25, "capicua")
        self.last_player = seat
        self.passes_since_play = 0

    def on_pass(self, award: Award, seat: int) -> None:
        if self.first_throw_stage == 1:
            self.first_throw_stage = 2
        elif self.first_throw_stage == 2:
            self.first_throw_stage = 0  # the partner passed too: no first-throw bonus
        if self.last_player >= 0:
            self.passes_since_play += 1
            if self.passes_since_play == award.seats - 1:
                self._give(award, award.sides[self.last_player], 25, "round pass")
                self.passes_since_play = 0

    def on_hand_end(
        self, award: Award, end: HandEnd, score: HandScore, left: int, right: int
    ) -> None:
        winner = score.winner
        if winner is None or not self.dead_double_blank:
            return
        other_blanks = SUIT[0] & ~BIT[DOUBLE_BLANK]
        held = 0
        for mask in end.hands:
            held |= mask
        holder = next(
            (seat for seat, mask in enumerate(end.hands) if mask & BIT[DOUBLE_BLANK]), None
        )
        if (
            holder is not None
            and award.sides[holder] != winner
            and not held & other_blanks
            and left != 0
            and right != 0
        ):
            self._give(award, winner, 15, "dead double blank")


# --------------------------------------------------------------------------------------------
# Presets
# --------------------------------------------------------------------------------------------


class Dew200(Rules):
    """DEW Game Mode 1 (seeds 000 and 001): all-fives to 200, 2-4 individual players."""

    preset = "dew200"
    title = "DEW Game Mode 1: 200 points"
    seed_files = ("000_98e46b5584fbd610.txt", "001_ca01c92d613e5f0c.txt")
    seat_counts = (2, 3, 4)
    scores_open_ends = True
    ends_at_once = True
    option_specs = (
        OptionSpec("target", (200,), 200, "Score that wins the game.", seed="000"),
        OptionSpec(
            "blocked_scoring",
            ("pairwise", "sum_minus_own"),
            "pairwise",
            "Blocked hand: 'pairwise' (seed 000: each player scores the difference to every "
            "opponent holding more pips) or 'sum_minus_own' (seed 001: opponents' pips minus "
            "one's own, nothing if negative).",
            seed="000/001",
        ),
        OptionSpec(
            "next_hand",
            ("counterclockwise", "previous_winner"),
            "counterclockwise",
            "Who leads the later hands: 'counterclockwise' (seed 000: 'the player to their right "
            "follows') or 'previous_winner' (the deadlock sentence: the previous hand's winner "
            "leads). After a blocked hand with a tie, the same player leads under both.",
            seed="000",
        ),
    )

    def draw_mode(self, seats: int) -> int:
        return DRAW_UNTIL_PLAYABLE if seats <= 3 else NO_DRAWING

    def needs_redeal(self, hands: Sequence[int]) -> bool:
        # A list, not any() over a generator (slower for four hands): this runs for every deal.
        return max([(mask & DOUBLES_MASK).bit_count() for mask in hands]) >= 5

    def first_opening(self, hands: Sequence[int], server_seed: str) -> Opening:
        best = highest_double_holder(hands)  # 6:6 if dealt, else the highest double (<=3 seats)
        if best is not None:
            return Opening(best[0], best[1])
        # No doubles in any hand (only possible with a boneyard): the highest tile leads.
        seat, t = max(
            ((seat, t) for seat, mask in enumerate(hands) for t in tiles_of(mask)),
            key=lambda pair: rank(pair[1]),
        )
        return Opening(seat, t)

    def score_hand(self, end: HandEnd, seats: int) -> HandScore:
        if end.reason == "domino":
            winner = end.last_seat
            points = [0] * seats
            points[winner] = round_to_five(end.total_pips)  # the winner's hand is empty
            return HandScore(winner, tuple(points), self._lead_after(winner), winner)
        pips = end.pips
        lowest = min(pips)
        if pips.count(lowest) > 1:
            return HandScore(
                None, (0,) * seats, "repeat", None, "blocked with a tie for fewest pips"
            )
        if self.option("blocked_scoring") == "pairwise":
            raw = [sum(max(0, other - own) for other in pips) for own in pips]
        else:
            raw = [max(0, sum(pips) - 2 * own) for own in pips]
        winner = pips.index(lowest)
        return HandScore(
            winner, tuple(round_to_five(p) for p in raw), self._lead_after(winner), winner
        )

    def _lead_after(self, winner: int) -> int | NextLead:
        """Who leads the next hand after a hand with a winner (the ``next_hand`` option)."""
        return winner if self._options["next_hand"] == "previous_winner" else "rotate"

    def tie_break(self, tied: Sequence[int], server_seed: str) -> tuple[int, list[tuple[int, int]]]:
        """Seed 000: each tied player draws a face-down tile; fewest pips wins (redraw on ties)."""
        contenders = list(tied)
        pool = list(range(28))
        drawn: list[tuple[int, int]] = []
        round_number = 0
        while True:
            picks: dict[int, int] = {}
            for side in contenders:
                t = pool.pop(
                    fairness.pick(server_seed, f"tiebreak/{round_number}/{side}", len(pool))
                )
                picks[side] = t
                drawn.append((side, t))
            fewest = min(PIPS[t] for t in picks.values())
            contenders = [side for side in contenders if PIPS[picks[side]] == fewest]
            if len(contenders) == 1:
                return contenders[0], drawn
            round_number += 1
            if len(pool) < len(contenders):  # pragma: no cover - 28 tiles outlast 4 players
                pool = list(range(28))


class TeamRules(Rules):
    """Shared by the four-seat partnership presets: seats 0 and 2 against 1 and 3."""

    seat_counts = (4,)
    team_game = True

    def bonus_trackers(self) -> list[BonusTracker]:
        trackers: list[BonusTracker] = []
        if self._options.get("pass_bonus"):
            trackers.append(PassBonus())
        if self._options.get("collective_bonus"):
            trackers.append(CollectiveBonus(bool(self._options.get("dead_double_blank", True))))
        return trackers

    @staticmethod
    def team_pips(pips: Sequence[int]) -> tuple[int, int]:
        """Pips left in each team's hands."""
        return (pips[0] + pips[2], pips[1] + pips[3])

    @staticmethod
    def lowest_of_team(pips: Sequence[int], team: int, after: int) -> int:
        """The team's seat with fewer pips; on equal pips, the one playing first after ``after``."""
        first = (after + 1) % 4 if (after + 1) % 2 == team else (after + 2) % 4
        second = (first + 2) % 4  # the partner, who plays two turns later
        return second if pips[second] < pips[first] else first


_COLLECTIVE = OptionSpec(
    "collective_bonus",
    (False, True),
    False,
    "Collective points (seed 003 comments): first-throw pass 25/50, round pass 25, capicua 25, "
    "dead double blank 15; not for a team needing 25 or fewer points.",
    seed="003",
)
_NEEDS_COLLECTIVE = Requirement(
    (500, 1000),
    "collective_bonus",
    True,
    "seed 003's comments play to 500 or 1,000 points with collective points",
)
_DEAD_DOUBLE_BLANK = OptionSpec(
    "dead_double_blank",
    (True, False),
    True,
    "With collective points: whether the dead double blank (15 points) counts; the seed's "
    "comment says 'most of the time we do not apply it'.",
    seed="003",
    requires=(
        Requirement(
            (False,),
            "collective_bonus",
            True,
            "the dead double blank is one of the collective points",
        ),
    ),
)


class Doscientos(TeamRules):
    """Doscientos (seed 002): 4 players in partnerships, block game, winners score all pips."""

    preset = "doscientos"
    title = "Doscientos"
    seed_files = ("002_0cd1a3c5fa44aac5.txt",)
    option_specs = (
        OptionSpec(
            "target",
            (200, 100, 500, 1000),
            200,
            "Score that wins the game; 500 and 1,000 only with collective points.",
            seed="002/003",
            requires=(_NEEDS_COLLECTIVE,),
        ),
        OptionSpec(
            "blocked",
            ("team_pips", "tie_to_first_player", "tie_to_last_player", "last_or_right"),
            "team_pips",
            "Blocked game: fewer team pips wins, a tie scores nothing ('team_pips'); or a tie "
            "goes to the starter's team / the blocker's team; or the blocker or the seat to "
            "their right wins, whichever has fewer pips ('last_or_right').",
            seed="002",
        ),
        OptionSpec(
            "pass_bonus",
            (False, True),
            False,
            "A play answered by a pass scores 20 the first time in a hand, then 10.",
            seed="002",
        ),
        _COLLECTIVE,
        _DEAD_DOUBLE_BLANK,
    )

    def score_hand(self, end: HandEnd, seats: int) -> HandScore:
        reason, last_seat, _, hands = end  # unpacked once: a field read costs more, per hand
        if reason == "domino":  # the usual end: no per-seat pips needed
            a, b, c, d = PIPS_BY_SLICE  # end.total_pips, inlined
            left = sum(hands)  # the hands are disjoint, so their sum is their union
            total = a[left & 127] + b[left >> 7 & 127] + c[left >> 14 & 127] + d[left >> 21]
            points = (0, total) if last_seat & 1 else (total, 0)
            return _new_tuple(HandScore, (last_seat & 1, points, "rotate", last_seat, ""))
        pips = end.pips
        total = sum(pips)
        rule = self.option("blocked")
        if rule == "last_or_right":
            blocker, right = end.last_seat, (end.last_seat + 1) % seats
            if pips[blocker] == pips[right]:
                return HandScore(None, (0, 0), "double_six", None, "blocked with equal pips")
            seat = blocker if pips[blocker] < pips[right] else right
            return HandScore(seat % 2, _team_points(seat % 2, total), seat, seat)
        teams = self.team_pips(pips)
        if teams[0] != teams[1]:
            team = 0 if teams[0] < teams[1] else 1
            lead = self.lowest_of_team(pips, team, end.starter)
            return HandScore(team, _team_points(team, total), lead, lead)
        if rule == "tie_to_first_player":
            team = end.starter % 2
            lead = self.lowest_of_team(pips, team, end.starter)
            return HandScore(team, _team_points(team, total), lead, lead, "tie to the first team")
        if rule == "tie_to_last_player":
            team = end.last_seat % 2
            return HandScore(
                team, _team_points(team, total), end.last_seat, end.last_seat, "tie to the blocker"
            )
        return HandScore(None, (0, 0), "double_six", None, "blocked with equal team pips")

    def match_winner(self, scores: Sequence[int], last_hand: HandScore) -> MatchVerdict:
        if max(scores) < self._target:  # the usual case, without the call to the base class
            return "play_on"
        verdict = super().match_winner(scores, last_hand)
        return "play_on" if verdict == "tie" else verdict  # level teams past the target play on


def _team_points(team: int, points: int) -> tuple[int, int]:
    return (points, 0) if team == 0 else (0, points)


class Partnership(TeamRules):
    """The configurable team game (seed 003). Starred options in the seed are premium."""

    preset = "partnership"
    title = "Partnership (configurable)"
    seed_files = ("003_69948f3c6ddefd34.txt",)
    option_specs = (
        OptionSpec(
            "target",
            (50, 100, 150, 200, 500, 1000),
            100,
            "Maximum score; 500 and 1,000 only with collective points.",
            premium=frozenset({50, 150, 200}),
            seed="003",
            requires=(_NEEDS_COLLECTIVE,),
        ),
        OptionSpec(
            "scoring",
            ("opponents", "all"),
            "opponents",
            "Winners score the opponents' remaining pips, or all remaining pips.",
            premium=frozenset({"all"}),
            seed="003",
        ),
        OptionSpec(
            "first_hand",
            ("double_six", "random"),
            "double_six",
            "First hand: the 6:6 holder leads it, or a random seat leads any tile.",
            premium=frozenset({"random"}),
            seed="003",
        ),
        OptionSpec(
            "next_hand",
            ("counterclockwise", "previous_winner"),
            "counterclockwise",
            "Next hand: the seat after the previous starter, or the previous winner.",
            premium=frozenset({"previous_winner"}),
            seed="003",
        ),
        OptionSpec(
            "blocked",
            ("team", "individual"),
            "team",
            "Blocked game: the team with fewer pips wins, or the team of the player with fewest.",
            premium=frozenset({"individual"}),
            seed="003",
        ),
        _COLLECTIVE,
        _DEAD_DOUBLE_BLANK,
        OptionSpec(
            "multiples_of_five",
            (False, True),
            False,
            "Multiples of five, team version (seed 003 comments, scored as seed 000): a play "
            "that makes the open ends total a multiple of 5 scores that total for the player's "
            "team, and the hand's points are rounded to the nearest 5.",
            seed="003/000",
        ),
    )

    def __init__(self, options: Mapping[str, OptionValue] | None = None) -> None:
        super().__init__(options)
        self.scores_open_ends = bool(self._options["multiples_of_five"])

    def first_opening(self, hands: Sequence[int], server_seed: str) -> Opening:
        if self.option("first_hand") == "random":
            return Opening(fairness.pick(server_seed, "first-hand", len(hands)), None)
        return self.double_six_opening(hands)

    def score_hand(self, end: HandEnd, seats: int) -> HandScore:
        pips = end.pips
        team_pips = self.team_pips(pips)
        winner_seat: int | None
        if end.reason == "domino":
            winner_seat = end.last_seat
        elif self.option("blocked") == "team":
            if team_pips[0] == team_pips[1]:
                return HandScore(None, (0, 0), "rotate", None, "blocked with equal team pips")
            team = 0 if team_pips[0] < team_pips[1] else 1
            winner_seat = self.lowest_of_team(pips, team, end.starter)
        else:
            lowest = min(pips)
            teams = {seat % 2 for seat in range(seats) if pips[seat] == lowest}
            if len(teams) > 1:
                return HandScore(None, (0, 0), "rotate", None, "blocked with a tie across teams")
            winner_seat = self.lowest_of_team(pips, teams.pop(), end.starter)
        team = winner_seat % 2
        points = sum(pips) if self.option("scoring") == "all" else team_pips[1 - team]
        if self.scores_open_ends:  # the multiples-of-five game: every score is a multiple of 5
            points = round_to_five(points)
        lead: int | NextLead = (
            winner_seat if self.option("next_hand") == "previous_winner" else "rotate"
        )
        return HandScore(team, _team_points(team, points), lead, winner_seat)

    def match_winner(self, scores: Sequence[int], last_hand: HandScore) -> MatchVerdict:
        verdict = super().match_winner(scores, last_hand)
        return "play_on" if verdict == "tie" else verdict


class DrawGame(Rules):
    """The two-player draw game (seed 004): draw one tile when stuck, fewest pips wins a block."""

    preset = "draw"
    title = "Draw game (two players)"
    seed_files = ("004_82d7347b15af32f8.txt",)
    seat_counts = (2,)
    blocks_when_all_pass = True
    option_specs = (
        OptionSpec(
            "target",
            (0, 50, 100, 150),
            0,
            "0: one hand decides the game (seed 004); otherwise hands are played until a "
            "player's points (the loser's pips) reach the target.",
            seed="004",
        ),
    )

    def draw_mode(self, seats: int) -> int:
        return DRAW_ONE_THEN_PASS

    def first_opening(self, hands: Sequence[int], server_seed: str) -> Opening:
        best = highest_double_holder(hands)
        if best is not None:
            return Opening(best[0], best[1])
        # "If multiple players have the same highest tile, the game chooses randomly."
        top = max(PIPS[t] for mask in hands for t in tiles_of(mask))
        candidates = [
            (seat, t) for seat, mask in enumerate(hands) for t in tiles_of(mask) if PIPS[t] == top
        ]
        seat, t = candidates[fairness.pick(server_seed, "highest-tile", len(candidates))]
        return Opening(seat, t)

    def next_opening(
        self,
        previous: HandScore,
        previous_starter: int,
        hands: Sequence[int],
        server_seed: str,
        hand_index: int,
    ) -> Opening:
        return self.first_opening(hands, f"{server_seed}/hand/{hand_index}")

    def score_hand(self, end: HandEnd, seats: int) -> HandScore:
        pips = end.pips
        if end.reason == "domino":
            winner = end.last_seat
        elif pips[0] == pips[1]:
            return HandScore(None, (0, 0), "rotate", None, "blocked with equal pips: a draw")
        else:
            winner = 0 if pips[0] < pips[1] else 1
        points = [0, 0]
        points[winner] = pips[1 - winner]
        return HandScore(winner, (points[0], points[1]), "rotate", winner)

    def match_winner(self, scores: Sequence[int], last_hand: HandScore) -> MatchVerdict:
        if self.target == 0:
            return last_hand.winner  # one hand decides; None is a drawn game
        verdict = super().match_winner(scores, last_hand)
        return "play_on" if verdict == "tie" else verdict


PRESETS: dict[str, type[Rules]] = {
    cls.preset: cls for cls in (Dew200, Doscientos, Partnership, DrawGame)
}
"""Every preset by name."""


def rules_for(preset: str, options: Mapping[str, OptionValue] | None = None) -> Rules:
    """The rules of a named preset with the given options (unset options take defaults)."""
    try:
        cls = PRESETS[preset]
    except KeyError:
        raise RulesError(f"no preset {preset!r}; presets: {sorted(PRESETS)}") from None
    return cls(options)


__all__ = [
    "PRESETS",
    "Award",
    "BonusTracker",
    "HandEnd",
    "HandScore",
    "Opening",
    "OptionSpec",
    "Requirement",
    "Rules",
    "RulesError",
    "round_to_five",
    "rules_for",
]
