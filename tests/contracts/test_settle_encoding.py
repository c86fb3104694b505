"""The `settle` encoder: byte layout, validation, and agreement with the contract on anvil."""

from __future__ import annotations

import hashlib
import secrets

import pytest
from eth_account import Account
from web3.logs import DISCARD

from backend.chain.contracts import (
    MAX_PAYOUT_AMOUNT,
    SettlementEncodingError,
    SettlementMatch,
    SettlementPayout,
    decode_payout_word,
    encode_settle,
    estimate_settle_gas,
    pack_settle_batch,
)
from tests.fixtures.anvil import Deployment

ALICE = "0x00000000000000000000000000000000000A11cE"
RESULT = hashlib.sha256(b"match record").digest()


def test_layout_is_header_then_payout_words() -> None:
    match = SettlementMatch(
        match_id=0x0102,
        result_hash=RESULT,
        payouts=[
            SettlementPayout(amount=5, account=ALICE),
            SettlementPayout(amount=7, avatar_id=9),
        ],
    )
    packed = pack_settle_batch([match])
    assert len(packed) == 32 + 32 + 2 + 2 * 32
    assert packed[:32] == (0x0102).to_bytes(32, "big")
    assert packed[32:64] == RESULT
    assert packed[64:66] == b"\x00\x02"
    first = int.from_bytes(packed[66:98], "big")
    assert first == (5 << 160) | int(ALICE, 16)
    second = int.from_bytes(packed[98:130], "big")
    assert second == (1 << 248) | (7 << 160) | 9


def test_payout_words_round_trip() -> None:
    for payout in (
        SettlementPayout(amount=MAX_PAYOUT_AMOUNT, account=ALICE),
        SettlementPayout(amount=1, avatar_id=(1 << 96) - 1),
        SettlementPayout(amount=3, avatar_id=5, played_at=(1 << 64) - 1),
    ):
        assert decode_payout_word(payout.word) == payout


def test_avatar_payout_carries_its_play_time_above_the_avatar_id() -> None:
    payout = SettlementPayout(amount=7, avatar_id=9, played_at=1_800_000_000)
    assert payout.word == (1 << 248) | (7 << 160) | (1_800_000_000 << 96) | 9


@pytest.mark.parametrize(
    "kwargs",
    [
        {"amount": 0, "account": ALICE},
        {"amount": MAX_PAYOUT_AMOUNT + 1, "account": ALICE},
        {"amount": 1},
        {"amount": 1, "account": ALICE, "avatar_id": 1},
        {"amount": 1, "account": "0x" + "00" * 20},
        {"amount": 1, "account": "not an address"},
        {"amount": 1, "avatar_id": 0},
        {"amount": 1, "avatar_id": 1 << 96},
        {"amount": 1, "avatar_id": 1, "played_at": 0},
        {"amount": 1, "avatar_id": 1, "played_at": 1 << 64},
        {"amount": 1, "account": ALICE, "played_at": 1},
    ],
)
def test_bad_payouts_are_refused(kwargs: dict) -> None:
    with pytest.raises(SettlementEncodingError):
        SettlementPayout(**kwargs)


def test_bad_matches_are_refused() -> None:
    with pytest.raises(SettlementEncodingError, match="reserved"):
        SettlementMatch(match_id=0, result_hash=RESULT)
    with pytest.raises(SettlementEncodingError, match="result hash"):
        SettlementMatch(match_id=1, result_hash=bytes(32))
    with pytest.raises(SettlementEncodingError, match="32 bytes"):
        SettlementMatch(match_id=b"short", result_hash=RESULT)
    with pytest.raises(SettlementEncodingError, match="not hex"):
        SettlementMatch(match_id="0xzz", result_hash=RESULT)
    with pytest.raises(SettlementEncodingError, match="at least one match"):
        pack_settle_batch([])
    with pytest.raises(SettlementEncodingError, match="unknown payout kind"):
        decode_payout_word(2 << 248 | 1 << 160 | 1)


def test_a_match_without_payouts_is_not_encoded() -> None:
    # settle refuses it (SettlementNoPayouts): it would only use up its match id.
    with pytest.raises(SettlementEncodingError, match="has no payouts"):
        pack_settle_batch([SettlementMatch(match_id=5, result_hash=RESULT)])


def test_match_ids_accept_int_hex_and_bytes() -> None:
    as_int = SettlementMatch(match_id=77, result_hash=RESULT)
    as_hex = SettlementMatch(match_id="0x" + (77).to_bytes(32, "big").hex(), result_hash=RESULT)
    as_bytes = SettlementMatch(match_id=(77).to_bytes(32, "big"), result_hash=RESULT)
    assert as_int == as_hex == as_bytes


