"""A paid prize settlement's ledger: the avatar legs rewritten from the chain's split keep the
place the prize was won at (a prize settlement has no seat records)."""

from __future__ import annotations

from types import SimpleNamespace

from eth_account import Account
from sqlalchemy import select

from backend.chain.models import ChainRequest, ChainTx, ChainWallet, RequestStatus
from backend.db.base import utcnow
from backend.economy.chain_reader import SettledMatch, SplitEvent
from backend.economy.ledger import sync_settlements
from backend.economy.models import LedgerLeg, LegStatus, PlannedSettlement
from backend.economy.policy import DEW
from backend.economy.reports import wallet_summary
from backend.economy.settlement import Prize, plan_prize_settlement


def _signed(session, tx_hash: str) -> None:
    """Record ``tx_hash`` as a transaction our engine signed (a MatchSettled is booked as paid
    only when it comes from one of those)."""
    wallet = ChainWallet(chain_id=31337, address=Account.create().address)
    session.add(wallet)
    session.flush()
    session.add(
        ChainTx(
            wallet_id=wallet.id,
            nonce=0,
            kind="settle",
            tx_hash=tx_hash,
            raw=b"",
            to_address=wallet.address,
            gas_limit=0,
            max_fee_per_gas=0,
            max_priority_fee_per_gas=0,
        )
    )


def test_paid_avatar_prize_legs_keep_their_place(session_factory):
    player, other, treasury = (Account.create().address for _ in range(3))
    key, chain_match_id = "tournament-00000000000000000042", "0x03" + "42" * 31
    with session_factory.begin() as session:
        settlement = plan_prize_settlement(
            session=session,
            key=key,
            chain_match_id=chain_match_id,
            result_hash="0x" + "11" * 32,
            prizes=[
                Prize(place=2, address=other, amount=DEW),
                Prize(
                    place=1, address=player, amount=3 * DEW, avatar_id=7, admitted_as="avatar_user"
                ),
            ],
            entry_fees=0,
            added_prize=4 * DEW,
            fee=0,
            treasury=treasury,
            season_id=None,
            finished_at=utcnow(),
        )
        predicted = session.scalars(select(LedgerLeg).where(LedgerLeg.avatar_id == 7)).all()
        assert [(x.seat, x.party) for x in predicted] == [(1, "owner")]
        session.get(ChainRequest, settlement.chain_request_id).status = RequestStatus.CONFIRMED
        _signed(session, "0x" + "ab" * 32)
    paid = SettledMatch(
        chain_match_id=chain_match_id,
        result_hash="0x" + "11" * 32,
        paid=4 * DEW,
        tx_hash="0x" + "ab" * 32,
        block_number=1,
        splits=[
            SplitEvent(
                avatar_id=7,
                agreement_id=0,
                to_owner=3 * DEW,
                to_manager=0,
                to_scholar=0,
                owner=player,
                manager=None,
                scholar=None,
            )
        ],
    )
    reader = SimpleNamespace(settled_match=lambda chain_id, block_hint=None: paid)
    with session_factory.begin() as session:
        report = sync_settlements(session=session, reader=reader)
        assert (report.paid, report.mismatches) == (1, [])
    with session_factory() as session:
        legs = session.scalars(select(LedgerLeg).where(LedgerLeg.match_id == key)).all()
        assert sorted((x.party, x.seat, x.avatar_id, x.status) for x in legs) == [
            ("owner", 1, 7, LegStatus.PAID),
            ("wallet", 2, None, LegStatus.PAID),
        ]


def test_a_withheld_leg_is_booked_as_not_paid(session_factory):
    """Issue 18's vault withholds a leg to a recipient it refuses (``PayoutWithheld``) instead
    of reverting the batch: that leg stays in the vault, so the ledger must not call it paid."""
    player, refused, treasury = (Account.create().address for _ in range(3))
    key, chain_match_id = "tournament-00000000000000000043", "0x03" + "43" * 31
    with session_factory.begin() as session:
        settlement = plan_prize_settlement(
            session=session,
            key=key,
            chain_match_id=chain_match_id,
            result_hash="0x" + "12" * 32,
            prizes=[
                Prize(place=1, address=player, amount=3 * DEW),
                Prize(place=2, address=refused, amount=DEW),
            ],
            entry_fees=0,
            added_prize=4 * DEW,
            fee=0,
            treasury=treasury,
            season_id=None,
            finished_at=utcnow(),
        )
        session.get(ChainRequest, settlement.chain_request_id).status = RequestStatus.CONFIRMED
        _signed(session, "0x" + "ac" * 32)
    paid = SettledMatch(
        chain_match_id=chain_match_id,
        result_hash="0x" + "12" * 32,
        paid=4 * DEW,
        tx_hash="0x" + "ac" * 32,
        block_number=1,
        withheld=[(refused, DEW)],
    )
    reader = SimpleNamespace(settled_match=lambda chain_id, block_hint=None: paid)
    with session_factory.begin() as session:
        report = sync_settlements(session=session, reader=reader)
        assert (report.paid, report.mismatches) == (1, [])
    with session_factory() as session:
        legs = session.scalars(select(LedgerLeg).where(LedgerLeg.match_id == key)).all()
        assert sorted((x.address, x.status) for x in legs) == sorted(
            [(player, LegStatus.PAID), (refused, LegStatus.FAILED)]
        )
        assert wallet_summary(session=session, address=refused)["paid"] == 0


