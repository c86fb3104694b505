"""The demo's creator and Game Center: who earns from the season besides its
players. Separate steps, called from ``backend.demo.run`` and ``backend.demo.epilogue``:

- ``bring_players``: cora signs in and registers the code CORA; rita and sam bind to it,
  each through the statement the server issues and its own wallet signs (EIP-191);
- ``open_center``: the admin mints a Game Center to oscar on chain, and the worker's centers
  indexer mirrors its ``CenterMinted`` event;
- ``host_at_center``: the Campeonato after the season is run at that center (what the
  center and the creator earned is read by ``backend.demo.report.fee_lines``).

The Campeonato's fee is then paid as three legs of its one prize settlement: the treasury,
the center's payee (oscar) and cora (10% of the fee rita's and sam's entry fees paid); the
report's per-wallet check (balance moved == ledger paid) and the reconciliation cover them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from eth_typing import HexStr

from backend.demo.players import Wallet, ok, sign_in
from backend.devstack.stack import wait_for

if TYPE_CHECKING:
    from backend.demo.season import Season

CREATOR_CODE = "CORA"
CENTER = ("Club Dominó San Juan", b"PR", "San Juan", 1846, -6611, 4)


def bring_players(season: Season) -> None:
    """cora registers a code; two of the season's players (rita, sam) bind to it."""
    from eth_account import Account
    from eth_account.messages import encode_defunct

    season.step("a creator registers a code; rita and sam bind to it, each signing a statement")
    cora = Wallet("cora", "creator (brought rita and sam)", season.player_keys[5])
    season.stack.callback(sign_in(season.base, cora).close)
    season.wallets[cora.name] = cora
    season.cora = cora
    ok(season.http.post("/creators", json={"code": CREATOR_CODE}, headers=cora.auth))
    for player in (season.rita, season.sam):
        statement = ok(
            season.http.post(
                "/creators/bind/statement", json={"code": CREATOR_CODE}, headers=player.auth
            )
        )
        signed = Account.sign_message(encode_defunct(text=statement["message"]), player.key)
        signature = "0x" + bytes(signed.signature).hex().removeprefix("0x")
        bound = ok(
            season.http.post(
                "/creators/bind",
                json={"nonce": statement["nonce"], "signature": signature},
                headers=player.auth,
            )
        )
        season.out(f"  {player.name} bound to {CREATOR_CODE} until {bound['earns_until']}")
    season.out(f"  cora    {cora.address}  {cora.role}")


def open_center(season: Season) -> None:
    """The admin mints a Game Center to oscar; the worker's centers indexer mirrors it. (The admin
    grants itself the minter role first: the operator's key belongs to the transaction
    engine, whose nonces a transaction sent beside it would disturb.)"""
    from backend.centers.models import GameCenter
    from backend.chain.contracts import MINTER_ROLE

    season.step("the admin mints a Game Center to oscar (GameCenter.mintCenter)")
    game_center = season.contracts.game_center
    admin = season.w3.eth.account.from_key(season.deployer_key).address
    grant = game_center.functions.grantRole(MINTER_ROLE, admin).build_transaction({"from": admin})
    season.chain.send(season.deployer_key, [{"to": grant["to"], "data": grant["data"]}])
    call = game_center.functions.mintCenter(season.oscar.address, *CENTER).build_transaction(
        {"from": admin}
    )
    (tx_hash,) = season.chain.send(season.deployer_key, [{"to": call["to"], "data": call["data"]}])
    receipt = season.w3.eth.get_transaction_receipt(HexStr(tx_hash))
    (minted,) = game_center.events.CenterMinted().process_receipt(receipt)
    center_id = int(minted["args"]["centerId"])

    def mirrored() -> GameCenter | None:  # the worker's economy cycle indexes the event
        with season.sessions() as session:
            return session.get(GameCenter, center_id)

    wait_for("the center in the centers mirror", mirrored, timeout_s=60, every_s=0.3)
    season.center_id = center_id
    season.out(f"  center #{season.center_id} {CENTER[0]!r}, {CENTER[2]}, owner oscar")


def host_at_center(season: Season, tournament_id: int) -> None:
    """The Campeonato is run at the center: the center's payee takes its leg of the fee."""
    from backend.competitions.models import Tournament

    center_id = season.center_id
    if center_id is None:
        return
    with season.sessions.begin() as session:
        t = session.get(Tournament, tournament_id, with_for_update=True)
        assert t is not None
        t.center_id = center_id
    season.out(f"  the Campeonato is hosted at center #{center_id}")