def _send(d: Deployment, data: bytes) -> dict:
    operator = Account.from_key(d.operator_key)
    tx = {
        "from": operator.address,
        "to": d.contracts.settlement.address,
        "data": data,
        "nonce": d.w3.eth.get_transaction_count(operator.address),
        "chainId": d.w3.eth.chain_id,
        "gas": 15_000_000,
        "maxFeePerGas": 10**10,
        "maxPriorityFeePerGas": 10**9,
    }
    tx_hash = d.w3.eth.send_raw_transaction(operator.sign_transaction(tx).raw_transaction)
    return d.w3.eth.wait_for_transaction_receipt(tx_hash, timeout=30)


def test_contract_splits_avatar_payouts_and_skips_repeats(
    deployment: Deployment, chain_snapshot: None
) -> None:
    c = deployment.contracts
    owner = Account.from_key(deployment.player_keys[0])
    scholar = Account.from_key(deployment.player_keys[1])
    w3 = deployment.w3
    operator = deployment.operator
    # Operator mints an avatar to the owner and screens them; the owner offers a Rewards
    # Division (owner 30%, dust to owner); the scholar accepts.
    for fn, sender in (
        (c.avatar.functions.mintBatch([owner.address]), operator),
        (c.registry.functions.setScreened(owner.address, True), operator),
        (
            c.registry.functions.offer(
                1, scholar.address, (1, 86400, 0, 3000, 0, "0x" + "00" * 20, 0, 2**64 - 1)
            ),
            owner.address,
        ),
        (c.registry.functions.accept(1), scholar.address),
    ):
        key = {
            operator: deployment.operator_key,
            owner.address: owner.key,
            scholar.address: scholar.key,
        }[sender]
        tx = fn.build_transaction({"from": sender, "nonce": w3.eth.get_transaction_count(sender)})
        signed = Account.from_key(key).sign_transaction(tx)
        receipt = w3.eth.wait_for_transaction_receipt(
            w3.eth.send_raw_transaction(signed.raw_transaction)
        )
        assert receipt["status"] == 1

    matches = [
        SettlementMatch(1001, RESULT, [SettlementPayout(amount=1001, avatar_id=1)]),
        SettlementMatch(1002, RESULT, [SettlementPayout(amount=10, account=scholar.address)]),
    ]
    receipt = _send(deployment, encode_settle(c, matches))
    assert receipt["status"] == 1
    assert receipt["gasUsed"] <= estimate_settle_gas(matches)
    split = c.settlement.events.AvatarPayoutSplit().process_receipt(receipt, errors=DISCARD)
    assert [(e["args"]["toOwner"], e["args"]["toScholar"]) for e in split] == [(301, 700)]
    assert c.token.functions.balanceOf(owner.address).call() == 301
    assert c.token.functions.balanceOf(scholar.address).call() == 710

    receipt = _send(deployment, encode_settle(c, matches))
    skipped = c.settlement.events.MatchSkipped().process_receipt(receipt, errors=DISCARD)
    assert len(skipped) == 2
    # The skip names the result hash given this time (issue 9 item 5).
    assert [bytes(e["args"]["resultHash"]) for e in skipped] == [m.result_hash for m in matches]
    assert c.token.functions.balanceOf(scholar.address).call() == 710


def test_estimate_covers_worst_case_new_holders_and_random_ids(
    deployment: Deployment, chain_snapshot: None
) -> None:
    matches = [
        SettlementMatch(
            secrets.token_bytes(32),
            RESULT,
            [
                SettlementPayout(amount=10**18 + i, account=Account.create().address)
                for i in range(4)
            ],
        )
        for _ in range(5)
    ]
    receipt = _send(deployment, encode_settle(deployment.contracts, matches))
    assert receipt["status"] == 1
    assert receipt["gasUsed"] <= estimate_settle_gas(matches)


def test_estimate_covers_an_unmoved_avatar_at_the_end_of_a_mint_run(
    deployment: Deployment, chain_snapshot: None
) -> None:
    c = deployment.contracts
    w3 = deployment.w3
    guild = Account.create().address
    operator = deployment.operator
    first = c.avatar.functions.nextTokenId().call()
    tx = c.avatar.functions.mintBatch([guild] * 32).build_transaction(
        {"from": operator, "nonce": w3.eth.get_transaction_count(operator)}
    )
    signed = Account.from_key(deployment.operator_key).sign_transaction(tx)
    w3.eth.wait_for_transaction_receipt(w3.eth.send_raw_transaction(signed.raw_transaction))
    last = first + 31
    matches = [
        SettlementMatch(secrets.token_bytes(32), RESULT, [SettlementPayout(5, avatar_id=last)])
    ]
    receipt = _send(deployment, encode_settle(c, matches))
    assert receipt["status"] == 1
    assert c.token.functions.balanceOf(guild).call() == 5
    assert receipt["gasUsed"] <= estimate_settle_gas(matches)
