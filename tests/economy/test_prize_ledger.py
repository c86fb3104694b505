"""A paid prize settlement's ledger: the avatar legs rewritten from the chain's split keep the
place the prize was won at (a prize settlement has no seat records)."""

from __future__ import annotations

from types import SimpleNamespace

from eth_account import Account
from sqlalchemy import select

from backend.chain.models import ChainRequest, ChainTx, ChainWallet, RequestStatus
from backend.db.base import utcnow
from backend.economy import service
from backend.economy.chain_reader import SettledMatch, SplitEvent
from backend.economy.models import LedgerLeg, LegStatus
from backend.economy.policy import DEW


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
        settlement = service.plan_prize_settlement(
            session=session,
            key=key,
            chain_match_id=chain_match_id,
            result_hash="0x" + "11" * 32,
            prizes=[
                service.Prize(place=2, address=other, amount=DEW),
                service.Prize(
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
        report = service.sync_settlements(session=session, reader=reader)
        assert (report.paid, report.mismatches) == (1, [])
    with session_factory() as session:
        legs = session.scalars(select(LedgerLeg).where(LedgerLeg.match_id == key)).all()
        assert sorted((x.party, x.seat, x.avatar_id, x.status) for x in legs) == [
            ("owner", 1, 7, LegStatus.PAID),
            ("wallet", 2, None, LegStatus.PAID),
        ]
