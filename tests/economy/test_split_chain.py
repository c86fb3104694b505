"""The Python split and the deployed contract agree unit for unit, for the same inputs.

Agreements are created through the economy's unsigned-transaction builders, signed by each
party's own key (as their wallet would), then one ``settle`` pays every avatar."""

from __future__ import annotations

import random

import pytest
from web3.logs import DISCARD

from backend.chain.contracts import SettlementMatch, SettlementPayout, encode_settle
from backend.economy.chain_reader import ChainReader
from backend.economy.exceptions import EconomyValueError, Refused
from backend.economy.policy import BPS, Party, Terms, split_payout
from backend.economy.scholarships.transactions import OfferTerms, ScholarshipTxBuilder
from tests.economy.chain_helpers import address, advance_time, mint_avatars, send

DEW = 10**18


def _cases() -> list[tuple[int, Terms | None, int, int, Party]]:
    """(amount, terms or no agreement, owner bps, manager bps, dust party)."""
    rng = random.Random(20261121)
    cases: list[tuple[int, Terms | None, int, int, Party]] = [
        (1, Terms.REWARDS_DIVISION, 3333, 3333, Party.MANAGER),
        (7, Terms.REWARDS_DIVISION, 3333, 3333, Party.OWNER),
        (10**6 + 1, Terms.REWARDS_DIVISION, BPS, 0, Party.SCHOLAR),
        (12345 * DEW + 99, Terms.REWARDS_DIVISION, 0, 0, Party.OWNER),
        (5 * DEW + 3, Terms.FIXED_RENT, 0, 0, Party.SCHOLAR),
        (9 * DEW + 1, None, BPS, 0, Party.OWNER),
    ]
    for _ in range(30):
        owner_bps = rng.randrange(BPS + 1)
        manager_bps = rng.choice([0, rng.randrange(BPS - owner_bps + 1)])
        dust = rng.choice([Party.OWNER, Party.SCHOLAR] + ([Party.MANAGER] if manager_bps else []))
        cases.append(
            (rng.randrange(1, 10**22), Terms.REWARDS_DIVISION, owner_bps, manager_bps, dust)
        )
    return cases


def test_contract_splits_exactly_as_python(deployment):
    w3, c = deployment.w3, deployment.contracts
    builder = ScholarshipTxBuilder(c)
    keys = deployment.player_keys
    owners, scholars, managers = keys[0:2], keys[2:5], keys[5:7]
    cases = _cases()
    avatars = mint_avatars(deployment, [address(owners[i % 2]) for i in range(len(cases))])
    for key in owners:
        send(
            w3,
            deployment.operator_key,
            builder.screen_owner(screener=deployment.operator, owner=address(key)),
        )

    expected: dict[str, int] = {}
    splits = {}
    for i, (amount, terms, owner_bps, manager_bps, dust) in enumerate(cases):
        owner, scholar = owners[i % 2], scholars[i % 3]
        manager = managers[i % 2] if manager_bps else None
        parties = {
            "owner": address(owner),
            "scholar": address(scholar),
            "manager": address(manager) if manager else None,
        }
        if terms is None:
            split = split_payout(amount, owner_bps=BPS)
        else:
            offer = OfferTerms(
                terms=terms,
                duration_s=3600,
                owner_bps=owner_bps,
                manager_bps=manager_bps,
                manager=parties["manager"],
                dust_to=dust,
            )
            send(
                w3,
                owner,
                builder.offer(
                    owner=parties["owner"],
                    avatar_id=avatars[i],
                    terms=offer,
                    scholar=parties["scholar"],
                ),
            )
            agreement_id = c.registry.functions.agreementCount().call()
            for tx in builder.accept(scholar=parties["scholar"], agreement_id=agreement_id):
                send(w3, scholar, tx)
            if terms is Terms.FIXED_RENT:
                split = split_payout(amount, owner_bps=0, dust_to=Party.SCHOLAR)
                assert split.scholar == amount, "Fixed Rent: the scholar keeps 100%"
            else:
                split = split_payout(
                    amount, owner_bps=owner_bps, manager_bps=manager_bps, dust_to=dust
                )
        assert split.total == amount
        splits[avatars[i]] = split
        for party in ("owner", "manager", "scholar"):
            if getattr(split, party):
                expected[parties[party]] = expected.get(parties[party], 0) + getattr(split, party)

    before = {a: c.token.functions.balanceOf(a).call() for a in expected}
    match = SettlementMatch(
        match_id=2**200 + 1,
        result_hash=b"\x05" * 32,
        payouts=[
            SettlementPayout(amount=case[0], avatar_id=avatar)
            for case, avatar in zip(cases, avatars, strict=True)
        ],
    )
    data = encode_settle(c, [match])
    receipt = send(w3, deployment.operator_key, _Raw(c.settlement.address, data))
    events = c.settlement.events.AvatarPayoutSplit().process_receipt(receipt, errors=DISCARD)
    on_chain = {
        e["args"]["avatarId"]: (
            e["args"]["toOwner"],
            e["args"]["toManager"],
            e["args"]["toScholar"],
        )
        for e in events
    }
    assert on_chain == {a: (s.owner, s.manager, s.scholar) for a, s in splits.items()}
    after = {a: c.token.functions.balanceOf(a).call() for a in expected}
    assert {a: after[a] - before[a] for a in expected} == expected


class _Raw:
    """A prepared call for :func:`send` (settle takes pre-encoded calldata)."""

    def __init__(self, to: str, data: bytes) -> None:
        self.to, self.data = to, data

    def build_transaction(self, fields):
        return {**fields, "to": self.to, "data": "0x" + self.data.hex(), "gas": 12_000_000}


def test_builders_refuse_what_the_chain_would_refuse(deployment):
    c = deployment.contracts
    builder = ScholarshipTxBuilder(c)
    stranger = address(deployment.player_keys[7])
    [avatar] = mint_avatars(deployment, [stranger])
    terms = OfferTerms(terms=Terms.REWARDS_DIVISION, duration_s=60, owner_bps=5000)
    with pytest.raises(Refused, match="not been approved"):
        builder.offer(owner=stranger, avatar_id=avatar, terms=terms)
    with pytest.raises(Refused, match="screener role"):
        builder.screen_owner(screener=stranger, owner=stranger)
    with pytest.raises(Refused, match="AgreementNotFound"):
        builder.accept(scholar=stranger, agreement_id=10**6)
    with pytest.raises(EconomyValueError):
        OfferTerms(
            terms=Terms.REWARDS_DIVISION,
            duration_s=60,
            owner_bps=9000,
            manager_bps=2000,
            manager=stranger,
        )
    with pytest.raises(EconomyValueError):
        OfferTerms(terms=Terms.FIXED_RENT, duration_s=60, owner_bps=1)
    with pytest.raises(EconomyValueError):
        OfferTerms(terms=Terms.FIXED_RENT, duration_s=0)


def test_clock_offset_follows_the_chain_clock(deployment):
    """finished_at + clock_offset_s is chain time: about 0 on a fresh node, the warp after one."""
    reader = ChainReader(deployment.contracts)
    assert abs(reader.clock_offset_s()) <= 5
    advance_time(deployment.w3, 3 * 86_400)
    assert abs(reader.clock_offset_s() - 3 * 86_400) <= 5
