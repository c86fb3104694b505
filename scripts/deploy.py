"""Deploy the DEW contracts to any RPC URL, grant the roles, fund the vault, write the manifest.

    uv run python scripts/deploy.py --operator ADDRESS [--rpc-url URL] [--key-file FILE]
        [--admin ADDRESS] [--treasury ADDRESS] [--guardian ADDRESS]
        [--vault-funding DEW] [--token-cap DEW] [--out PATH] [--json]

Defaults come from the chain settings (``DEW_CHAIN_RPC_URL``, ``DEW_CHAIN_MANIFEST_PATH``).
The deployer's key comes from ``--key-file``, else the ``DEPLOYER_KEY`` environment variable
(deliberately not a ``DEW_*`` setting: no server process ever reads the deployer's key).
``--operator`` is the backend's hot wallet and must not be the deployer, admin or
treasury: it gets the avatar minter, VIP issuer, screener, settler, accessory catalog and
shop lister roles (and guardian of settlement, shop and market, unless ``--guardian``). The
shop contract gets SHOP_ROLE on the avatars, accessories, game centers and VIPPass.
The deployer is the admin of every contract (with ``--admin``, it
starts the two-step transfer to that address). DEW is minted once, up to the cap: the
vault's funding, the rest to the treasury (default: the admin); then nobody can mint DEW. It
prints who holds every role (also recorded in the manifest) and exits 1 if the operator
holds an admin or DEW-mint role, or DEW can still be minted (the manifest is written anyway).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from collections.abc import Callable, Sequence
from decimal import Decimal
from pathlib import Path

from web3 import Web3

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from backend.chain.contracts import Contracts, save_manifest
from backend.chain.deploy import DEW, DeployConfig, HotKeyError, deploy_all
from backend.chain.exceptions import ChainValueError
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
    parser.add_argument(
        "--operator", required=True, help="address of the backend's hot wallet (not the deployer)"
    )
    parser.add_argument("--admin", help="hand every contract's admin role to this address")
    parser.add_argument("--treasury", help="receives the DEW cap less the vault (default: admin)")
    parser.add_argument("--guardian", help="may pause settlement (default: the operator)")
    parser.add_argument("--vault-funding", type=_dew, default=DeployConfig.vault_funding)
    parser.add_argument("--token-cap", type=_dew, default=DeployConfig.token_cap)
    parser.add_argument("--out", type=Path, default=settings.manifest_path)
    parser.add_argument("--json", action="store_true", help="print the manifest as JSON")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stderr)

    key = args.key_file.read_text().strip() if args.key_file else os.environ.get("DEPLOYER_KEY", "")
    if not key:
        parser.error("the deployer's key: --key-file FILE or the DEPLOYER_KEY variable")
    w3 = Web3(Web3.HTTPProvider(args.rpc_url, request_kwargs={"timeout": settings.rpc_timeout_s}))
    if not w3.is_connected():
        parser.error(f"no node answers at {args.rpc_url}")
    if args.vault_funding > args.token_cap:
        parser.error("--vault-funding exceeds --token-cap")
    config = DeployConfig(token_cap=args.token_cap, vault_funding=args.vault_funding)
    refused = ""
    try:
        manifest = deploy_all(
            w3,
            key,
            operator=args.operator,
            admin=args.admin,
            treasury=args.treasury,
            guardian=args.guardian,
            config=config,
        )
    except ChainValueError as exc:
        parser.error(str(exc))
    except HotKeyError as exc:
        # The contracts are on chain: write their manifest, then fail.
        manifest, refused = exc.manifest, str(exc)
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
        out("roles (read back from the chain):")
        for name, roles in manifest.roles.items():
            for role, holders in roles.items():
                out(f"  {name + '.' + role:<40} {', '.join(holders) or '(nobody)'}")
        admin = manifest.extra["admin"]
        if admin != manifest.deployer:
            out(f"pending: {admin} must call acceptDefaultAdminTransfer() on every contract")
    if refused:
        out(f"ERROR: {refused}")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
