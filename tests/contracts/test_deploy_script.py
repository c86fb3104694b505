"""scripts/deploy.py against a fresh anvil: the manifest it writes is what the backend reads."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from eth_account import Account
from web3 import Web3

from backend.chain.contracts import (
    REPO_ROOT,
    SETTLER_ROLE,
    Contracts,
    load_manifest,
)
from backend.devstack.anvil import Anvil


def test_deploy_script_writes_a_manifest_the_backend_reads(anvil: Anvil, tmp_path: Path) -> None:
    key_file = tmp_path / "deployer.key"
    key_file.write_text(anvil.keys[3])
    operator = Account.from_key(anvil.keys[4]).address
    out = tmp_path / "deployment.json"
    done = subprocess.run(
        [
            sys.executable,
            str(REPO_ROOT / "scripts" / "deploy.py"),
            "--rpc-url",
            anvil.rpc_url,
            "--key-file",
            str(key_file),
            "--operator",
            operator,
            "--vault-funding",
            "1234.5",
            "--out",
            str(out),
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    printed = json.loads(done.stdout)
    assert printed["manifest_path"] == str(out)

    manifest = load_manifest(out)
    assert manifest.operator == operator
    assert manifest.deployer == Account.from_key(anvil.keys[3]).address
    w3 = Web3(Web3.HTTPProvider(anvil.rpc_url))
    contracts = Contracts(w3, manifest)
    assert contracts.token.functions.symbol().call() == "DEW"
    vault = manifest.address("MatchSettlement")
    assert contracts.token.functions.balanceOf(vault).call() == 1234_5 * 10**17
    assert contracts.settlement.functions.hasRole(SETTLER_ROLE, operator).call()
    assert contracts.avatar.functions.nextTokenId().call() == 1
    assert contracts.vip.functions.VIP_TIER().call() == 1
    assert contracts.registry.functions.avatar().call() == manifest.address("AvatarNFT")
    assert printed["roles"]["DEWToken"]["MINTER_ROLE"] == []
    assert printed["roles"]["MatchSettlement"]["SETTLER_ROLE"] == [operator]
    assert manifest.roles == printed["roles"]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(REPO_ROOT / "scripts" / "deploy.py"), *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_deploy_script_prints_every_role_holder(anvil: Anvil, tmp_path: Path) -> None:
    key_file = tmp_path / "deployer.key"
    key_file.write_text(anvil.keys[6])
    deployer = Account.from_key(anvil.keys[6]).address
    operator = Account.from_key(anvil.keys[7]).address
    out = tmp_path / "deployment.json"
    args = ["--rpc-url", anvil.rpc_url, "--key-file", str(key_file), "--out", str(out)]
    done = _run(*args, "--operator", operator)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert any(line.split() == ["DEWToken.MINTER_ROLE", "(nobody)"] for line in lines)
    assert any(line.split() == ["DEWToken.DEFAULT_ADMIN_ROLE", deployer] for line in lines)
    assert any(line.split() == ["MatchSettlement.SETTLER_ROLE", operator] for line in lines)


def test_deploy_script_refuses_the_deployer_as_operator(anvil: Anvil, tmp_path: Path) -> None:
    key_file = tmp_path / "deployer.key"
    key_file.write_text(anvil.keys[6])
    out = tmp_path / "deployment.json"
    args = ["--rpc-url", anvil.rpc_url, "--key-file", str(key_file), "--out", str(out)]
    missing = _run(*args)
    assert missing.returncode == 2
    assert "--operator" in missing.stderr
    same = _run(*args, "--operator", Account.from_key(anvil.keys[6]).address)
    assert same.returncode == 2
    assert "must not be the deployer" in same.stderr
    assert not out.exists()


def test_deploy_script_refuses_funding_above_the_cap(anvil: Anvil, tmp_path: Path) -> None:
    out = tmp_path / "deployment.json"
    key_file = tmp_path / "deployer.key"
    key_file.write_text(anvil.keys[3])
    done = subprocess.run(
        [
            sys.executable,
            str(REPO_ROOT / "scripts" / "deploy.py"),
            "--rpc-url",
            anvil.rpc_url,
            "--operator",
            Account.from_key(anvil.keys[4]).address,
            "--key-file",
            str(key_file),
            "--token-cap",
            "10",
            "--vault-funding",
            "11",
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert "--vault-funding exceeds --token-cap" in done.stderr
    assert not out.exists()


def test_deploy_script_writes_the_manifest_when_the_hot_key_check_fails(
    anvil: Anvil, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """All five contracts are on chain when the roles are read back: if they leave the operator
    an admin, the script still writes their manifest, then exits 1."""
    import importlib.util

    import backend.chain.deploy as deploy_module

    operator = Account.from_key(anvil.keys[9]).address
    real_role_holders = deploy_module.role_holders

    def operator_is_an_admin(*args: Any, **kwargs: Any) -> dict[str, dict[str, list[str]]]:
        roles = real_role_holders(*args, **kwargs)
        roles["DEWToken"]["DEFAULT_ADMIN_ROLE"].append(operator)
        return roles

    monkeypatch.setattr(deploy_module, "role_holders", operator_is_an_admin)
    spec = importlib.util.spec_from_file_location("deploy_script", REPO_ROOT / "scripts/deploy.py")
    assert spec and spec.loader
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)

    key_file = tmp_path / "deployer.key"
    key_file.write_text(anvil.keys[8])
    out = tmp_path / "deployment.json"
    printed: list[str] = []
    args = ["--rpc-url", anvil.rpc_url, "--key-file", str(key_file), "--out", str(out)]
    code = script.main([*args, "--operator", operator], out=printed.append)

    assert code == 1
    assert printed[-1] == f"ERROR: the operator {operator} holds DEWToken.DEFAULT_ADMIN_ROLE"
    manifest = load_manifest(out)
    assert manifest.operator == operator
    contracts = Contracts(Web3(Web3.HTTPProvider(anvil.rpc_url)), manifest)
    assert contracts.token.functions.symbol().call() == "DEW"
    assert contracts.settlement.functions.hasRole(SETTLER_ROLE, operator).call()
