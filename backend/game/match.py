"""A match: hands dealt from a server seed (or given explicitly), moves, scores, result.

``Match`` is mutable for speed: ``apply`` checks a move completely before touching anything, so
an illegal move raises ``IllegalMoveError`` and leaves the match exactly as it was. Hands follow
one another automatically until the rules say the match is over.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any, NamedTuple

from backend.game import fairness
from backend.game.moves import (
    _PLAYS_AT,
    DRAW,
    EMPTY_LINE,
    ENDS,
    FITS,
    JOINS,
    LEFT,
    LEFT_END,
    MOST_SEATS,
    PASS,
    PLAYS,
    RIGHT_END,
    SEATED_DRAW,
    SEATED_PASS,
    IllegalMoveError,
    Move,
    leads,
    plays_at,
)
from backend.game.rules import (
    DRAW_ONE_THEN_PASS,
    PRESETS,
    Award,
    HandEnd,
    HandEndReason,
    HandScore,
    Rules,
    RulesError,
)
from backend.game.tiles import (
    BIT,
    HIGH,
    IS_DOUBLE,
    LOW,
    NAMES,
    OTHER_HALF,
    TILE_COUNT,
    hand_masks,
    mask_of,
    parse_tile,
)

_ONLY_DRAW = (DRAW,)
_ONLY_PASS = (PASS,)
_MOST_SEATS = max(max(preset.seat_counts) for preset in PRESETS.values())
if _MOST_SEATS > MOST_SEATS:  # pragma: no cover - guards the per-seat tables of moves.py
    raise RuntimeError(f"a preset seats {_MOST_SEATS}; moves.MOST_SEATS is {MOST_SEATS}")
_new_tuple = tuple.__new__
"""Builds a NamedTuple from all its fields in C; its own ``__new__`` is a Python function, which
costs twice as much on paths that run once per hand."""
REDEAL_LIMIT = 100  # a deal with 5+ doubles in one hand is rare; this only guards a bad preset


class Deal(NamedTuple):
    """Each seat's tiles and the boneyard in drawing order (first tile is drawn first)."""

    hands: tuple[tuple[int, ...], ...]
    boneyard: tuple[int, ...]

    def to_json(self) -> dict[str, list[list[str]] | list[str]]:
        """Tiles as ``"6:4"`` strings."""
        return {
            "hands": [[NAMES[t] for t in hand] for hand in self.hands],
            "boneyard": [NAMES[t] for t in self.boneyard],
        }

    @classmethod
    def from_json(cls, data: Any) -> Deal:
        """Parse ``{"hands": [[...], ...], "boneyard": [...]}``; checks it is one full set."""
        try:
            hands = tuple(tuple(parse_tile(str(t)) for t in hand) for hand in data["hands"])
            boneyard = tuple(parse_tile(str(t)) for t in data.get("boneyard", []))
        except (TypeError, KeyError, AttributeError):
            raise ValueError(
                f"a deal is {{'hands': [[tile, ...], ...], 'boneyard': [tile, ...]}}, "
                f"got {data!r:.120}"
            ) from None
        deal = cls(hands, boneyard)
        deal.check()
        return deal

    def check(self) -> None:
        """Refuse a deal that is not exactly the 28 tiles, each once."""
        everything = [t for hand in self.hands for t in hand] + list(self.boneyard)
        if sorted(everything) != list(range(TILE_COUNT)):
            raise ValueError(
                f"a deal must hold each of the 28 tiles exactly once, got {len(everything)} tiles "
                f"with {len(set(everything))} distinct"
            )

    @classmethod
    def from_order(cls, order: Sequence[int], seats: int, hand_size: int) -> Deal:
        """Deal a shuffled set: seat 0 takes the first ``hand_size`` tiles, then seat 1, ..."""
        hands = tuple(
            [tuple(order[i : i + hand_size]) for i in range(0, seats * hand_size, hand_size)]
        )
        return cls(hands, tuple(order[seats * hand_size :]))


_CUTS: dict[tuple[int, int], itemgetter[Any]] = {}
"""Per (seats, hand size): cuts a shuffled set into each seat's hand."""