def test_a_settlement_by_a_transaction_we_did_not_sign_is_not_booked_as_paid(session_factory):
    """The MatchSettled of our id came from someone else's transaction (a thief with the
    settler key used the id first): the match is re-issued, never booked as paid by it."""
    player, thief, treasury = (Account.create().address for _ in range(3))
    key, chain_match_id = "tournament-00000000000000000044", "0x03" + "44" * 31
    with session_factory.begin() as session:
        settlement = plan_prize_settlement(
            session=session,
            key=key,
            chain_match_id=chain_match_id,
            result_hash="0x" + "13" * 32,
            prizes=[Prize(place=1, address=player, amount=DEW)],
            entry_fees=0,
            added_prize=DEW,
            fee=0,
            treasury=treasury,
            season_id=None,
            finished_at=utcnow(),
        )
        request = session.get(ChainRequest, settlement.chain_request_id)
        request.status = RequestStatus.CONFIRMED
        request.result = {"outcome": "already_settled"}
        old_request = request.id
    # Same result hash and amount as ours: only the transaction tells it apart.
    theirs = SettledMatch(
        chain_match_id=chain_match_id,
        result_hash="0x" + "13" * 32,
        paid=DEW,
        tx_hash="0x" + "ad" * 32,
        block_number=1,
    )
    reader = SimpleNamespace(
        settled_match=lambda chain_id, block_hint=None: theirs,
        settled_entry=lambda tx_hash, chain_id: None,  # not a direct settle call we can read
    )
    with session_factory.begin() as session:
        report = sync_settlements(session=session, reader=reader)
        assert (report.paid, report.reissued) == (0, 1)
    with session_factory() as session:
        settlement = session.get(PlannedSettlement, key)
        assert settlement.status == "submitted" and settlement.chain_match_id != chain_match_id
        new = session.get(ChainRequest, settlement.chain_request_id)
        old = session.get(ChainRequest, old_request)
        assert new.status == RequestStatus.QUEUED
        assert [p for p in new.payload["payouts"]] == [p for p in old.payload["payouts"]]
        assert new.payload["match_id"] == settlement.chain_match_id
        assert wallet_summary(session=session, address=player)["paid"] == 0
        assert thief not in {x.address for x in session.scalars(select(LedgerLeg))}


RENTED, OWNED = "avatar_user", "avatar_owner"


def test_one_avatar_at_several_places_books_every_place(session_factory):
    """A season's avatar can win two places through two players: its owner (paid straight to
    the owner's wallet) and its renter (split on chain). Booking the chain's split used to
    delete every leg of the avatar, the owner's wallet payout included: the ledger showed
    less than the chain paid. Two splits of one avatar keep their own places too."""
    owner, renter, treasury = (Account.create().address for _ in range(3))
    key, chain_match_id = "season-00000000000000000007", "0x03" + "07" * 31
    with session_factory.begin() as session:
        settlement = plan_prize_settlement(
            session=session,
            key=key,
            chain_match_id=chain_match_id,
            result_hash="0x" + "22" * 32,
            prizes=[
                Prize(
                    place=1, address=renter, amount=5 * DEW, avatar_id=7, admitted_as="avatar_user"
                ),
                Prize(place=2, address=owner, amount=DEW, avatar_id=7, admitted_as="avatar_owner"),
                Prize(
                    place=3, address=renter, amount=2 * DEW, avatar_id=7, admitted_as="avatar_user"
                ),
            ],
            entry_fees=0,
            added_prize=8 * DEW,
            fee=0,
            treasury=treasury,
            season_id=None,
            finished_at=utcnow(),
        )
        session.get(ChainRequest, settlement.chain_request_id).status = RequestStatus.CONFIRMED
        _signed(session, "0x" + "cd" * 32)

    def split(amount: int) -> SplitEvent:
        return SplitEvent(
            avatar_id=7,
            agreement_id=0,
            to_owner=amount,
            to_manager=0,
            to_scholar=0,
            owner=owner,
            manager=None,
            scholar=None,
        )

    paid = SettledMatch(
        chain_match_id=chain_match_id,
        result_hash="0x" + "22" * 32,
        paid=8 * DEW,
        tx_hash="0x" + "cd" * 32,
        block_number=1,
        splits=[split(5 * DEW), split(2 * DEW)],
    )
    reader = SimpleNamespace(settled_match=lambda chain_id, block_hint=None: paid)
    with session_factory.begin() as session:
        report = sync_settlements(session=session, reader=reader)
        assert (report.paid, report.mismatches) == (1, [])
    with session_factory() as session:
        legs = session.scalars(select(LedgerLeg).where(LedgerLeg.match_id == key)).all()
        assert sorted((x.seat, x.party, int(x.amount), x.status) for x in legs) == [
            (1, "owner", 5 * DEW, LegStatus.PAID),
            (2, "owner", DEW, LegStatus.PAID),
            (3, "owner", 2 * DEW, LegStatus.PAID),
        ]
        assert sum(int(x.amount) for x in legs) == 8 * DEW
