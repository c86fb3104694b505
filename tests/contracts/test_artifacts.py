"""The committed ABI/bytecode artifacts are exactly what `forge build` produces from the sources.

The build is forge's own (``contracts/out`` and its cache): forge recompiles every source whose
content, imports or compiler settings changed since the cache was written, so its output is a
fresh compile's. After `make test`'s forge phase it is already up to date and costs a second;
a separate output and cache compiled everything again (50 s of solc-js in every run).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from backend.chain.contracts import ARTIFACTS_DIR, CONTRACT_NAMES, artifact_name, load_artifact

CONTRACTS_DIR = ARTIFACTS_DIR.parent


# A solc-js build of every source and test took 200-300 s on a shared two-core machine.
FRESH_BUILD_TIMEOUT_S = 900


@pytest.fixture(scope="module")
def fresh_out() -> Path:
    forge = CONTRACTS_DIR / "node_modules" / ".bin" / "forge"
    assert forge.exists(), "run `npm ci` in contracts/ first"
    subprocess.run(
        [str(forge), "build"],
        cwd=CONTRACTS_DIR,
        check=True,
        capture_output=True,
        timeout=FRESH_BUILD_TIMEOUT_S,
    )
    return CONTRACTS_DIR / "out"


@pytest.mark.timeout(FRESH_BUILD_TIMEOUT_S + 60)
def test_committed_artifacts_match_a_fresh_build(fresh_out: Path) -> None:
    check = subprocess.run(
        ["node", "tools/artifacts.js", "--check", "--out", str(fresh_out)],
        cwd=CONTRACTS_DIR,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert check.returncode == 0, check.stderr


def test_check_notices_a_stale_artifact(fresh_out: Path, tmp_path: Path) -> None:
    # Same check against a copy of the project whose DEWToken artifact lost a function.
    copy = tmp_path / "contracts"
    shutil.copytree(CONTRACTS_DIR / "tools", copy / "tools")
    shutil.copytree(ARTIFACTS_DIR, copy / "artifacts")
    stale = json.loads((copy / "artifacts" / "DEWToken.json").read_text())
    stale["abi"] = [entry for entry in stale["abi"] if entry.get("name") != "disperse"]
    (copy / "artifacts" / "DEWToken.json").write_text(json.dumps(stale, indent=2) + "\n")
    check = subprocess.run(
        ["node", "tools/artifacts.js", "--check", "--out", str(fresh_out)],
        cwd=copy,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert check.returncode == 1
    assert "DEWToken" in check.stderr


@pytest.mark.parametrize("name", sorted({artifact_name(key) for key in CONTRACT_NAMES}))
def test_artifacts_load(name: str) -> None:
    artifact = load_artifact(name)
    assert artifact.name == name
    assert artifact.bytecode.startswith("0x6") and len(artifact.bytecode) > 1000
    assert any(entry.get("type") == "function" for entry in artifact.abi)
