"""The command line shared by the benchmarks that return one dict of figures."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence
from typing import Any


def bench_main(
    description: str,
    quick_help: str,
    run: Callable[[bool], dict[str, Any]],
    argv: Sequence[str] | None = None,
    out: Callable[[str], None] = print,
) -> int:
    """Parse ``--json`` and ``--quick``, run, and print the figures (one JSON object, or one
    aligned ``name  value`` line each)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--quick", action="store_true", help=quick_help)
    args = parser.parse_args(argv)
    figures = run(args.quick)
    if args.json:
        out(json.dumps(figures, sort_keys=True))
    else:
        width = max(len(k) for k in figures)
        for key, value in figures.items():
            out(f"{key:<{width}}  {value}")
    return 0
