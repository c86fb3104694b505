"""Guest sessions: free play (practice against bots, same-device, bots-only) without a wallet.

``open_session`` gives a visitor the same access and refresh tokens a wallet gets, for an
address in the guest range (``backend.kit.guests``): every route works as for a wallet, and
every door of earning, staked or ranked play refuses it (``terms.require_for_play``), while
the one rule of what a match counts for gives its seats nothing but history
(``economy.counts``). ``adopt`` moves a guest's history to the wallet that signs in from the
same browser, and closes the guest's session.
"""

from __future__ import annotations

import logging
import secrets

from eth_utils.address import to_checksum_address
from sqlalchemy import text
from sqlalchemy.orm import Session

from backend.accounts import exceptions as exc
from backend.accounts import service
from backend.accounts.models import AuthSession, RefreshToken
from backend.config import Settings
from backend.db.base import utcnow
from backend.kit.guests import GUEST_PREFIX, is_guest_address

log = logging.getLogger(__name__)

# The history a player sees, kept by address in the tables' results (match_results): the
# one row a guest's match leaves under its address that a wallet later reads as its own.
_ADOPT_RESULTS = text("UPDATE match_results SET address = :wallet WHERE address = :guest")


def new_address() -> str:
    """A fresh guest address: the guest prefix and 12 random bytes, EIP-55 cased."""
    return str(to_checksum_address(GUEST_PREFIX + secrets.token_hex(12)))


def open_session(*, session: Session, settings: Settings) -> service.TokenPair:
    """A new guest, signed in: its account, session and token pair (committed)."""
    now = utcnow()
    address = new_address()
    session_id = secrets.token_hex(16)
    pair = service._issue_tokens(settings, address, session_id, now)
    service._ensure_account(session, address, now)
    session.add(AuthSession(id=session_id, address=address, created_at=now))
    session.flush()
    session.add(
        RefreshToken(
            token_hash=service._hash_token(pair.refresh_token),
            session_id=session_id,
            created_at=now,
            expires_at=pair.refresh_expires_at,
        )
    )
    session.commit()
    log.info("guest session %s opened", session_id)
    return pair


def adopt(*, session: Session, settings: Settings, guest_token: str, wallet: str) -> int:
    """Give ``wallet`` the history of the guest whose (live) access token is ``guest_token``
    and end that guest's session; returns the results moved. A token that is not a live
    guest's is refused (``GuestTokenRefused``) and changes nothing."""
    try:
        guest = service.authenticate(session=session, settings=settings, token=guest_token)
    except exc.AccountsError as error:
        raise exc.GuestTokenRefused("the guest token is not a live guest session") from error
    if not is_guest_address(guest.address) or is_guest_address(wallet):
        raise exc.GuestTokenRefused("only a guest's history moves, and only to a wallet")
    moved = session.execute(_ADOPT_RESULTS, {"wallet": wallet, "guest": guest.address})
    session.commit()
    service.logout(session=session, session_id=guest.session_id)
    count = int(getattr(moved, "rowcount", 0) or 0)
    log.info("guest session %s adopted by a wallet: %d results", guest.session_id, count)
    return count
