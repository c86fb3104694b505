"""Bot strength and speed: the expert against the hard bot, and hard against easy as a baseline.

Pairings (each one plays every deal twice, with the sides swapped, so neither bot keeps a seat
or a deal advantage):

- ``expert`` vs ``hard`` as teams on ``doscientos``;
- ``expert`` vs ``hard`` on ``draw`` (two players, one hand per game);
- ``hard`` vs ``easy`` as teams on ``doscientos`` (the baseline gap between heuristics).

Per-hand accounting comes from the engine's match results (``MatchResult.hands``: each hand's
winning side and the points each side earned in it). A hand counts as won only if the side won
it; tied hands are reported separately. Points per hand are the side's points minus the
opponents' points in that hand. Intervals are 95%: Wilson for rates, normal for means.

Speed is the time per ``choose`` call, measured as CPU time of the thread (other processes on
the machine do not inflate it). ``expert_median_ms_per_move`` is the median over the expert's
real decisions (two or more legal moves) in both expert pairings; the median over every call,
forced draws and passes included, is ``expert_median_ms_per_move_incl_forced``.

    uv run python scripts/bench_bots.py [--json] [--quick] [--hands N] [--workers W]

Targets (issue 2): expert team wins >= 60% of doscientos hands against hard, at >= +10 points
per hand; expert median <= 50 ms per move on one core.
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

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from backend.game import SeatView, make_bot, play_match, rules_for

Z95 = 1.959963984540054


class TimedBot:
    """Wraps a bot and records the CPU time of each of its moves."""

    def __init__(self, name: str, rng: random.Random) -> None:
        self.bot = make_bot(name, rng)
        self.name = name
        self.all_ms: list[float] = []
        self.decision_ms: list[float] = []

    def choose(self, view: SeatView) -> str:
        started = time.thread_time_ns()
        move = self.bot.choose(view)
        elapsed = (time.thread_time_ns() - started) / 1e6
        self.all_ms.append(elapsed)
        if len(view["legal_moves"]) > 1:
            self.decision_ms.append(elapsed)
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


def play_deal(preset: str, bot_a: str, bot_b: str, seed: str) -> Tally:
    """One deal seed played twice: A on side 0, then A on side 1."""
    rules = rules_for(preset)
    seats = 4 if rules.team_game else 2
    tally = Tally()
    for a_side in (0, 1):
        names = [bot_a if seat % 2 == a_side else bot_b for seat in range(seats)]
        bots = [
            TimedBot(name, random.Random(f"{seed}/bots/{a_side}/{seat}"))
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
    return tally


def _play_chunk(args: tuple[str, str, str, list[str]]) -> Tally:
    preset, bot_a, bot_b, seeds = args
    tally = Tally()
    for seed in seeds:
        tally.merge(play_deal(preset, bot_a, bot_b, seed))
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
    preset: str, bot_a: str, bot_b: str, min_hands: int, seed: str, workers: int
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
            batch = max(workers, min(need, 8 * workers))  # small batches: progress shows
            seeds = [
                f"{seed}/{preset}/{bot_a}-{bot_b}/{i}" for i in range(next_deal, next_deal + batch)
            ]
            next_deal += batch
            chunks = [(preset, bot_a, bot_b, seeds[w::workers]) for w in range(workers)]
            for part in pool.map(_play_chunk, chunks):
                tally.merge(part)
            print(
                f"{preset} {bot_a}-{bot_b}: {tally.hands} hands, won {tally.won}, tied "
                f"{tally.tied}, {statistics.fmean(tally.margins):+.2f} pts/hand, "
                f"{time.perf_counter() - started:.0f} s",
                file=sys.stderr,
                flush=True,
            )
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
        "p90_ms_per_decision": {
            name: sorted(v)[int(0.9 * len(v))] if v else 0.0
            for name, v in tally.decision_ms.items()
        },
        "moves": {name: len(v) for name, v in tally.ms.items()},
        "seconds": elapsed,
        "_ms": tally.ms,
        "_decision_ms": tally.decision_ms,
    }


class _Inline:
    """A stand-in for a process pool that runs chunks in this process."""

    def __enter__(self) -> _Inline:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def map(self, fn: object, items: list[tuple[str, str, str, list[str]]]) -> list[Tally]:
        return [_play_chunk(item) for item in items]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--quick", action="store_true", help="a smoke run of a few seconds")
    parser.add_argument("--hands", type=int, default=2000, help="minimum hands per pairing")
    parser.add_argument("--seed", default="bench-bots", help="deal seed prefix")
    parser.add_argument("--workers", type=int, default=1, help="processes (default 1)")
    args = parser.parse_args()
    hands = (8, 16, 100) if args.quick else (args.hands, args.hands, args.hands)
    workers = max(1, args.workers)
    started = time.perf_counter()
    doscientos = run_pairing("doscientos", "expert", "hard", hands[0], args.seed, workers)
    draw = run_pairing("draw", "expert", "hard", hands[1], args.seed, workers)
    baseline = run_pairing("doscientos", "hard", "easy", hands[2], args.seed, workers)

    # Every expert move of both expert pairings, pooled. The headline figure counts only real
    # decisions (two or more legal moves): forced draws and passes take microseconds and would
    # hide the search time.
    all_ms = doscientos.pop("_ms")["expert"] + draw.pop("_ms")["expert"]  # type: ignore[index]
    decision_ms = doscientos.pop("_decision_ms")["expert"] + draw.pop("_decision_ms")["expert"]  # type: ignore[index]
    baseline.pop("_ms")
    baseline.pop("_decision_ms")
    expert_median = statistics.median(decision_ms)
    out = {
        "expert_vs_hard_hand_win_rate": doscientos["hand_win_rate"],
        "expert_vs_hard_hand_win_rate_ci95": doscientos["hand_win_rate_ci95"],
        "expert_vs_hard_points_per_hand": doscientos["points_per_hand"],
        "expert_vs_hard_points_per_hand_ci95": doscientos["points_per_hand_ci95"],
        "expert_vs_hard_draw_hand_win_rate": draw["hand_win_rate"],
        "expert_vs_hard_draw_hand_win_rate_ci95": draw["hand_win_rate_ci95"],
        "expert_vs_hard_draw_points_per_hand": draw["points_per_hand"],
        "expert_vs_hard_draw_points_per_hand_ci95": draw["points_per_hand_ci95"],
        "hard_vs_easy_hand_win_rate": baseline["hand_win_rate"],
        "hard_vs_easy_hand_win_rate_ci95": baseline["hand_win_rate_ci95"],
        "hard_vs_easy_points_per_hand": baseline["points_per_hand"],
        "hard_vs_easy_points_per_hand_ci95": baseline["points_per_hand_ci95"],
        "expert_median_ms_per_move": expert_median,
        "expert_median_ms_per_move_incl_forced": statistics.median(all_ms),
        "expert_p90_ms_per_move": sorted(decision_ms)[int(0.9 * len(decision_ms))],
        "hard_median_ms_per_move": doscientos["median_ms_per_move"]["hard"],  # type: ignore[index]
        "pairings": {
            "expert_vs_hard_doscientos": doscientos,
            "expert_vs_hard_draw": draw,
            "hard_vs_easy_doscientos": baseline,
        },
        "quick": args.quick,
        "workers": workers,
        "python": platform.python_version(),
        "seconds": time.perf_counter() - started,
    }
    if args.json:
        print(json.dumps(out))
        return
    for name, pairing in out["pairings"].items():  # type: ignore[attr-defined]
        print(
            f"{name}: {pairing['hands']} hands, {pairing['side_a']} wins "
            f"{pairing['hand_win_rate']:.1%} {_pct(pairing['hand_win_rate_ci95'])} "
            f"(tied {pairing['hands_tied']}), {pairing['points_per_hand']:+.2f} pts/hand "
            f"{_interval(pairing['points_per_hand_ci95'])}, "
            f"median ms/move {pairing['median_ms_per_move']}, {pairing['seconds']:.0f} s"
        )
    print(
        f"expert median ms per move: {expert_median:.2f} "
        f"(hard: {out['hard_median_ms_per_move']:.3f})"
    )


def _interval(interval: list[float]) -> str:
    return f"[{interval[0]:+.2f}, {interval[1]:+.2f}]"


def _pct(interval: list[float]) -> str:
    return f"[{interval[0]:.1%}, {interval[1]:.1%}]"


if __name__ == "__main__":
    main()
