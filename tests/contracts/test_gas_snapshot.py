"""`npm test`'s gas snapshot does not depend on the machine's core count.

Fuzz and invariant figures (mean gas, revert counts) change with forge's thread count and
with which tests run together, so they are kept out of `.gas-snapshot`; `npm test` runs
them separately with a pinned thread count. The unit tests' snapshot must come out the
same with one thread as with two.
"""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path

import pytest

from backend.chain.contracts import ARTIFACTS_DIR

CONTRACTS_DIR = ARTIFACTS_DIR.parent
FORGE = CONTRACTS_DIR / "node_modules" / ".bin" / "forge"


def _scripts() -> dict[str, str]:
    scripts: dict[str, str] = json.loads((CONTRACTS_DIR / "package.json").read_text())["scripts"]
    return scripts


def _snapshot_filter() -> list[str]:
    """The test filter of `npm run snapshot` (everything after `forge snapshot`)."""
    words = shlex.split(_scripts()["snapshot"])
    assert words[:2] == ["forge", "snapshot"], words
    return words[2:]


def test_snapshot_and_check_leave_out_the_same_fuzz_and_invariant_tests() -> None:
    flags = _snapshot_filter()
    assert flags[0] == "--no-match-test" and "testFuzz" in flags[1] and "invariant" in flags[1]
    check = shlex.split(_scripts()["test"].split("&&")[0])
    assert check == ["forge", "snapshot", "--check", *flags]
    # ...and the fuzz and invariant tests still run, with a pinned thread count.
    fuzz = shlex.split(_scripts()["test"].split("&&")[1])
    assert fuzz[:2] == ["forge", "test"] and "--threads" in fuzz and "--match-test" in fuzz
    entries = (CONTRACTS_DIR / ".gas-snapshot").read_text().splitlines()
    assert entries, "empty .gas-snapshot"
    assert not [e for e in entries if "(runs:" in e or ":testFuzz_" in e or ":invariant_" in e]


@pytest.mark.timeout(600)
def test_one_thread_and_two_threads_give_the_committed_snapshot(tmp_path: Path) -> None:
    assert FORGE.exists(), "run `npm ci` in contracts/ first"
    snapshots = {}
    for threads in (1, 2):
        out = tmp_path / f"snapshot-{threads}"
        command = [str(FORGE), "snapshot", *_snapshot_filter(), "--threads", str(threads)]
        done = subprocess.run(
            [*command, "--snap", str(out)],
            cwd=CONTRACTS_DIR,
            capture_output=True,
            text=True,
            timeout=540,
            check=False,
        )
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        snapshots[threads] = out.read_text()
    assert snapshots[1] == snapshots[2]
    assert snapshots[1] == (CONTRACTS_DIR / ".gas-snapshot").read_text()
