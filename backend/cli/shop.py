"""``dew shop list|close``: the operator's shop, through the chain outbox.

They call the same service as ``POST /operator/shop`` (``backend.markets.operator``),
straight on the configured database: whoever can run ``dew`` there is the operator. The
item contracts' addresses come from the deployment manifest in settings.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from backend.cli.app import app
from backend.cli.kit import RequestKey, Wait, WaitTimeout, fail, queued
from backend.config import get_settings
from backend.markets.exceptions import MarketsError

# The services are imported inside each command: start-up cost (see backend/cli/__init__.py).

if TYPE_CHECKING:
    from collections.abc import Callable

    from sqlalchemy.orm import Session

    from backend.markets.operator import ShopRequest

shop_app = typer.Typer(
    help="List item types for sale in the shop, or close a listing (through the chain outbox).",
    no_args_is_help=True,
)
app.add_typer(shop_app, name="shop")


def _run(
    queue: Callable[..., ShopRequest], key: str, wait: bool, timeout_s: float, **fields: object
) -> None:
    from backend.markets import operator

    done = queued(
        MarketsError,
        queue,
        operator.request_status,
        "shop request",
        lambda status: (
            f"shop {status.action} request #{status.id} ({status.status}), "
            f"key {status.idempotency_key!r}"
        ),
        key=key,
        wait=wait,
        timeout_s=timeout_s,
        **fields,
    )
    if wait:
        typer.echo(f"listing #{done.listing_id} in tx {done.tx_hash}")


@shop_app.command("list")
def shop_list(
    kind: Annotated[str, typer.Argument(help="avatar | accessory | vip")],
    price: Annotated[str, typer.Option(help="DEW wei")],
    supply: Annotated[int, typer.Option(help="How many the shop sells")],
    name: Annotated[str, typer.Option(help="Shown in the shop")],
    key: RequestKey,
    item_id: Annotated[int, typer.Option(help="Accessory type id")] = 0,
    max_supply: Annotated[
        int | None, typer.Option(help="Supply cap of an accessory type not defined yet")
    ] = None,
    vip_days: Annotated[float, typer.Option(help="A VIP pass's term, in days")] = 0.0,
    image: Annotated[str, typer.Option(help="Image path or https URL")] = "",
    slot: Annotated[str | None, typer.Option(help="An accessory's slot (hat, ...)")] = None,
    wait: Wait = False,
    timeout_s: WaitTimeout = 120.0,
) -> None:
    """Queue a shop listing of an item type; the worker sends it."""
    from web3 import Web3

    from backend.chain.contracts import Contracts, load_manifest
    from backend.markets import operator

    if not price.isdigit():
        raise fail(f"--price must be DEW wei, a whole number: {price!r}")
    settings = get_settings()
    contracts = Contracts(
        Web3(Web3.HTTPProvider(settings.chain.rpc_url)),
        load_manifest(settings.chain.manifest_path),
        check_chain=False,
    )
    items = {
        "avatar": contracts.avatar.address,
        "accessory": contracts.accessories.address,
        "vip": contracts.vip.address,
    }
    if kind not in items:
        raise fail(f"kind must be avatar, accessory or vip, got {kind!r}")
    _run(
        operator.queue_listing,
        key,
        wait,
        timeout_s,
        item_kind=kind,
        item=items[kind],
        item_id=item_id,
        price=int(price),
        supply=supply,
        vip_term_s=int(vip_days * 86400),
        name=name,
        image=image,
        slot=slot,
        max_supply=max_supply,
    )


@shop_app.command("close")
def shop_close(
    listing_id: Annotated[int, typer.Argument(help="The shop listing")],
    key: RequestKey,
    wait: Wait = False,
    timeout_s: WaitTimeout = 120.0,
) -> None:
    """Queue the close of a shop listing (its price unchanged); the worker sends it."""
    from backend.markets import operator, service

    def close(*, session: Session, **queue_args: Any) -> operator.ShopRequest:
        row = service.get_shop_listing(session=session, listing_id=listing_id)
        return operator.queue_update(
            session=session, listing_id=listing_id, price=int(row.price), open_=False, **queue_args
        )

    _run(close, key, wait, timeout_s)
