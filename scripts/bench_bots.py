"""Bot strength and speed: the expert against the hard bot, and hard against easy as a baseline.

Pairings (each one plays every deal twice, with the sides swapped, so neither bot keeps a seat
or a deal advantage):

- ``expert`` vs ``hard`` as teams on ``doscientos``;
- ``expert`` vs ``hard`` on ``draw`` (two players, one hand per game);
- ``hard`` vs ``easy`` as teams on ``doscientos`` (the baseline gap between heuristics);
- ``expert`` vs ``dominoes`` as teams on ``doscientos``: the independent ``dominoes`` package's
  (6.1.0, ``bench`` dependency group) probabilistic alpha-beta player, its strongest player that
  does not look at hidden hands. An adapter turns our seat view into the package's ``Game``
  (its own hand; the other hands filled from the unseen tiles in a fixed order, since the player
  only uses their union and sizes; the line, the public moves with passes, whose turn it is).
  The package's rules of a hand are those of Doscientos (no boneyard, partners across, the
  domino-er's team takes every pip left, a block goes to the team with fewer pips). Exhaustive
  alpha-beta over every consistent deal is out of reach early in a hand, so the player plays the
  package's ``bota_gorda`` order for the first ``--dominoes-start`` moves and then searches
  ``--dominoes-samples`` sampled deals per decision to the end of the hand.

Per-hand accounting comes from the engine's match results (``MatchResult.hands``: each hand's
winning side and the points each side earned in it). A hand counts as won only if the side won
it; tied hands are reported separately. Points per hand are the side's points minus the
opponents' points in that hand. Intervals are 95%: Wilson for rates, normal for means.

Speed is the time per ``choose`` call, measured as CPU time of the thread (other processes on
the machine do not inflate it). ``expert_median_ms_per_move`` is the median over the expert's
real decisions (two or more legal moves) in both expert pairings; the median over every call,
forced draws and passes included, is ``expert_median_ms_per_move_incl_forced``.

    uv run python scripts/bench_bots.py [--json] [--quick] [--hands N] [--workers W]
        [--seed S | --fresh-seed]
        [--pairings expert-hard,expert-hard-draw,hard-easy,expert-dominoes]
        [--dominoes-hands N] [--dominoes-start M] [--dominoes-samples K]
        [--expert '{"playout": "heavy", "step_budget": 14000}']

Targets (issue 22): against the ``dominoes`` package's player, over >= 1,000 hands, the expert
wins >= 58% of hands with the 95% CI's lower bound above 55%, points per hand with the CI's
lower bound above 0, at a median <= 50 ms CPU per decision; against hard, over >= 2,000 hands,
>= 62% and >= +10 points per hand. Acceptance runs use ``--fresh-seed`` (a seed from the
current time, printed first), so no setting was tuned on their deals. Each batch prints its
partial figures with their intervals to stderr, so a run stopped early still reports them.
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import random
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from backend.game import SeatView, make_bot, play_match, rules_for
from backend.game.bots import Bot
from backend.game.bots.expert import ExpertBot
from backend.game.bots.settings import ExpertSettings
from backend.game.moves import LEFT, parse_move
from backend.game.tiles import ALL_TILES_MASK, BIT, HIGH, LOW, parse_tile, tiles_of

Z95 = 1.959963984540054


DOMINOES_START = 4
DOMINOES_SAMPLES = 6


class DominoesPackageBot:
    """The ``dominoes`` package's probabilistic alpha-beta player, fed our seat view."""

    name = "dominoes"

    def __init__(self, rng: random.Random, start_move: int, samples: int) -> None:
        import dominoes  # the bench dependency group; only this pairing needs it

        self.dominoes = dominoes
        self.rng = rng
        order = dominoes.players.bota_gorda
        self.search = dominoes.players.probabilistic_alphabeta(
            start_move=start_move, sample_size=samples, player=order
        )
        self.order = order

    def choose(self, view: SeatView) -> str:
        legal = view["legal_moves"]
        if len(legal) == 1:
            return legal[0]
        game = self.game_of(view)
        # The package draws its samples from the global ``random``: seed it from our own rng so
        # a run is repeatable.
        random.seed(self.rng.getrandbits(64))
        self.order(game)
        self.search(game)
        domino, left = game.valid_moves[0]
        wanted = parse_tile(f"{domino.first}:{domino.second}")
        for text in legal:
            move = parse_move(text)
            if move.kind == "play" and move.tile == wanted and (move.side == LEFT) == left:
                return text
        raise AssertionError(f"the package chose {domino}, left={left}; legal: {legal}")

    def game_of(self, view: SeatView) -> object:
        """The package's ``Game`` for this view (no hidden tile is placed where it really is)."""
        d = self.dominoes
        mine = [parse_tile(text) for text in view["hand"]]
        line = [text.split(":") for text in view["line"]]
        known = 0
        for t in mine:
            known |= BIT[t]
        for a, b in line:
            known |= BIT[parse_tile(f"{a}:{b}")]
        unseen = list(tiles_of(ALL_TILES_MASK & ~known))
        hands = []
        for seat, count in enumerate(view["tile_counts"]):
            if seat == view["seat"]:
                tiles = mine
            else:
                tiles, unseen = unseen[:count], unseen[count:]
            hands.append(d.Hand([d.Domino(HIGH[t], LOW[t]) for t in tiles]))
        board = d.Board()
        board.board.extend(d.Domino(int(a), int(b)) for a, b in line)
        moves: list[object] = []
        for _seat, text in view["history"]:
            move = parse_move(text)
            if move.kind == "pass":
                moves.append(None)
            else:
                moves.append((d.Domino(HIGH[move.tile], LOW[move.tile]), move.side == LEFT))
        starter = view["history"][0][0] if view["history"] else view["seat"]
        game = d.Game(board, hands, moves, view["seat"], (), starter, None)
        if line:
            game._update_valid_moves()
        elif view["must_open_with"]:  # 6:6 leads the first hand, as the package's starting_domino
            t = parse_tile(view["must_open_with"])
            game.valid_moves = ((d.Domino(HIGH[t], LOW[t]), True),)
        else:
            game.valid_moves = tuple((domino, True) for domino in hands[view["seat"]])
        return game


