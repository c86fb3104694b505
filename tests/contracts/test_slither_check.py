"""scripts/slither_check.py: real slither, offline through forge and solc-js, on a tiny Foundry
project: a finding not in the triage file fails, a triaged one with a reason passes."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from backend.chain.contracts import ARTIFACTS_DIR, REPO_ROOT

CONTRACTS_DIR = ARTIFACTS_DIR.parent
SCRIPT = REPO_ROOT / "scripts" / "slither_check.py"

CLOCK = """// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

contract Clock {
    uint256 public deadline;

    function setDeadline(uint256 d) external {
        deadline = d;
    }

    function isLate() external view returns (bool) {
        return block.timestamp > deadline;
    }
%s}
"""
SECOND = """
    function isEarly() external view returns (bool) {
        return block.timestamp < deadline;
    }
"""


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("slither_check", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["slither_check"] = module
    spec.loader.exec_module(module)
    return module


sc = _load()


def _project(root: Path, extra: str = "") -> Path:
    (root / "src").mkdir(parents=True, exist_ok=True)
    (root / "foundry.toml").write_text(
        "[profile.default]\n"
        'src = "src"\n'
        f'solc = "{CONTRACTS_DIR / "tools" / "solc"}"\n'
        "offline = true\n"
        "auto_detect_solc = false\n"
    )
    (root / "src" / "Clock.sol").write_text(CLOCK % extra)
    return root


def _check(project: Path, *flags: str) -> tuple[int, str]:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--project", str(project), *flags],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    return done.returncode, done.stdout + done.stderr


@pytest.mark.timeout(900)
def test_a_new_finding_fails_and_a_triaged_one_passes(tmp_path: Path) -> None:
    assert (CONTRACTS_DIR / "node_modules" / ".bin" / "forge").exists(), "npm ci in contracts/"
    project = _project(tmp_path / "clock")
    triage = project / "slither-triage.toml"

    code, out = _check(project)
    assert code == 1, out
    assert "new finding, not in the triage file: timestamp:Clock.isLate()" in out

    code, out = _check(project, "--update")
    assert code == 0, out
    assert "new (write its reason): timestamp:Clock.isLate()" in out
    code, out = _check(project)  # written, but not reviewed yet
    assert code == 1 and "triaged without a reason (TODO): timestamp:Clock.isLate()" in out

    entries, excluded = sc.load_triage(triage)
    entries["timestamp:Clock.isLate()"].reason = "A deadline is a time by design."
    sc.write_triage(triage, list(entries.values()), excluded)
    code, out = _check(project)
    assert code == 0, out
    assert "slither check OK: 1 findings" in out

    # A second time comparison is a new finding; the reviewed one still passes.
    _project(project, SECOND)
    code, out = _check(project)
    assert code == 1, out
    assert "timestamp:Clock.isEarly()" in out and "timestamp:Clock.isLate()" not in out
    # --update keeps the written reason and adds the new one as TODO.
    assert _check(project, "--update")[0] == 0
    entries, _ = sc.load_triage(triage)
    assert entries["timestamp:Clock.isLate()"].reason == "A deadline is a time by design."
    assert entries["timestamp:Clock.isEarly()"].reason == sc.TODO


def _finding(finding_id: str, description: str = "d") -> Any:
    check = finding_id.split(":")[0]
    return sc.Finding(
        id=finding_id, check=check, impact="Low", confidence="Medium", description=description
    )


def _entry(finding_id: str, count: int = 1, reason: str = "reviewed") -> Any:
    check = finding_id.split(":")[0]
    return sc.Entry(
        id=finding_id, check=check, impact="Low", count=count, reason=reason, example=""
    )


def test_more_findings_under_one_id_than_reviewed_is_new() -> None:
    findings = [_finding("timestamp:A.f()", "one"), _finding("timestamp:A.f()", "two")]
    verdict = sc.compare(findings, {"timestamp:A.f()": _entry("timestamp:A.f()")})
    assert not verdict.ok and len(verdict.new) == 1 and "2 found, 1 reviewed" in verdict.new[0]
    verdict = sc.compare(findings, {"timestamp:A.f()": _entry("timestamp:A.f()", count=2)})
    assert verdict.ok


def test_an_entry_whose_finding_is_gone_fails_as_stale() -> None:
    verdict = sc.compare([], {"timestamp:A.f()": _entry("timestamp:A.f()")})
    assert not verdict.ok and verdict.stale == ["timestamp:A.f() (1 reviewed, 0 found)"]


def test_triage_file_round_trips_and_refuses_bad_entries(tmp_path: Path) -> None:
    path = tmp_path / "triage.toml"
    entries = [_entry("timestamp:A.f()", reason='quotes " and \\ and\nnewlines')]
    sc.write_triage(path, entries, {"assembly": "reviewed by hand"})
    loaded, excluded = sc.load_triage(path)
    assert list(loaded.values()) == entries and excluded == {"assembly": "reviewed by hand"}
    path.write_text('[[finding]]\nid = "x:y"\ncheck = "x"\n')
    with pytest.raises(sc.SlitherCheckError, match="lacks"):
        sc.load_triage(path)
    path.write_text('[[excluded_detector]]\ncheck = "assembly"\nreason = " "\n')
    with pytest.raises(sc.SlitherCheckError, match="needs check and reason"):
        sc.load_triage(path)


def test_the_committed_triage_file_has_a_reason_for_every_entry() -> None:
    entries, excluded = sc.load_triage(CONTRACTS_DIR / "slither-triage.toml")
    assert entries
    for entry in entries.values():
        assert entry.reason and not entry.reason.startswith("TODO"), entry.id
        assert len(entry.reason) > 40, entry.id
    assert all(len(reason) > 40 for reason in excluded.values())
