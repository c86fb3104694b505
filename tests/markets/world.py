"""A markets world on a real anvil: the transaction engine with the operator's key, the
markets reader and builder, and players funded with DEW from the deployer's treasury."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from eth_account import Account
from sqlalchemy.orm import Session, sessionmaker

from backend.chain.calls import ContractCalls
from backend.chain.engine import Engine
from backend.chain.models import ChainRequest, RequestStatus
from backend.chain.rpc import Rpc
from backend.config import ChainSettings
from backend.markets import operator
from backend.markets.chain_reader import MarketReader
from backend.markets.indexer import index_markets
from backend.markets.transactions import MarketTxBuilder
from tests.economy.chain_helpers import address, send

DEW = 10**18


@dataclass
class World:
    deployment: Any
    sessions: sessionmaker[Session]
    engine: Engine
    reader: MarketReader
    builder: MarketTxBuilder

    def index(self) -> int:
        """Mine a block (the confirmation depth is 1 here, so this is for clarity) and
        run the markets indexer; returns the events applied."""
        return index_markets(session_factory=self.sessions, reader=self.reader).events

    def confirm(self, request_id: int, timeout_s: float = 30) -> ChainRequest:
        """Run the real engine until the request is final."""
        deadline = time.monotonic() + timeout_s
        while True:
            self.engine.step()
            with self.sessions() as session:
                request = session.get(ChainRequest, request_id)
                assert request is not None
                if request.status in (RequestStatus.CONFIRMED, RequestStatus.FAILED):
                    session.expunge(request)
                    return request
            assert time.monotonic() < deadline, f"request {request_id} not final in {timeout_s}s"
            time.sleep(0.05)

    def sign(self, key: str, txs: list[Any]) -> list[dict[str, Any]]:
        return [send(self.deployment.w3, key, tx) for tx in txs]

    def fund(self, key: str, amount: int) -> str:
        """Give the player ``amount`` DEW wei from the deployer (who holds the treasury)."""
        token = self.deployment.contracts.token
        who = address(key)
        send(
            self.deployment.w3, self.deployment.deployer_key, token.functions.transfer(who, amount)
        )
        return who

    def balance(self, who: str) -> int:
        return int(self.deployment.contracts.token.functions.balanceOf(who).call())

    def list_in_shop(self, key: str, **kwargs: Any) -> int:
        """The operator lists an item type (through the outbox and the engine): its id."""
        chain_id = self.deployment.manifest.chain_id
        with self.sessions.begin() as session:
            status = operator.queue_listing(
                session=session, idempotency_key=key, chain_id=chain_id, **kwargs
            )
        with self.sessions() as session:
            pending = [
                r.id
                for r in session.query(ChainRequest).filter(
                    ChainRequest.status.in_([RequestStatus.QUEUED, RequestStatus.SUBMITTED])
                )
            ]
        for request_id in [*pending, status.id]:
            assert self.confirm(request_id).status == RequestStatus.CONFIRMED
        with self.sessions() as session:
            listing_id = operator.request_status(session=session, request_id=status.id).listing_id
        assert listing_id is not None
        return listing_id


def make_world(deployment: Any, sessions: sessionmaker[Session]) -> World:
    contracts = deployment.contracts
    engine = Engine(
        session_factory=sessions,
        rpc=Rpc(deployment.anvil.rpc_url),
        account=Account.from_key(deployment.operator_key),
        chain_id=deployment.manifest.chain_id,
        calls=ContractCalls(contracts),
        settings=ChainSettings(confirmations=1, poll_interval_s=0.05, stuck_after_s=600),
    )
    return World(
        deployment=deployment,
        sessions=sessions,
        engine=engine,
        reader=MarketReader(contracts, confirmations=1),
        builder=MarketTxBuilder(contracts),
    )
