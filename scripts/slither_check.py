"""Static analysis of contracts/src with slither, against a reviewed triage file.

    uv run python scripts/slither_check.py [--update] [--project DIR] [--triage FILE]
                                           [--slither-json FILE]

Offline, through the Foundry route: ``forge build src --build-info`` (forge uses the npm
solc-js behind ``tools/solc``) into a fresh temporary directory, then ``slither
--ignore-compile`` on that build, so slither never compiles and never downloads a compiler.

Every finding has a stable id, ``<detector>:<Contract.function(signature)>`` (the finding's
first element, without line numbers, so moving code does not change it). The triage file
(``contracts/slither-triage.toml``) lists each accepted id with how many findings share it
and a written reason. The check fails when a finding is not triaged (or more findings share
an id than were reviewed), when an entry has no reason yet (``TODO``), and when an entry's
finding is gone (a stale entry could hide its return). ``--update`` rewrites the file from
the current findings: reasons of ids still found are kept, new ids get a ``TODO`` reason
to replace after review, and gone ones are dropped. Detectors excluded as a whole are listed
in the file too, each with its reason.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import tomllib
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
CONTRACTS_DIR = REPO_ROOT / "contracts"
TODO = "TODO: review this finding and write why it is accepted (or fix the code)"
HEADER = """\
# Reviewed slither findings for contracts/src: `uv run python scripts/slither_check.py`
# (part of `make test`) fails on any finding not listed here, on a TODO reason, and on an
# entry whose finding is gone. After changing contracts: run it with --update, review each
# new entry and replace its TODO with the reason the finding is accepted (or fix the code).
# id = <detector>:<first element of the finding>; count = findings that share the id.
"""


class SlitherCheckError(RuntimeError):
    """slither or forge could not run, or their output was not what this script expects."""


@dataclass(frozen=True)
class Finding:
    id: str
    check: str
    impact: str
    confidence: str
    description: str


@dataclass
class Entry:
    id: str
    check: str
    impact: str
    count: int
    reason: str
    example: str


def _element_name(element: dict[str, Any]) -> str:
    """Contract.function(signature), Contract.function(signature).variable, Contract, ..."""
    fields = element.get("type_specific_fields", {})
    parent = fields.get("parent")
    kind = element["type"]
    if kind == "function":
        own = fields.get("signature", element["name"])
    elif kind == "node":
        own = " ".join(element["name"].split())
    else:
        own = element["name"]
    if parent is None:
        return str(own)
    return f"{_element_name(parent)}.{own}"


def findings_from(report: dict[str, Any]) -> list[Finding]:
    if not report.get("success", False):
        raise SlitherCheckError(f"slither failed: {report.get('error')!r}")
    out = []
    for result in report.get("results", {}).get("detectors", []):
        elements = result.get("elements") or []
        where = _element_name(elements[0]) if elements else "-"
        out.append(
            Finding(
                id=f"{result['check']}:{where}",
                check=result["check"],
                impact=result["impact"],
                confidence=result["confidence"],
                description=" ".join(result["description"].split()),
            )
        )
    return sorted(out, key=lambda f: (f.id, f.description))


def _tools_env(project: Path) -> dict[str, str]:
    # crytic-compile asks `forge config`; forge comes from the project's npm packages.
    bins = [project / "node_modules" / ".bin", CONTRACTS_DIR / "node_modules" / ".bin"]
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([*(str(b) for b in bins if b.is_dir()), env.get("PATH", "")])
    return env


def run_slither(project: Path, exclude: Sequence[str]) -> dict[str, Any]:
    """Build ``project``'s sources afresh with build info, then run slither on that build.

    Always a fresh build: an incremental one leaves older build-info files behind that still
    hold the previous text of changed sources, and slither would read both."""
    env = _tools_env(project)
    with tempfile.TemporaryDirectory(prefix="slither-") as tmp:
        build = Path(tmp)
        forge = [
            *("forge", "build", "src", "--build-info"),
            *("--out", str(build / "out"), "--cache-path", str(build / "cache")),
        ]
        done = subprocess.run(
            forge, cwd=project, env=env, capture_output=True, text=True, check=False
        )
        if done.returncode != 0:
            raise SlitherCheckError(
                f"forge build failed:\n{done.stdout[-4000:]}{done.stderr[-4000:]}"
            )
        report = build / "slither.json"
        command = [
            *(sys.executable, "-m", "slither", "."),
            *("--ignore-compile", "--foundry-out-directory", str(build / "out")),
            *("--filter-paths", "node_modules", "--json", str(report), "--disable-color"),
        ]
        if exclude:
            command += ["--exclude", ",".join(exclude)]
        done = subprocess.run(
            command, cwd=project, env=env, capture_output=True, text=True, check=False
        )
        if not report.exists():
            raise SlitherCheckError(f"slither wrote no report:\n{done.stderr[-4000:]}")
        loaded: dict[str, Any] = json.loads(report.read_text())
        return loaded


def load_triage(path: Path) -> tuple[dict[str, Entry], dict[str, str]]:
    """The triaged findings by id, and the excluded detectors with their reasons."""
    if not path.exists():
        return {}, {}
    data = tomllib.loads(path.read_text())
    entries: dict[str, Entry] = {}
    for raw in data.get("finding", []):
        try:
            entry = Entry(
                id=raw["id"],
                check=raw["check"],
                impact=raw["impact"],
                count=int(raw.get("count", 1)),
                reason=raw["reason"].strip(),
                example=raw.get("example", ""),
            )
        except KeyError as missing:
            raise SlitherCheckError(f"{path}: a [[finding]] lacks {missing}: {raw!r}") from None
        if entry.id in entries:
            raise SlitherCheckError(f"{path}: {entry.id!r} is listed twice")
        entries[entry.id] = entry
    excluded: dict[str, str] = {}
    for raw in data.get("excluded_detector", []):
        if not str(raw.get("reason", "")).strip() or not raw.get("check"):
            raise SlitherCheckError(f"{path}: an excluded detector needs check and reason: {raw!r}")
        excluded[raw["check"]] = raw["reason"].strip()
    return entries, excluded


def _toml(text: str) -> str:
    # A JSON string is a valid TOML basic string (same escapes).
    return json.dumps(text, ensure_ascii=False)


def write_triage(path: Path, entries: Sequence[Entry], excluded: dict[str, str]) -> None:
    lines = [HEADER]
    for check, reason in sorted(excluded.items()):
        lines += ["[[excluded_detector]]", f"check = {_toml(check)}", f"reason = {_toml(reason)}"]
        lines.append("")
    for e in sorted(entries, key=lambda e: e.id):
        lines += [
            "[[finding]]",
            f"id = {_toml(e.id)}",
            f"check = {_toml(e.check)}",
            f"impact = {_toml(e.impact)}",
            f"count = {e.count}",
            f"example = {_toml(e.example)}",
            f"reason = {_toml(e.reason)}",
            "",
        ]
    path.write_text("\n".join(lines))


@dataclass
class Verdict:
    new: list[str]
    todo: list[str]
    stale: list[str]

    @property
    def ok(self) -> bool:
        return not (self.new or self.todo or self.stale)


def compare(findings: Sequence[Finding], entries: dict[str, Entry]) -> Verdict:
    counts = Counter(f.id for f in findings)
    first = {f.id: f for f in reversed(findings)}
    new = []
    for finding_id, n in sorted(counts.items()):
        reviewed = entries[finding_id].count if finding_id in entries else 0
        if n > reviewed:
            f = first[finding_id]
            new.append(
                f"{finding_id} ({f.impact}; {n} found, {reviewed} reviewed): {f.description}"
            )
    todo = [e.id for e in entries.values() if counts[e.id] and e.reason.startswith("TODO")]
    stale = [
        f"{e.id} ({e.count} reviewed, {counts[e.id]} found)"
        for e in entries.values()
        if counts[e.id] < e.count
    ]
    return Verdict(new=new, todo=sorted(todo), stale=sorted(stale))


def update(findings: Sequence[Finding], entries: dict[str, Entry]) -> list[Entry]:
    counts = Counter(f.id for f in findings)
    first = {f.id: f for f in reversed(findings)}
    out = []
    for finding_id, n in sorted(counts.items()):
        f = first[finding_id]
        old = entries.get(finding_id)
        out.append(
            Entry(
                id=finding_id,
                check=f.check,
                impact=f.impact,
                count=n,
                reason=old.reason if old else TODO,
                example=f.description[:300],
            )
        )
    return out


def main(argv: Sequence[str] | None = None, out: Callable[[str], None] = print) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--update", action="store_true", help="rewrite the triage file")
    parser.add_argument("--project", type=Path, default=CONTRACTS_DIR, help="Foundry project")
    parser.add_argument("--triage", type=Path, help="default: <project>/slither-triage.toml")
    parser.add_argument(
        "--slither-json", type=Path, help="read this slither --json report instead of running it"
    )
    args = parser.parse_args(argv)
    triage = args.triage or args.project / "slither-triage.toml"
    try:
        entries, excluded = load_triage(triage)
        if args.slither_json:
            report = json.loads(args.slither_json.read_text())
        else:
            report = run_slither(args.project.resolve(), sorted(excluded))
        findings = findings_from(report)
    except (SlitherCheckError, OSError, ValueError) as error:
        out(f"slither check: {error}")
        return 2
    findings = [f for f in findings if f.check not in excluded]
    if args.update:
        updated = update(findings, entries)
        write_triage(triage, updated, excluded)
        fresh = [e.id for e in updated if e.reason == TODO]
        gone = sorted(set(entries) - {e.id for e in updated})
        out(f"wrote {triage}: {len(updated)} entries, {len(fresh)} new, {len(gone)} dropped")
        for finding_id in fresh:
            out(f"  new (write its reason): {finding_id}")
        for finding_id in gone:
            out(f"  dropped (no longer found): {finding_id}")
        return 0
    verdict = compare(findings, entries)
    for label, items in (
        ("new finding, not in the triage file", verdict.new),
        ("triaged without a reason (TODO)", verdict.todo),
        ("triaged but no longer found (run --update)", verdict.stale),
    ):
        for item in items:
            out(f"{label}: {item}")
    if not verdict.ok:
        out(f"slither check FAILED against {triage} (see scripts/slither_check.py --help)")
        return 1
    out(f"slither check OK: {len(findings)} findings, all triaged in {triage.name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