@dataclass(frozen=True)
class BotConfig:
    """How the bots of a run are set up: the package player's start move and samples, and
    ``ExpertSettings`` fields that differ from the defaults (``--expert``, for comparisons)."""

    dominoes_start: int = DOMINOES_START
    dominoes_samples: int = DOMINOES_SAMPLES
    expert: tuple[tuple[str, Any], ...] = ()


def new_bot(name: str, rng: random.Random, config: BotConfig) -> Bot:
    """A registered bot, ``dominoes`` for the package's player, or ``expert`` with its
    settings overridden by ``config.expert``."""
    if name == "dominoes":
        return DominoesPackageBot(rng, config.dominoes_start, config.dominoes_samples)
    if name == "expert" and config.expert:
        return ExpertBot(rng, ExpertSettings(**dict(config.expert)))
    return make_bot(name, rng)


class TimedBot:
    """Wraps a bot and records the CPU time of each of its moves."""

    def __init__(self, name: str, rng: random.Random, config: BotConfig) -> None:
        self.bot = new_bot(name, rng, config)
        self.name = name
        self.all_ms: list[float] = []
        self.decision_ms: list[float] = []
        self.decision_wall_ms: list[float] = []

    def choose(self, view: SeatView) -> str:
        wall = time.perf_counter_ns()
        started = time.thread_time_ns()
        move = self.bot.choose(view)
        elapsed = (time.thread_time_ns() - started) / 1e6
        self.all_ms.append(elapsed)
        if len(view["legal_moves"]) > 1:
            self.decision_ms.append(elapsed)
            self.decision_wall_ms.append((time.perf_counter_ns() - wall) / 1e6)
        return move


@dataclass
class Tally:
    """Hands seen from side A's point of view, and each bot's move times."""

    hands: int = 0
    won: int = 0
    lost: int = 0
    tied: int = 0
    margins: list[float] = field(default_factory=list)
    a_points: list[float] = field(default_factory=list)
    ms: dict[str, list[float]] = field(default_factory=dict)
    decision_ms: dict[str, list[float]] = field(default_factory=dict)
    decision_wall_ms: dict[str, list[float]] = field(default_factory=dict)

    def merge(self, other: Tally) -> None:
        self.hands += other.hands
        self.won += other.won
        self.lost += other.lost
        self.tied += other.tied
        self.margins += other.margins
        self.a_points += other.a_points
        for name, values in other.ms.items():
            self.ms.setdefault(name, []).extend(values)
        for name, values in other.decision_ms.items():
            self.decision_ms.setdefault(name, []).extend(values)
        for name, values in other.decision_wall_ms.items():
            self.decision_wall_ms.setdefault(name, []).extend(values)


