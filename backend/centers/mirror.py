"""Applies confirmed ``GameCenter`` events to the mirror (``backend.centers.models``).

Events come decoded as web3 gives them (``event``, ``args``, ``blockNumber``,
``transactionHash``, ``logIndex``), in chain order. Each is applied once: its
``(tx_hash, log_index)`` is recorded in ``game_center_events`` in the same transaction, and
an event already recorded is skipped, so a range read twice (a crash between the read and
the cursor's commit, two indexers racing) changes nothing. Nothing here commits.

- ``CenterMinted(centerId, to, name, country, city, latE2, lonE2, capacity)`` creates the row;
- ``CenterPlaced(centerId, by, name, country, city, latE2, lonE2)`` describes a center the
  shop minted blank (country 0: not found by place until then);
- ``Transfer(from, to, tokenId)`` moves ownership (the mint's own Transfer from the zero
  address is recorded and otherwise ignored: ``CenterMinted`` carries the owner);
- ``UpdateUser(tokenId, user, expires)`` (ERC-4907) sets or clears the renter.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

from eth_utils.address import to_checksum_address
from sqlalchemy import select
from sqlalchemy.orm import Session

from backend.centers.models import CenterEvent, GameCenter
from backend.db.base import utcnow

ZERO_ADDRESS = "0x" + "00" * 20
EVENT_NAMES = ("CenterMinted", "CenterPlaced", "Transfer", "UpdateUser")
_KIND = {
    "CenterMinted": "minted",
    "CenterPlaced": "placed",
    "Transfer": "transfer",
    "UpdateUser": "user",
}


def _hex(value: Any) -> str:
    if isinstance(value, bytes | bytearray):
        return "0x" + bytes(value).hex()
    text = str(value.hex() if hasattr(value, "hex") and not isinstance(value, str) else value)
    return text if text.startswith("0x") else "0x" + text


def _country(value: Any) -> str:
    raw = bytes(value) if isinstance(value, bytes | bytearray) else bytes.fromhex(str(value)[2:])
    return raw.rstrip(b"\x00").decode("ascii", "replace").upper()[:2]


def _center_id(name: str, args: Mapping[str, Any]) -> int:
    return int(args["centerId"] if name.startswith("Center") else args["tokenId"])


def apply_events(session: Session, events: Iterable[Mapping[str, Any]]) -> int:
    """Apply ``events`` in order; returns how many were new."""
    applied = 0
    for event in events:
        name = event["event"]
        if name not in EVENT_NAMES:
            continue
        key = (_hex(event["transactionHash"]), int(event["logIndex"]))
        if session.get(CenterEvent, key) is not None:
            continue
        args, block = event["args"], int(event["blockNumber"])
        center_id = _center_id(name, args)
        _APPLY[name](session, center_id, args, block)
        session.add(
            CenterEvent(
                tx_hash=key[0],
                log_index=key[1],
                center_id=center_id,
                kind=_KIND[name],
                block_number=block,
            )
        )
        session.flush()
        applied += 1
    return applied


def _minted(session: Session, center_id: int, args: Mapping[str, Any], block: int) -> None:
    if session.get(GameCenter, center_id) is not None:
        return
    session.add(
        GameCenter(
            center_id=center_id,
            name=str(args["name"])[:64],
            country=_country(args["country"]),
            city=str(args["city"])[:64],
            lat_e2=int(args["latE2"]),
            lon_e2=int(args["lonE2"]),
            capacity=int(args["capacity"]),
            owner=to_checksum_address(args["to"]),
            minted_block=block,
            updated_block=block,
            updated_at=utcnow(),
        )
    )


def _placed(session: Session, center_id: int, args: Mapping[str, Any], block: int) -> None:
    center = _center(session, center_id)
    if center is None:
        return
    center.name, center.city = str(args["name"])[:64], str(args["city"])[:64]
    center.country = _country(args["country"])
    center.lat_e2, center.lon_e2 = int(args["latE2"]), int(args["lonE2"])
    center.updated_block = block
    center.updated_at = utcnow()


def _center(session: Session, center_id: int) -> GameCenter | None:
    return session.scalar(select(GameCenter).where(GameCenter.center_id == center_id))


def _transfer(session: Session, center_id: int, args: Mapping[str, Any], block: int) -> None:
    center = _center(session, center_id)
    if center is None or to_checksum_address(args["from"]) == to_checksum_address(ZERO_ADDRESS):
        return
    center.owner = to_checksum_address(args["to"])
    center.updated_block = block
    center.updated_at = utcnow()


def _user(session: Session, center_id: int, args: Mapping[str, Any], block: int) -> None:
    center = _center(session, center_id)
    if center is None:
        return
    user, expires = to_checksum_address(args["user"]), int(args["expires"])
    if user == to_checksum_address(ZERO_ADDRESS) or expires == 0:
        center.renter, center.rented_until = None, None
    else:
        center.renter = user
        center.rented_until = datetime.fromtimestamp(min(expires, 2**32), tz=UTC)
    center.updated_block = block
    center.updated_at = utcnow()


_APPLY = {
    "CenterMinted": _minted,
    "CenterPlaced": _placed,
    "Transfer": _transfer,
    "UpdateUser": _user,
}
