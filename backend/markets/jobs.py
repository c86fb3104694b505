"""Process-level wiring of the markets: the deployment's reader and transaction builder, and
what the worker's economy cycle and the reconciliation call."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.orm import Session, sessionmaker
from web3 import Web3

from backend.chain.contracts import Contracts, load_manifest
from backend.config import Settings
from backend.markets.chain_reader import MarketReader
from backend.markets.indexer import IndexReport, index_markets
from backend.markets.ledger import MarketsReconciliation, reconcile_markets
from backend.markets.transactions import MarketTxBuilder


@dataclass(frozen=True)
class MarketsChain:
    """One deployment's markets: its event reader and its unsigned-transaction builder."""

    reader: MarketReader
    builder: MarketTxBuilder

    @classmethod
    def of(cls, contracts: Contracts, *, confirmations: int) -> MarketsChain:
        return cls(MarketReader(contracts, confirmations=confirmations), MarketTxBuilder(contracts))


def markets_chain(settings: Settings) -> MarketsChain:
    w3 = Web3(
        Web3.HTTPProvider(
            settings.chain.rpc_url, request_kwargs={"timeout": settings.chain.rpc_timeout_s}
        )
    )
    contracts = Contracts(w3, load_manifest(settings.chain.manifest_path))
    return MarketsChain.of(contracts, confirmations=settings.economy.confirmations)


def index(
    *, settings: Settings, session_factory: sessionmaker[Session], reader: MarketReader
) -> IndexReport:
    """One indexer pass (the worker's economy cycle runs it)."""
    return index_markets(
        session_factory=session_factory,
        reader=reader,
        max_blocks=settings.economy.indexer_max_blocks,
        treasury=settings.economy.treasury,
    )


def reconcile(
    *, session_factory: sessionmaker[Session], reader: MarketReader, end_block: int | None = None
) -> MarketsReconciliation:
    with session_factory() as session:
        return reconcile_markets(session=session, reader=reader, end_block=end_block)
