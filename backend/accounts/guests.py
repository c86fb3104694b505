"""Guest sessions: free play (practice against bots, same-device, bots-only) without a wallet.

``open_session`` gives a visitor the same access and refresh tokens a wallet gets, for an
address in the guest range (``backend.kit.guests``): every route works as for a wallet, and
every door of earning, staked or ranked play refuses it (``terms.require_for_play``), while
the one rule of what a match counts for gives its seats nothing but history
(``economy.counts``). ``claim`` checks the guest a wallet signing in from the same browser
names; the sign-in route then moves the guest's results (``tables.service.move_results``,
a package above this one) and ends the guest's session in one transaction.
"""

from __future__ import annotations

import logging
import secrets

from eth_utils.address import to_checksum_address
from sqlalchemy.orm import Session

from backend.accounts import exceptions as exc
from backend.accounts import service
from backend.config import Settings
from backend.kit.guests import GUEST_PREFIX, is_guest_address

log = logging.getLogger(__name__)


def new_address() -> str:
    """A fresh guest address: the guest prefix and 12 random bytes, EIP-55 cased."""
    return str(to_checksum_address(GUEST_PREFIX + secrets.token_hex(12)))


def open_session(*, session: Session, settings: Settings) -> service.TokenPair:
    """A new guest, signed in: its account, session and token pair (committed)."""
    pair = service.open_session(session=session, settings=settings, address=new_address())
    log.info("guest session opened")
    return pair


def claim(
    *, session: Session, settings: Settings, guest_token: str, wallet: str
) -> service.Principal:
    """The live guest session whose access token is ``guest_token``, which ``wallet`` takes
    over. A token that is not a live guest's, or a guest taking over a guest, is refused
    (``GuestTokenRefused``). It writes nothing."""
    try:
        guest = service.authenticate(session=session, settings=settings, token=guest_token)
    except exc.AccountsError as error:
        raise exc.GuestTokenRefused("the guest token is not a live guest session") from error
    if not is_guest_address(guest.address) or is_guest_address(wallet):
        raise exc.GuestTokenRefused("only a guest's history moves, and only to a wallet")
    return guest
