"""Creators in tests: register a code and bind players through the real service, each
player signing its statement with its own key (EIP-191)."""

from __future__ import annotations

from typing import Any

from eth_account import Account
from eth_account.messages import encode_defunct
from sqlalchemy.orm import Session, sessionmaker

from backend.creators import service
from backend.economy.fees.schedule import FeeSchedule


def sign(account: Any, message: str) -> str:
    signed = Account.sign_message(encode_defunct(text=message), account.key)
    return "0x" + bytes(signed.signature).hex().removeprefix("0x")


def bind(
    sessions: sessionmaker[Session], player: Any, code: str, schedule: FeeSchedule | None = None
) -> None:
    with sessions() as session:
        row = service.issue_statement(
            session=session, player=player.address, code=code, chain_id=31337
        )
        nonce, message = row.nonce, row.message
    with sessions() as session:
        service.bind(
            session=session,
            player=player.address,
            nonce=nonce,
            signature=sign(player, message),
            schedule=schedule or FeeSchedule(),
        )