def seeded_deal(
    rules: Rules, seats: int, server_seed: str, hand_index: int
) -> tuple[Deal, int, list[int]]:
    """The deal of hand ``hand_index`` from the seed (after any redeals), how many redeals it
    took, and each seat's tiles as a mask."""
    size = rules.hand_size
    dealt = seats * size
    cut = _CUTS.get((seats, size))
    if cut is None:
        cut = _CUTS[seats, size] = itemgetter(*[slice(i, i + size) for i in range(0, dealt, size)])
    for attempt in range(REDEAL_LIMIT):
        order = fairness.shuffled_tiles(server_seed, f"hand/{hand_index}/deal/{attempt}")
        hands = cut(order)  # Deal.from_order with the slicing done in C: this runs every hand
        masks = hand_masks(hands)
        if not (rules.may_redeal and rules.needs_redeal(masks)):
            return _new_tuple(Deal, (hands, order[dealt:])), attempt, masks
    raise RulesError(f"no acceptable deal in {REDEAL_LIMIT} attempts")  # pragma: no cover


@dataclass(slots=True)
class HandLog:
    """One hand as it was played and scored (the per-hand log of a result and of a record)."""

    index: int
    deal: Deal
    seeded: bool
    redeals: int
    starter: int
    opening_tile: int | None
    moves: list[tuple[int, Move]] = field(default_factory=list)
    end: str = ""
    """``"domino"``, ``"blocked"``, ``"target"`` (the match ended mid-hand) or ``""`` (live)."""
    winner: int | None = None
    points: list[int] = field(default_factory=list)
    """Everything each side scored in this hand: open ends, bonuses, and the hand's points."""
    bonuses: list[tuple[int, int, str]] = field(default_factory=list)
    note: str = ""
    left: tuple[int, ...] = ()
    """Each seat's tiles (masks) when the hand ended: shown to every seat once it is over;
    empty while it is live, and when the target was reached mid-hand."""


@dataclass(frozen=True)
class MatchResult:
    """The outcome: winning side (``None``: drawn), its seats, final scores, the per-hand log."""

    winner: int | None
    winner_seats: tuple[int, ...]
    scores: tuple[int, ...]
    hands: tuple[HandLog, ...]
    tie_break: tuple[tuple[int, int], ...] = ()
    """Tiles drawn to break a tie: (side, tile), in drawing order."""

    def to_json(self) -> dict[str, Any]:
        """The outcome JSON that ``dew replay`` prints."""
        return {
            "winner": self.winner,
            "winner_seats": list(self.winner_seats),
            "final_scores": list(self.scores),
            "hands": [
                {
                    "index": h.index,
                    "starter": h.starter,
                    "end": h.end,
                    "winner": h.winner,
                    "points": list(h.points),
                    "bonuses": [
                        {"side": side, "points": pts, "reason": why} for side, pts, why in h.bonuses
                    ],
                    **({"note": h.note} if h.note else {}),
                }
                for h in self.hands
            ],
            "tie_break": [{"side": side, "tile": NAMES[t]} for side, t in self.tie_break],
        }


class _Award(Award):
    """How bonus rules reach the match, without handing them the whole state."""

    def __init__(self, match: Match) -> None:
        # Made for each call, never kept by the match: a match -> hook -> match cycle would
        # leave every finished match (its whole log) for the cyclic garbage collector.
        self._match = match
        self.seats = match.seats
        self.sides = match.sides
        self.target = match.rules.target

    def score_of(self, side: int) -> int:
        return self._match.scores[side]

    def __call__(self, side: int, points: int, reason: str) -> None:
        self._match._award(side, points, reason)


