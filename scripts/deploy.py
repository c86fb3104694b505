"""Deploy the DEW contracts to any RPC URL, grant the roles, fund the vault, write the manifest.

    uv run python scripts/deploy.py [--rpc-url URL] [--key-file FILE] [--operator ADDRESS]
                                    [--vault-funding DEW] [--out PATH] [--json]

Defaults come from the chain settings (``DEW_CHAIN_RPC_URL``, ``DEW_CHAIN_OPERATOR_KEY``,
``DEW_CHAIN_MANIFEST_PATH``). The deployer keeps every admin role; ``--operator`` (default: the
deployer) gets the minter, issuer, screener and settler roles.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Callable, Sequence
from decimal import Decimal
from pathlib import Path

from web3 import Web3

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from backend.chain.contracts import Contracts, save_manifest
from backend.chain.deploy import DEW, DeployConfig, deploy_all
from backend.config import get_settings


def _dew(text: str) -> int:
    return int(Decimal(text) * DEW)


def main(argv: Sequence[str] | None = None, out: Callable[[str], None] = print) -> int:
    settings = get_settings().chain
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rpc-url", default=settings.rpc_url)
    parser.add_argument(
        "--key-file", type=Path, help="file holding the deployer's private key (hex)"
    )
    parser.add_argument("--operator", help="address of the backend's hot wallet")
    parser.add_argument("--vault-funding", type=_dew, default=DeployConfig.vault_funding)
    parser.add_argument("--token-cap", type=_dew, default=DeployConfig.token_cap)
    parser.add_argument("--out", type=Path, default=settings.manifest_path)
    parser.add_argument("--json", action="store_true", help="print the manifest as JSON")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stderr)

    key = args.key_file.read_text().strip() if args.key_file else settings.operator_key
    w3 = Web3(Web3.HTTPProvider(args.rpc_url, request_kwargs={"timeout": settings.rpc_timeout_s}))
    if not w3.is_connected():
        parser.error(f"no node answers at {args.rpc_url}")
    if args.vault_funding > args.token_cap:
        parser.error("--vault-funding exceeds --token-cap")
    config = DeployConfig(token_cap=args.token_cap, vault_funding=args.vault_funding)
    manifest = deploy_all(w3, key, operator=args.operator, config=config)
    path = save_manifest(manifest, args.out)
    contracts = Contracts(w3, manifest)
    vault = contracts.token.functions.balanceOf(manifest.address("MatchSettlement")).call()
    if args.json:
        out(json.dumps({"manifest_path": str(path), **manifest.to_json()}, sort_keys=True))
    else:
        out(f"chain {manifest.chain_id}, deployed from block {manifest.deployment_block}")
        for name, address in manifest.addresses.items():
            out(f"  {name:<20} {address}")
        out(f"vault holds {Decimal(vault) / DEW} DEW; manifest written to {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
