"""A market listing's derived status, in SQL (``status_of``), on SQLite and PostgreSQL: every
case of the rules against a plain reading of them, and a status-filtered page that is full
while more listings match (the filter once ran after the page was read, so a page of open
listings among stale ones came back short)."""

from __future__ import annotations

import itertools

import pytest
from eth_account import Account
from sqlalchemy import delete

from backend.markets import service
from backend.markets.models import (
    AccessoryBalance,
    AvatarState,
    ItemKind,
    ListingStatus,
    MarketApproval,
    MarketListing,
)

NOW = 1_900_000_000
TOKEN = Account.create().address
SELLER = Account.create().address
OTHER = Account.create().address


def expected(case: dict[str, object]) -> str:
    """The rules as docs/contracts-markets.md words them."""
    if case["booked"] != ListingStatus.OPEN:
        return str(case["booked"])
    if case["expires"] and int(case["expires"]) <= NOW:
        return ListingStatus.EXPIRED
    if not case["approved"]:
        return ListingStatus.STALE
    if case["kind"] == ItemKind.AVATAR:
        if case["owner"] != SELLER or case["rented_until"] > NOW or case["changed"] > 5:
            return ListingStatus.STALE
    elif int(case["balance"]) < int(case["amount"]):
        return ListingStatus.STALE
    return ListingStatus.OPEN


def _cases() -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for booked, expires, approved in itertools.product(
        [ListingStatus.OPEN, ListingStatus.SOLD, ListingStatus.CANCELLED],
        [0, NOW - 1, NOW, NOW + 1],
        [True, False],
    ):
        base = {"booked": booked, "expires": expires, "approved": approved}
        for owner, rented_until, changed in itertools.product(
            [SELLER, OTHER], [0, NOW, NOW + 1], [4, 5, 6]
        ):
            avatar = {"kind": ItemKind.AVATAR, "owner": owner, "balance": "0", "amount": "1"}
            out.append({**base, **avatar, "rented_until": rented_until, "changed": changed})
        # Balances against amounts, digits only: shorter, equal, longer, and "9" vs "10".
        for balance, amount in [
            ("0", "1"),
            ("1", "1"),
            ("2", "1"),
            ("9", "10"),
            ("10", "9"),
            ("100000000000000000000000000000", "99999999999999999999999999999"),
            ("99999999999999999999999999999", "100000000000000000000000000000"),
        ]:
            accessory = {"kind": ItemKind.ACCESSORY, "owner": SELLER, "rented_until": 0}
            out.append({**base, **accessory, "changed": 0, "balance": balance, "amount": amount})
    return out


def _book(session, listing_id: int, case: dict[str, object]) -> None:
    """One listing with its own item (the listing's id is the item's id) and seller approval."""
    seller = Account.create().address if case["approved"] else SELLER
    if case["approved"]:
        session.add(MarketApproval(token=TOKEN, owner=seller, approved=True))
    owner = seller if case["owner"] == SELLER else OTHER
    session.add(
        MarketListing(
            listing_id=listing_id,
            seller=seller,
            token=TOKEN,
            item_kind=case["kind"],
            token_id=str(listing_id),
            amount=case["amount"],
            price="1",
            expires_at=case["expires"],
            status=case["booked"],
            buyer=None,
            listed_block=1,
            listed_seq=5,
            updated_block=1,
        )
    )
    if case["kind"] == ItemKind.AVATAR:
        session.add(
            AvatarState(
                avatar_id=listing_id,
                owner=owner,
                user=None,
                user_expires=0,
                rented_until=case["rented_until"],
                changed_seq=case["changed"],
                updated_block=1,
            )
        )
    else:
        session.add(AccessoryBalance(address=seller, type_id=listing_id, balance=case["balance"]))


@pytest.fixture
def clean(session_factory):
    yield session_factory
    with session_factory() as session:
        for model in (MarketListing, MarketApproval, AvatarState, AccessoryBalance):
            session.execute(delete(model))
        session.commit()


def test_every_case_of_the_status_rules(clean):
    cases = _cases()
    with clean() as session:
        for listing_id, case in enumerate(cases, start=1):
            _book(session, listing_id, case)
        session.commit()
        rows = []
        for offset in range(0, len(cases), service.MAX_PAGE):
            rows += service.listings(
                session=session, now_s=NOW, limit=service.MAX_PAGE, offset=offset
            )
        got = {r["listing_id"]: r["status"] for r in rows}
        want = {i: expected(c) for i, c in enumerate(cases, start=1)}
        assert got == want
        for status in set(want.values()):  # each filter gives exactly its listings
            filtered = service.listings(
                session=session, now_s=NOW, status=status, limit=service.MAX_PAGE
            )
            matching = sorted((i for i, s in want.items() if s == status), reverse=True)
            assert [r["listing_id"] for r in filtered] == matching[: service.MAX_PAGE]
        one = session.get(MarketListing, 1)
        assert service.listing_status(session, one, NOW) == want[1]
        # Every status the rules can give occurs, so none of them is untested.
        assert set(want.values()) == {"open", "sold", "cancelled", "expired", "stale"}


def test_a_status_filtered_page_is_full_while_more_match(clean):
    open_case = dict(
        booked=ListingStatus.OPEN,
        expires=0,
        approved=True,
        kind=ItemKind.ACCESSORY,
        owner=SELLER,
        rented_until=0,
        changed=0,
        balance="1",
        amount="1",
    )
    stale_case = {**open_case, "balance": "0"}
    with clean() as session:
        for listing_id in range(1, 41):  # newest first: stale, open, stale, open, ...
            _book(session, listing_id, open_case if listing_id % 2 else stale_case)
        session.commit()
        page = service.listings(session=session, now_s=NOW, status="open", limit=10)
        second = service.listings(session=session, now_s=NOW, status="open", limit=10, offset=10)
    assert [r["listing_id"] for r in page] == list(range(39, 19, -2))
    assert [r["listing_id"] for r in second] == list(range(19, 0, -2))
    assert {r["status"] for r in page + second} == {"open"}