def play_deal(
    preset: str,
    bot_a: str,
    bot_b: str,
    seed: str,
    config: BotConfig = BotConfig(),
) -> Tally:
    """One deal seed played twice: A on side 0, then A on side 1."""
    rules = rules_for(preset)
    seats = 4 if rules.team_game else 2
    tally = Tally()
    for a_side in (0, 1):
        names = [bot_a if seat % 2 == a_side else bot_b for seat in range(seats)]
        bots = [
            TimedBot(name, random.Random(f"{seed}/bots/{a_side}/{seat}"), config)
            for seat, name in enumerate(names)
        ]
        match = play_match(rules, bots, seed)
        result = match.result
        assert result is not None
        for hand in result.hands:
            tally.hands += 1
            if hand.winner is None:
                tally.tied += 1
            elif hand.winner == a_side:
                tally.won += 1
            else:
                tally.lost += 1
            mine = hand.points[a_side]
            tally.a_points.append(float(mine))
            tally.margins.append(float(mine - hand.points[1 - a_side]))
        for bot in bots:
            tally.ms.setdefault(bot.name, []).extend(bot.all_ms)
            tally.decision_ms.setdefault(bot.name, []).extend(bot.decision_ms)
            tally.decision_wall_ms.setdefault(bot.name, []).extend(bot.decision_wall_ms)
    return tally


Chunk = tuple[str, str, str, list[str], BotConfig]


def _play_chunk(args: Chunk) -> Tally:
    preset, bot_a, bot_b, seeds, config = args
    tally = Tally()
    for seed in seeds:
        tally.merge(play_deal(preset, bot_a, bot_b, seed, config))
    return tally


def wilson(successes: int, n: int) -> list[float]:
    """95% Wilson interval of a proportion."""
    if n == 0:
        return [0.0, 1.0]
    p = successes / n
    centre = (p + Z95 * Z95 / (2 * n)) / (1 + Z95 * Z95 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + Z95 * Z95 / (4 * n * n)) / (1 + Z95 * Z95 / n)
    return [max(0.0, centre - half), min(1.0, centre + half)]


def mean_ci(values: list[float]) -> tuple[float, list[float]]:
    """Mean and its 95% normal-approximation interval."""
    mean = statistics.fmean(values)
    half = Z95 * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else 0.0
    return mean, [mean - half, mean + half]


def run_pairing(
    preset: str,
    bot_a: str,
    bot_b: str,
    min_hands: int,
    seed: str,
    workers: int,
    config: BotConfig = BotConfig(),
) -> dict[str, object]:
    """Play deal pairs until at least ``min_hands`` hands; figures from side A's view."""
    tally = Tally()
    started = time.perf_counter()
    next_deal = 0
    with ProcessPoolExecutor(max_workers=workers) if workers > 1 else _Inline() as pool:
        while tally.hands < min_hands:
            # Estimate the deals still needed from the hands per deal so far.
            per_deal = tally.hands / next_deal if next_deal else 0.0
            need = math.ceil((min_hands - tally.hands) / per_deal) if per_deal else workers
            # Small batches, so progress shows; one deal at a time in this process (a slow
            # pairing otherwise prints nothing for an hour on a busy machine).
            batch = 1 if workers == 1 else max(workers, min(need, 8 * workers))
            seeds = [
                f"{seed}/{preset}/{bot_a}-{bot_b}/{i}" for i in range(next_deal, next_deal + batch)
            ]
            next_deal += batch
            chunks = [(preset, bot_a, bot_b, seeds[w::workers], config) for w in range(workers)]
            for part in pool.map(_play_chunk, chunks):
                tally.merge(part)
            print(_progress(preset, bot_a, bot_b, tally, started), file=sys.stderr, flush=True)
    elapsed = time.perf_counter() - started
    margin, margin_ci = mean_ci(tally.margins)
    a_points, a_points_ci = mean_ci(tally.a_points)
    return {
        "preset": preset,
        "side_a": bot_a,
        "side_b": bot_b,
        "deals": next_deal,
        "hands": tally.hands,
        "hands_won": tally.won,
        "hands_lost": tally.lost,
        "hands_tied": tally.tied,
        "hand_win_rate": tally.won / tally.hands,
        "hand_win_rate_ci95": wilson(tally.won, tally.hands),
        "points_per_hand": margin,
        "points_per_hand_ci95": margin_ci,
        "side_a_points_per_hand": a_points,
        "side_a_points_per_hand_ci95": a_points_ci,
        "median_ms_per_move": {name: statistics.median(v) for name, v in tally.ms.items()},
        "median_ms_per_decision": {
            name: statistics.median(v) if v else 0.0 for name, v in tally.decision_ms.items()
        },
        "median_wall_ms_per_decision": {
            name: statistics.median(v) if v else 0.0 for name, v in tally.decision_wall_ms.items()
        },
        "p90_ms_per_decision": {
            name: sorted(v)[int(0.9 * len(v))] if v else 0.0
            for name, v in tally.decision_ms.items()
        },
        "moves": {name: len(v) for name, v in tally.ms.items()},
        "seconds": elapsed,
        "_ms": tally.ms,
        "_decision_ms": tally.decision_ms,
    }


