"""Engine speed: random-legal-play hands per second on one core, against the `dominoes` package.

Plays whole matches with uniformly random legal moves through the engine's public API
(``legal_moves`` once, then the moves each ``apply`` returns; deals from server seeds) and counts
hands. The baseline in the same run is PyPI ``dominoes`` 6.1.0 (a four-player partnership block
game): ``Game.new`` with 6:6 leading, then random valid moves until a result, one game being one
hand. Both sides pick each move with ``random.Random.choice`` from the legal ones.

    uv run python scripts/bench_engine.py [--json] [--quick]

Targets (issue 2): ratio (doscientos / baseline) >= 4; dew200 >= 10,000 hands/s.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from backend.game import rules_for, start_match


def engine_runner(preset: str, seats: int) -> Callable[[float, int], float]:
    """Hands per second for random legal play of ``preset`` during about ``seconds``."""
    rules = rules_for(preset)

    def run(seconds: float, salt: int) -> float:
        rng = random.Random(salt)
        choice = rng.choice
        hands = 0
        game = 0
        started = time.perf_counter()
        deadline = started + seconds
        while time.perf_counter() < deadline:
            match = start_match(rules, seats, f"bench/{salt}/{game}")
            game += 1
            apply, moves = match.apply, match.legal_moves()
            while moves:  # apply returns the moves legal next: none once the match is over
                moves = apply(choice(moves))
            hands += len(match.log)
        return hands / (time.perf_counter() - started)

    return run


def baseline_runner() -> Callable[[float, int], float]:
    """Hands per second of the `dominoes` package, one game = one hand."""
    import dominoes

    double_six = dominoes.Domino(6, 6)

    def run(seconds: float, salt: int) -> float:
        rng = random.Random(salt)
        choice = rng.choice
        hands = 0
        started = time.perf_counter()
        deadline = started + seconds
        while time.perf_counter() < deadline:
            game = dominoes.Game.new(starting_domino=double_six)
            while game.result is None:
                game.make_move(*choice(game.valid_moves))
            hands += 1
        return hands / (time.perf_counter() - started)

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--quick", action="store_true", help="smoke run (a few seconds)")
    parser.add_argument("--rounds", type=int, default=9, help="interleaved rounds (median taken)")
    parser.add_argument("--seconds", type=float, default=0.6, help="seconds per measurement")
    args = parser.parse_args()
    rounds, seconds = (1, 0.4) if args.quick else (args.rounds, args.seconds)

    runners = {
        "doscientos_hands_per_s": engine_runner("doscientos", 4),
        "dew200_hands_per_s": engine_runner("dew200", 2),
        "baseline_hands_per_s": baseline_runner(),
    }
    for run in runners.values():  # warm up imports, tables and caches
        run(0.05, 0)
    samples: dict[str, list[float]] = {name: [] for name in runners}
    started = time.perf_counter()
    for round_number in range(rounds):  # interleave so load changes hit every figure alike
        for name, run in runners.items():
            samples[name].append(run(seconds, round_number + 1))
    figures = {name: round(statistics.median(values)) for name, values in samples.items()}
    # The ratio pairs each round's doscientos run with the baseline run right after it, so load
    # from other processes (this machine is shared) hits both sides of every pair alike.
    ratio = statistics.median(
        ours / base
        for ours, base in zip(
            samples["doscientos_hands_per_s"], samples["baseline_hands_per_s"], strict=True
        )
    )
    result = {
        **figures,
        "ratio": round(ratio, 2),
        "targets": {"ratio": 4.0, "dew200_hands_per_s": 10_000},
        "meets_targets": ratio >= 4.0 and figures["dew200_hands_per_s"] >= 10_000,
        "samples": {name: [round(v) for v in values] for name, values in samples.items()},
        "rounds": rounds,
        "seconds_per_measurement": seconds,
        "quick": args.quick,
        "python": platform.python_version(),
        "elapsed_s": round(time.perf_counter() - started, 2),
    }
    if args.json:
        print(json.dumps(result))
        return
    print(f"doscientos (4 players): {figures['doscientos_hands_per_s']:>8,} hands/s")
    print(f"dew200 (2 players):     {figures['dew200_hands_per_s']:>8,} hands/s  (target 10,000)")
    print(f"baseline dominoes 6.1:  {figures['baseline_hands_per_s']:>8,} hands/s")
    print(f"ratio doscientos/baseline: {ratio:.2f}  (target 4)")


if __name__ == "__main__":
    main()