class Match:
    """The authoritative state of one match. Create it with ``start_match``.

    Read-only for callers: ``rules``, ``names``, ``seats``, ``sides`` (side of each seat),
    ``server_seed``, ``turn`` (seat to play), ``over``, ``result``, ``scores`` (per side),
    ``hand_index``, ``hand`` (the live ``HandLog``), ``log`` (every hand so far),
    ``left``/``right`` (open ends, -1 before the opening), ``boneyard_size``. Everything else is
    internal, and only ``apply`` changes the match.
    """

    # The open ends are kept as one number, ``ends`` (see moves.ENDS); ``_free_turn`` says that
    # the seat to play may play any tile it holds that fits (the match is not over and no tile was
    # just drawn), which is what lets ``apply`` check the usual play with two lookups.

    __slots__ = (
        "_blocks_on_passes",
        "_bonus",
        "_draw_mode",
        "_free_turn",
        "_hooks",
        "_legal",
        "_next",
        "_score_ends",
        "boneyard",
        "drawn",
        "drawn_tile",
        "ends",
        "explicit_deals",
        "forced_tile",
        "hand",
        "hand_index",
        "hands",
        "history",
        "left_value",
        "log",
        "names",
        "over",
        "passes",
        "result",
        "right_value",
        "rules",
        "scores",
        "seats",
        "server_seed",
        "sides",
        "turn",
    )

    def __init__(
        self,
        rules: Rules,
        names: Sequence[str],
        server_seed: str,
        deals: Sequence[Deal | None] = (),
    ) -> None:
        seats = len(names)
        rules.check_seats(seats)
        self.rules = rules
        self.names = tuple(names)
        self.seats = seats
        self.sides = rules.sides(seats)
        self.server_seed = server_seed
        self.explicit_deals = tuple(deals)
        self._next = (*range(1, seats), 0)  # the seat after each seat
        self._draw_mode = rules.draw_mode(seats)
        self._score_ends = rules.scores_open_ends
        self._blocks_on_passes = rules.blocks_when_all_pass
        self._bonus = rules.bonus_trackers()
        self._hooks = self._score_ends or bool(self._bonus) or self._blocks_on_passes
        self.scores = [0] * (max(self.sides) + 1)
        self.log: list[HandLog] = []
        self.over = False
        self.result: MatchResult | None = None
        self.hand_index = -1
        self._deal_hand(None)

    # -- dealing ---------------------------------------------------------------------------
    def _deal_hand(self, previous: HandScore | None) -> None:
        """Deal the next hand, find its leader and start it."""
        index = self.hand_index + 1
        explicit = self.explicit_deals[index] if index < len(self.explicit_deals) else None
        if explicit is not None:
            deal, seeded, redeals = explicit, False, 0
            deal.check()
            if len(deal.hands) != self.seats:
                raise RulesError(
                    f"the deal for hand {index} has {len(deal.hands)} hands, not {self.seats}"
                )
            masks = [mask_of(hand) for hand in deal.hands]
        else:
            deal, redeals, masks = seeded_deal(self.rules, self.seats, self.server_seed, index)
            seeded = True
        if previous is None:
            opening = self.rules.first_opening(masks, self.server_seed)
        else:
            opening = self.rules.next_opening(
                previous, self.log[-1].starter, masks, self.server_seed, index
            )
        leader, tile = opening
        self.hand_index = index
        self.hands = masks
        self.boneyard = deal.boneyard
        self.drawn = 0
        self.drawn_tile = -1
        self.ends = EMPTY_LINE
        self._free_turn = True
        self.left_value = self.right_value = 0
        self.turn = leader
        self.passes = 0
        # Every field given in order: keywords and default factories cost more, once a hand.
        self.hand = hand = HandLog(
            index, deal, seeded, redeals, leader, tile, [], "", None, [0] * len(self.scores), [], ""
        )
        self.history = hand.moves
        self.log.append(hand)
        for tracker in self._bonus:
            tracker.start_hand()
        # _offer, inlined for the opening: the forced tile, or any tile of the leader's hand.
        if tile is None:
            self.forced_tile = -1
            self._legal = leads(masks[leader])
        else:
            self.forced_tile = tile
            self._legal = (PLAYS[tile][LEFT],)

    # -- moves -----------------------------------------------------------------------------
    def legal_moves(self) -> tuple[Move, ...]:
        """The moves the seat to play may make now (empty once the match is over)."""
        return self._legal

    @property
    def left(self) -> int:
        """The pip open on the left end (-1 before the opening tile)."""
        return LEFT_END[self.ends]

    @property
    def right(self) -> int:
        """The pip open on the right end (-1 before the opening tile)."""
        return RIGHT_END[self.ends]

    def _offer(self) -> tuple[Move, ...]:
        """Work out the legal moves of the seat to play (kept in ``_legal`` after every change)."""
        if self.over:
            return ()
        hand = self.hands[self.turn]
        ends = self.ends
        if ends == EMPTY_LINE:
            if self.forced_tile >= 0:
                return (PLAYS[self.forced_tile][LEFT],)
            return leads(hand)
        if self.drawn_tile >= 0:
            hand &= BIT[self.drawn_tile]  # after a single draw only the drawn tile may be played
        playable = hand & FITS[ends]
        if playable:
            return plays_at(ends, playable)
        if self._draw_mode and self.drawn < len(self.boneyard) and self.drawn_tile < 0:
            return _ONLY_DRAW
        return _ONLY_PASS

    def apply(self, move: Move) -> tuple[Move, ...]:
        """Make ``move`` for the seat to play and return the moves legal next (what
        ``legal_moves`` now returns; empty once the match is over), so that a caller playing
        on needs no second call. Raises ``IllegalMoveError`` and changes nothing if the rules
        do not allow it."""
        seat = self.turn
        before = self.ends
        ends = move.joins[before]
        hands = self.hands
        hand = hands[seat]
        bit = move.bit
        # The usual play (a canonical play of a held tile that fits the live line, no tile just
        # drawn, the match not over) is checked by these lookups; any other move goes through
        # _check, which raises or allows it. Nothing is written before this.
        if ends >= 0 and hand & bit and self._free_turn:
            self.ends = ends
            self.history.append(move.seated[seat])  # shared: no allocation per play
        elif move.kind == "play":
            self._check(move)  # the opening, a drawn tile, or a play made by hand
            t = move.tile
            bit = BIT[t]
            ends = ENDS[HIGH[t]][LOW[t]] if before == EMPTY_LINE else JOINS[move.side][t][before]
            self.ends = ends
            self.drawn_tile = -1
            self._free_turn = True
            self.history.append((seat, move))
        elif move.kind == "draw":
            self._draw(seat, move)
            return self._legal
        else:
            self._pass(seat, move)
            return self._legal
        hands[seat] = hand = hand ^ bit
        if self._hooks:  # DEW open ends, bonuses, the draw game's pass count: off the hot path
            self.passes = 0
            t = move.tile
            if self._score_ends:
                self._score_open_ends(seat, t, move.side)
                if self.over:
                    return self._legal
            if self._bonus:
                award = _Award(self)
                left, right = LEFT_END[before], RIGHT_END[before]
                for tracker in self._bonus:
                    tracker.on_play(award, seat, t, left, right, not hand)
        if not hand:
            self._end_hand("domino", seat)
            return self._legal
        # What the next seat may do (this is _offer's usual case: nobody has drawn a tile this
        # turn). Only when that seat has no fitting tile can the hand be blocked, so the other
        # hands are looked at then.
        fitting = FITS[ends]
        following = self._next[seat]
        playable = hands[following] & fitting
        if playable:
            self.turn = following
            try:
                self._legal = _PLAYS_AT[ends][playable]
            except KeyError:
                self._legal = plays_at(ends, playable)
        elif self._draw_mode and self.drawn < len(self.boneyard):
            self.turn = following
            self._legal = _ONLY_DRAW
        elif sum(hands) & fitting:  # hands are disjoint, so the sum is their union
            self.turn = following
            self._legal = _ONLY_PASS
        else:
            self._end_hand("blocked", seat)
        return self._legal

    def _draw(self, seat: int, move: Move) -> None:
        """``apply`` for a draw: legal exactly when it is the seat's only move (see _offer)."""
        if self._legal is not _ONLY_DRAW:
            self._check(move)
        ends = self.ends
        boneyard = self.boneyard
        t = boneyard[self.drawn]
        self.drawn = drawn = self.drawn + 1
        hands = self.hands
        hands[seat] = hand = hands[seat] | BIT[t]
        self.history.append(SEATED_DRAW[seat])
        fitting = FITS[ends]
        if drawn >= len(boneyard) and not sum(hands) & fitting:
            self._end_hand("blocked")
        elif self._draw_mode == DRAW_ONE_THEN_PASS:
            self.drawn_tile = t
            self._free_turn = False
            self._legal = self._offer()
        elif hand & fitting:  # _offer, inlined for drawing until a tile fits (DEW)
            self._legal = plays_at(ends, hand & fitting)
        else:
            self._legal = _ONLY_DRAW if drawn < len(boneyard) else _ONLY_PASS

    def _pass(self, seat: int, move: Move) -> None:
        """``apply`` for a pass: legal exactly when it is the seat's only move (see _offer)."""
        if self._legal is not _ONLY_PASS:
            self._check(move)  # also refuses an unknown kind of move
        self.history.append(SEATED_PASS[seat])
        if self.drawn_tile >= 0:
            self.drawn_tile = -1
            self._free_turn = True
        self.passes += 1
        if self._bonus:
            award = _Award(self)
            for tracker in self._bonus:
                tracker.on_pass(award, seat)
        if self._blocks_on_passes and self.passes >= self.seats:
            self._end_hand("blocked")
            return
        self.turn = seat = self._next[seat]
        # _offer, inlined: the line is open and nobody has a drawn tile to play.
        ends = self.ends
        playable = self.hands[seat] & FITS[ends]
        if playable:
            try:
                self._legal = _PLAYS_AT[ends][playable]
            except KeyError:
                self._legal = plays_at(ends, playable)
        elif self._draw_mode and self.drawn < len(self.boneyard):
            self._legal = _ONLY_DRAW
        else:
            self._legal = _ONLY_PASS

    def _check(self, move: Move) -> None:
        """Raise ``IllegalMoveError`` saying why ``move`` is not allowed now; return if it is
        allowed after all (the opening, a drawn tile, or a move equal in effect to a legal one,
        say ``Move("draw", 5)``), and ``apply`` then makes it."""
        if self.over:
            raise IllegalMoveError(move, "the match is over")
        seat = self.turn
        hand = self.hands[seat]
        left, right = self.left, self.right
        if move.kind == "play":
            t = move.tile
            if not hand & BIT[t]:
                raise IllegalMoveError(move, f"seat {seat} does not hold {NAMES[t]}")
            drawn_tile = self.drawn_tile
            if drawn_tile >= 0 and t != drawn_tile:
                raise IllegalMoveError(
                    move, f"after drawing, only the drawn tile {NAMES[drawn_tile]} may be played"
                )
            if left < 0:
                if move.side != LEFT:
                    raise IllegalMoveError(move, "the opening tile is laid with side 'L'")
                if self.forced_tile >= 0 and t != self.forced_tile:
                    raise IllegalMoveError(
                        move, f"this hand must open with {NAMES[self.forced_tile]}"
                    )
            elif move.side:
                if OTHER_HALF[t][right] < 0:
                    raise IllegalMoveError(move, f"{NAMES[t]} does not fit the right end ({right})")
            elif OTHER_HALF[t][left] < 0:
                raise IllegalMoveError(move, f"{NAMES[t]} does not fit the left end ({left})")
        elif move.kind == "draw":
            if not self._draw_mode:
                raise IllegalMoveError(move, "there is no drawing in this game")
            if left < 0:
                raise IllegalMoveError(move, "the line is empty: the leader must play a tile")
            if hand & FITS[self.ends]:
                raise IllegalMoveError(move, f"seat {seat} holds a tile that fits")
            if self.drawn >= len(self.boneyard):
                raise IllegalMoveError(move, "the boneyard is empty")
            if self.drawn_tile >= 0:
                raise IllegalMoveError(move, "only one tile may be drawn per turn in this game")
        elif move.kind == "pass":
            if left < 0:
                raise IllegalMoveError(move, "the line is empty: the leader must play a tile")
            playable = hand & FITS[self.ends]
            if self.drawn_tile >= 0:
                playable &= BIT[self.drawn_tile]
            if playable:
                raise IllegalMoveError(move, f"seat {seat} holds a tile that fits")
            if (
                self._draw_mode
                and self.drawn < len(self.boneyard)
                and not (self._draw_mode == DRAW_ONE_THEN_PASS and self.drawn_tile >= 0)
            ):
                raise IllegalMoveError(move, "a stuck seat must draw while the boneyard has tiles")
        else:
            raise IllegalMoveError(move, f"unknown move kind {move.kind!r}")

    def _score_open_ends(self, seat: int, t: int, side: int) -> None:
        """DEW: score the open ends when they total a multiple of 5. A double at an end counts
        both halves; a lone opening double counts once in full (5:5 alone makes 10)."""
        double = IS_DOUBLE[t]
        if len(self.history) == 1:  # the opening: a hand's first move is always a play
            if double:
                self.left_value = self.right_value = 2 * HIGH[t]
                total = 2 * HIGH[t]
            else:
                self.left_value, self.right_value = HIGH[t], LOW[t]
                total = HIGH[t] + LOW[t]
        elif side == LEFT:
            self.left_value = 2 * self.left if double else self.left
            total = self.left_value + self.right_value
        else:
            self.right_value = 2 * self.right if double else self.right
            total = self.left_value + self.right_value
        if total % 5 == 0 and total:
            self._award(self.sides[seat], total, "")

    # -- scoring ---------------------------------------------------------------------------
    def _award(self, side: int, points: int, reason: str) -> None:
        """Add points scored during a hand; with ``ends_at_once`` the target ends the match."""
        self.scores[side] += points
        self.hand.points[side] += points
        if reason:
            self.hand.bonuses.append((side, points, reason))
        if self.rules.ends_at_once and self.scores[side] >= self.rules.target:
            self.hand.end = "target"
            self.hand.winner = side
            self._finish(side, ())

    def _end_hand(self, reason: HandEndReason, last_player: int = -1) -> None:
        if last_player < 0:  # ended by a draw or a pass: the blocker is whoever played last
            last_player = next(seat for seat, move in reversed(self.history) if move.kind == "play")
        hand = self.hand
        rules = self.rules
        end = _new_tuple(HandEnd, (reason, last_player, hand.starter, tuple(self.hands)))
        score = rules.score_hand(end, self.seats)
        winner, points, _, _, note = score
        hand.end = reason
        hand.winner = winner
        hand.note = note
        hand.left = tuple(self.hands)
        if self._bonus:
            award = _Award(self)
            for tracker in self._bonus:
                tracker.on_hand_end(award, end, score, self.left, self.right)
        scores = self.scores
        hand_points = hand.points
        for side, won in enumerate(points):
            if won:
                scores[side] += won
                hand_points[side] += won
        verdict = rules.match_winner(scores, score)
        if verdict == "play_on":
            self._deal_hand(score)
        elif verdict == "tie":
            best = max(self.scores)
            tied = [side for side, s in enumerate(self.scores) if s == best]
            winner, drawn = self.rules.tie_break(tied, self.server_seed)
            self._finish(winner, tuple(drawn))
        else:
            self._finish(verdict, ())

    def _finish(self, winner: int | None, tie_break: tuple[tuple[int, int], ...]) -> None:
        self.over = True
        self._free_turn = False
        self._legal = ()
        seats = (
            () if winner is None else tuple(s for s in range(self.seats) if self.sides[s] == winner)
        )
        self.result = MatchResult(winner, seats, tuple(self.scores), tuple(self.log), tie_break)

    # -- reading ---------------------------------------------------------------------------
    def line_tiles(self) -> list[str]:
        """The line of play left to right, each tile oriented as laid (``"3:6", "6:6", "6:1"``)."""
        laid: list[tuple[int, int]] = []
        left = right = -1
        for t, side in ((m.tile, m.side) for _, m in self.history if m.kind == "play"):
            if left < 0:
                laid.append((HIGH[t], LOW[t]))
                left, right = HIGH[t], LOW[t]
            elif side == LEFT:
                new = OTHER_HALF[t][left]
                laid.insert(0, (new, left))
                left = new
            else:
                new = OTHER_HALF[t][right]
                laid.append((right, new))
                right = new
        return [f"{a}:{b}" for a, b in laid]

    @property
    def boneyard_size(self) -> int:
        """Tiles left to draw."""
        return len(self.boneyard) - self.drawn

    def tile_counts(self) -> list[int]:
        """How many tiles each seat holds."""
        return [mask.bit_count() for mask in self.hands]


def _default_names(seats: int) -> list[str]:
    return [f"seat{i}" for i in range(seats)]


_DEFAULT_NAMES = [_default_names(seats) for seats in range(_MOST_SEATS + 1)]


def start_match(
    rules: Rules,
    seats: Sequence[str] | int,
    seed: str,
    deals: Sequence[Deal | None] = (),
) -> Match:
    """Start a match: ``seats`` are names (or a count), ``seed`` the server seed that deals every
    hand; ``deals[i]`` optionally fixes hand i's deal explicitly (``None``: from the seed)."""
    if isinstance(seats, int):
        names = _DEFAULT_NAMES[seats] if 0 <= seats < len(_DEFAULT_NAMES) else _default_names(seats)
    else:
        names = list(seats)
    return Match(rules, names, seed, deals)


__all__ = [
    "Deal",
    "HandLog",
    "Match",
    "MatchResult",
    "seeded_deal",
    "start_match",
]