def _progress(preset: str, bot_a: str, bot_b: str, tally: Tally, started: float) -> str:
    """A line of partial figures (a long run stopped early still reports what it measured)."""
    margin, margin_ci = mean_ci(tally.margins)
    ms = tally.decision_ms.get(bot_a, [])
    median = f"{statistics.median(ms):.1f}" if ms else "-"
    return (
        f"{preset} {bot_a}-{bot_b}: {tally.hands} hands, won {tally.won} "
        f"({tally.won / tally.hands:.3f} {_pct(wilson(tally.won, tally.hands))}), tied "
        f"{tally.tied}, {margin:+.2f} pts/hand {_interval(margin_ci)}, {bot_a} median "
        f"{median} ms/decision, {time.perf_counter() - started:.0f} s"
    )


class _Inline:
    """A stand-in for a process pool that runs chunks in this process."""

    def __enter__(self) -> _Inline:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def map(self, fn: object, items: list[Chunk]) -> list[Tally]:
        return [_play_chunk(item) for item in items]


PAIRINGS = {
    "expert-hard": ("expert_vs_hard_doscientos", "doscientos", "expert", "hard"),
    "expert-hard-draw": ("expert_vs_hard_draw", "draw", "expert", "hard"),
    "hard-easy": ("hard_vs_easy_doscientos", "doscientos", "hard", "easy"),
    "expert-dominoes": ("expert_vs_dominoes_doscientos", "doscientos", "expert", "dominoes"),
}
# Output keys of each pairing's headline figures.
HEADLINES = {
    "expert_vs_hard_doscientos": "expert_vs_hard",
    "expert_vs_hard_draw": "expert_vs_hard_draw",
    "hard_vs_easy_doscientos": "hard_vs_easy",
    "expert_vs_dominoes_doscientos": "expert_vs_dominoes",
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--quick", action="store_true", help="a smoke run of a few seconds")
    parser.add_argument("--hands", type=int, default=2000, help="minimum hands per pairing")
    parser.add_argument("--seed", default="bench-bots", help="deal seed prefix")
    parser.add_argument(
        "--fresh-seed",
        action="store_true",
        help="a deal seed prefix nobody has used: derived from the current time and printed "
        "(acceptance runs; --seed is ignored)",
    )
    parser.add_argument("--workers", type=int, default=1, help="processes (default 1)")
    parser.add_argument(
        "--pairings",
        default=",".join(PAIRINGS),
        help=f"comma-separated, from {','.join(PAIRINGS)} (default: all)",
    )
    parser.add_argument(
        "--dominoes-hands",
        type=int,
        default=400,
        help="minimum hands against the dominoes package (its search is slow; default 400)",
    )
    parser.add_argument(
        "--dominoes-start",
        type=int,
        default=DOMINOES_START,
        help=f"moves of the hand before its player searches (default {DOMINOES_START})",
    )
    parser.add_argument(
        "--dominoes-samples",
        type=int,
        default=DOMINOES_SAMPLES,
        help=f"deals it searches per decision (default {DOMINOES_SAMPLES})",
    )
    parser.add_argument(
        "--expert",
        default="{}",
        help='ExpertSettings fields to override, as JSON (e.g. \'{"playout": "heavy"}\')',
    )
    args = parser.parse_args()
    try:
        expert = json.loads(args.expert)
        ExpertSettings(**expert)
    except (ValueError, TypeError) as error:
        parser.error(f"--expert: {error}")
    if args.fresh_seed:
        args.seed = fresh_seed()
        print(f"fresh seed: {args.seed}", file=sys.stderr, flush=True)
    chosen = [name.strip() for name in args.pairings.split(",") if name.strip()]
    unknown = [name for name in chosen if name not in PAIRINGS]
    if unknown or not chosen:
        parser.error(
            f"unknown pairing {unknown[0] if unknown else ''!r}; pairings: {list(PAIRINGS)}"
        )
    workers = max(1, args.workers)
    # A smoke run lets the package's player search only the ends of hands.
    dominoes = (10, 2) if args.quick else (args.dominoes_start, args.dominoes_samples)
    config = BotConfig(*dominoes, expert=tuple(sorted(expert.items())))
    quick_hands = {"expert-hard": 8, "expert-hard-draw": 16, "hard-easy": 100, "expert-dominoes": 4}
    started = time.perf_counter()
    out: dict[str, object] = {}
    pairings: dict[str, dict[str, object]] = {}
    decision_ms: list[float] = []
    all_ms: list[float] = []
    for name in chosen:
        key, preset, bot_a, bot_b = PAIRINGS[name]
        if args.quick:
            hands = quick_hands[name]
        else:
            hands = args.dominoes_hands if bot_b == "dominoes" else args.hands
        pairing = run_pairing(preset, bot_a, bot_b, hands, args.seed, workers, config)
        ms = pairing.pop("_ms")
        decisions = pairing.pop("_decision_ms")
        if bot_a == "expert" and bot_b == "hard":
            # The headline expert speed pools its real decisions (two or more legal moves) over
            # the pairings against hard: forced draws and passes take microseconds and would
            # hide the search time.
            all_ms += ms["expert"]  # type: ignore[index]
            decision_ms += decisions["expert"]  # type: ignore[index]
        headline = HEADLINES[key]
        for figure in ("hand_win_rate", "points_per_hand"):
            out[f"{headline}_{figure}"] = pairing[figure]
            out[f"{headline}_{figure}_ci95"] = pairing[f"{figure}_ci95"]
        if bot_b == "dominoes":
            out["expert_vs_dominoes_median_ms_per_decision"] = pairing["median_ms_per_decision"]
            out["dominoes_player"] = {
                "start_move": config.dominoes_start,
                "samples": config.dominoes_samples,
            }
        pairings[key] = pairing
    if decision_ms:
        out["expert_median_ms_per_move"] = statistics.median(decision_ms)
        out["expert_median_ms_per_move_incl_forced"] = statistics.median(all_ms)
        out["expert_p90_ms_per_move"] = sorted(decision_ms)[int(0.9 * len(decision_ms))]
    if "expert_vs_hard_doscientos" in pairings:
        out["hard_median_ms_per_move"] = pairings["expert_vs_hard_doscientos"][
            "median_ms_per_move"
        ]["hard"]  # type: ignore[index]
    out.update(
        {
            "pairings": pairings,
            "seed": args.seed,
            "expert_settings": expert,  # overrides of ExpertSettings' defaults (--expert)
            "quick": args.quick,
            "workers": workers,
            "python": platform.python_version(),
            "seconds": time.perf_counter() - started,
        }
    )
    if args.json:
        print(json.dumps(out))
        return
    print(f"seed: {args.seed}")
    for name, pairing in pairings.items():
        print(
            f"{name}: {pairing['hands']} hands, {pairing['side_a']} wins "
            f"{pairing['hand_win_rate']:.1%} {_pct(pairing['hand_win_rate_ci95'])} "  # type: ignore[arg-type]
            f"(tied {pairing['hands_tied']}), {pairing['points_per_hand']:+.2f} pts/hand "
            f"{_interval(pairing['points_per_hand_ci95'])}, "  # type: ignore[arg-type]
            f"median ms/decision {_ms(pairing['median_ms_per_decision'])} "  # type: ignore[arg-type]
            f"(wall {_ms(pairing['median_wall_ms_per_decision'])}), "  # type: ignore[arg-type]
            f"{pairing['seconds']:.0f} s"
        )
    if decision_ms:
        print(
            f"expert median ms per decision: {out['expert_median_ms_per_move']:.2f} "
            f"(p90 {out['expert_p90_ms_per_move']:.2f})"
        )


def fresh_seed() -> str:
    """A seed prefix from the current time (UTC, to the microsecond): it cannot appear in the
    repository's history before the run, so no setting was tuned on its deals."""
    now = time.time_ns()
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime(now // 1_000_000_000))
    return f"fresh-{stamp}.{now // 1000 % 1_000_000:06d}Z"


def _ms(by_bot: dict[str, float]) -> str:
    return "{" + ", ".join(f"{name}: {value:.2f}" for name, value in by_bot.items()) + "}"


def _interval(interval: list[float]) -> str:
    return f"[{interval[0]:+.2f}, {interval[1]:+.2f}]"


def _pct(interval: list[float]) -> str:
    return f"[{interval[0]:.1%}, {interval[1]:.1%}]"


if __name__ == "__main__":
    main()
