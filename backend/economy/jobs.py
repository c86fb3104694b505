"""Process-level wiring of the economy: what worker tasks, the CLI and the demo call.

``plan_finished_matches`` consumes the settlement queue (``SettlementRequest``, which the
server writes through ``settlement.queue_match`` in the transaction that finishes a match).
Each row is planned in the same transaction that marks it ``planned``, so a match is
planned exactly once even with several workers (rows are locked, skipping locked ones).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from functools import lru_cache
from types import SimpleNamespace

from sqlalchemy import MetaData, Table, case, func, select, update
from sqlalchemy.orm import Session, sessionmaker
from web3 import Web3

from backend.chain import match_ids
from backend.chain.contracts import Contracts, load_manifest
from backend.config import Settings, get_settings
from backend.db import create_db_engine, dialect, make_session_factory
from backend.db.base import aware, utcnow
from backend.economy import ledger, reports, settlement
from backend.economy.centers_indexer import index_centers
from backend.economy.chain_reader import ChainReader
from backend.economy.exceptions import EconomyError
from backend.economy.fees.schedule import FeeRecipients, FeeSchedule
from backend.economy.models import BurnedMatchId, SettlementRequest
from backend.economy.policy import FinishedMatch, PolicyError, RewardPolicy, TableEconomy
from backend.economy.policy import default_policies as _defaults
from backend.economy.scholarships.indexer import index_registry
from backend.economy.stakes import index_deposits
from backend.markets import jobs as markets_jobs
from backend.markets.chain_reader import MarketReader

logger = logging.getLogger(__name__)


def policies(settings: Settings) -> dict[TableEconomy, RewardPolicy]:
    """The rewards policies; the staked pot's rake comes from the one fee schedule."""
    return _defaults(
        fee_bps=settings.fees.rake_bps, emission_per_seat=settings.economy.emission_per_seat
    )


def fee_schedule(settings: Settings) -> FeeSchedule:
    """The one fee schedule (``DEW_FEES_*``)."""
    return FeeSchedule.from_settings(settings.fees)


def chain_reader(settings: Settings) -> ChainReader:
    w3 = Web3(
        Web3.HTTPProvider(
            settings.chain.rpc_url, request_kwargs={"timeout": settings.chain.rpc_timeout_s}
        )
    )
    contracts = Contracts(w3, load_manifest(settings.chain.manifest_path))
    return ChainReader(contracts, confirmations=settings.economy.confirmations)


_reflected: dict[str, Table] = {}


@dataclass
class PlanReport:
    planned: list[str] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)


def plan_finished_matches(
    *,
    session_factory: sessionmaker[Session],
    settings: Settings,
    limit: int = 100,
    chain_clock_offset_s: int = 0,
    recipients: FeeRecipients | None = None,
) -> PlanReport:
    """Plan every pending finished match (one transaction per match); bad rows are
    marked ``rejected`` with the reason and never block the others.

    ``chain_clock_offset_s`` (chain time minus this machine's, ``ChainReader.clock_offset_s``)
    turns a match's ``finished_at`` into the chain time it was played at, which decides the
    agreement its avatar rewards are split by: 0 on a real network, the warp on a dev chain.
    ``recipients`` names the center and creator legs of each fee (none: all to the treasury).
    """
    report = PlanReport()
    rules = policies(settings)
    schedule = fee_schedule(settings)
    while len(report.planned) + len(report.rejected) < limit:
        with session_factory() as session, session.begin():
            query = (
                select(SettlementRequest.__table__)
                .where(SettlementRequest.status == "pending")
                .order_by(SettlementRequest.id)
                .limit(1)
                .with_for_update(skip_locked=True)
            )
            row = session.execute(query).mappings().first()
            if row is None:
                break
            values = {"updated_at": utcnow(), "attempts": row["attempts"] + 1}
            try:
                with session.begin_nested():
                    finished = FinishedMatch.from_settlement_row(SimpleNamespace(**row))
                    settlement.plan_settlement(
                        session=session,
                        match=finished,
                        finished_at=row["finished_at"],
                        policies=rules,
                        treasury=settings.economy.treasury,
                        chain_id=settings.chain.chain_id,
                        played_at_s=int(aware(row["finished_at"]).timestamp())
                        + chain_clock_offset_s,
                        emission_per_wallet_per_day=settings.economy.emission_per_wallet_per_day,
                        schedule=schedule,
                        recipients=recipients,
                    )
                values["status"] = "planned"
                report.planned.append(row["match_id"])
            except (PolicyError, EconomyError, ValueError) as exc:
                logger.error("settlement of match %s rejected: %s", row["match_id"], exc)
                values.update(status="rejected", last_error=str(exc))
                report.rejected.append(row["match_id"])
            session.execute(
                update(SettlementRequest).where(SettlementRequest.id == row["id"]).values(**values)
            )
    return report


SEQUENCE_TABLE = "chain_match_sequences"
# The furthest one pass moves the issuing sequence past ids found settled ahead of it: a thief
# settling an id near the end of the 23-byte range must not make the server run out of ids.
MAX_SEQUENCE_SKIP = 1_000_000


def skip_burned_sequence(
    *, session_factory: sessionmaker[Session], reader: ChainReader, prefix: int
) -> int | None:
    """Move this deployment's issuing sequence past ids of ours that were settled before we
    issued them (a thief burning our future ids); returns the new last number, if moved.

    Every id above the sequence's last number that is settled on chain was settled by
    someone else (we send only ids we issued), and a match that got one would only be
    skipped and re-issued. The sequence lives in the server's table (reflected from the
    database: the economy never imports ``backend.tables``); the update only ever raises
    it, under the row lock finishing matches take, so a number is never issued twice.
    Skipped numbers are simply never used."""
    db = session_factory.kw["bind"]
    key = f"{prefix:016x}"
    cache = f"{db.url}#{SEQUENCE_TABLE}"
    if cache not in _reflected:
        _reflected[cache] = Table(SEQUENCE_TABLE, MetaData(), autoload_with=db)
    table = _reflected[cache]
    with session_factory() as session:
        last = session.scalar(select(table.c["last"]).where(table.c.prefix == key)) or 0
        # Thieves settle our future ids no earlier than the first burn we saw.
        from_block = session.scalar(select(func.min(BurnedMatchId.foreign_block)))
    if from_block is None:
        return None
    highest = last
    for event in reader.settled_matches(start=from_block):
        chain_id = "0x" + bytes(event["args"]["matchId"]).hex()
        parsed = match_ids.parse(chain_id)
        if (
            parsed.tag == match_ids.TAG_EARNING
            and parsed.prefix == prefix
            and last < parsed.sequence <= last + MAX_SEQUENCE_SKIP
        ):
            highest = max(highest, parsed.sequence)
    if highest == last:
        return None
    with session_factory() as session, session.begin():
        session.execute(
            dialect.insert(db, table)
            .values(prefix=key, last=highest)
            .on_conflict_do_update(
                index_elements=[table.c.prefix],
                set_={"last": case((table.c["last"] < highest, highest), else_=table.c["last"])},
            )
        )
    logger.warning(
        "chain match ids %s..%s of prefix %s were settled before we issued them; the sequence "
        "skips them",
        last + 1,
        highest,
        key,
    )
    return highest


def sync_ledger(*, session_factory: sessionmaker[Session], reader: ChainReader) -> dict[str, int]:
    """Book confirmed settlements as paid and failed ones as failed; re-issue matches whose
    ids someone else settled first."""
    with session_factory() as session, session.begin():
        report = ledger.sync_settlements(session=session, reader=reader)
    for mismatch in report.mismatches:
        logger.error("ledger sync: %s", mismatch)
    return {
        "paid": report.paid,
        "failed": report.failed,
        "waiting": report.waiting,
        "reissued": report.reissued,
    }


def reconcile(
    *, session_factory: sessionmaker[Session], reader: ChainReader
) -> ledger.LedgerReconciliation:
    with session_factory() as session:
        return ledger.reconcile_ledger(session=session, reader=reader)


@lru_cache
def _process_wiring() -> tuple[Settings, sessionmaker[Session], ChainReader]:
    """Settings, sessions and the chain reader of this process (built once, for tasks)."""
    settings = get_settings()
    db = create_db_engine(settings.db.url, echo=settings.db.echo)
    return settings, make_session_factory(db), chain_reader(settings)


def economy_cycle(recipients: FeeRecipients | None = None) -> dict[str, int]:
    """One periodic pass for a worker task: follow the registry and the vault deposits,
    plan finished matches into the chain outbox (fees split with ``recipients``), and book
    confirmed settlements."""
    settings, sessions, reader = _process_wiring()
    max_blocks = settings.economy.indexer_max_blocks
    indexed = index_registry(session_factory=sessions, reader=reader, max_blocks=max_blocks)
    deposits = index_deposits(session_factory=sessions, reader=reader, max_blocks=max_blocks)
    centers = index_centers(session_factory=sessions, reader=reader, max_blocks=max_blocks)
    planned = plan_finished_matches(
        session_factory=sessions,
        settings=settings,
        chain_clock_offset_s=reader.clock_offset_s(),
        recipients=recipients,
    )
    booked = sync_ledger(session_factory=sessions, reader=reader)
    market_events = index_markets(settings=settings, session_factory=sessions, reader=reader)
    if booked["reissued"]:
        prefix = match_ids.deployment_prefix(
            settings.chain.deployment_name, settings.chain.chain_id
        )
        skip_burned_sequence(session_factory=sessions, reader=reader, prefix=prefix)
    return {
        "registry_events": indexed.events,
        "market_events": market_events,
        "deposits": deposits.credited,
        "center_events": centers.events,
        "planned": len(planned.planned),
        "rejected": len(planned.rejected),
        **booked,
    }


def reconcile_economy(*, with_requests: bool = True) -> ledger.LedgerReconciliation:
    """The books-versus-chain proof for a worker task, wired from settings alone."""
    settings, sessions, reader = _process_wiring()
    return reconcile_books(
        settings=settings, session_factory=sessions, reader=reader, with_requests=with_requests
    )


def reconcile_books(
    *,
    settings: Settings,
    session_factory: sessionmaker[Session],
    reader: ChainReader,
    with_requests: bool = True,
) -> ledger.LedgerReconciliation:
    """Both reconciliations at the same confirmed head, as one report.

    The TX engine's (every confirmed request has exactly its ``MatchSettled``/mint events and
    no event lacks a request) and the ledger's (per match, avatar and wallet, see
    ``ledger.reconcile_ledger``)."""
    report = reconcile(session_factory=session_factory, reader=reader)
    _add_withdrawals(report, session_factory=session_factory, reader=reader)
    _add_markets(report, session_factory=session_factory, reader=reader)
    if with_requests:
        from backend.chain.calls import ContractCalls
        from backend.chain.reconcile import reconcile as reconcile_requests
        from backend.chain.rpc import Rpc

        rpc = Rpc(settings.chain.rpc_url, timeout_s=settings.chain.rpc_timeout_s)
        try:
            requests = reconcile_requests(
                session_factory=session_factory,
                rpc=rpc,
                calls=ContractCalls(reader.contracts),
                chain_id=settings.chain.chain_id,
                confirmations=settings.economy.confirmations,
            )
        finally:
            rpc.close()
        report.differences += [f"chain requests: {d}" for d in requests.differences]
    return report


def _add_withdrawals(
    report: ledger.LedgerReconciliation,
    *,
    session_factory: sessionmaker[Session],
    reader: ChainReader,
) -> None:
    """Withdrawals against their ``MatchSettled`` events and the stake books (one report)."""
    from backend.economy.withdrawals import reconcile_withdrawals

    with session_factory() as session:
        found = reconcile_withdrawals(session=session, reader=reader)
    report.withdrawals_paid = found.paid_total
    report.differences += [f"withdrawals: {d}" for d in found.differences or []]


def market_reader(reader: ChainReader) -> MarketReader:
    """The markets' event reader over the same deployment and confirmation depth."""
    return MarketReader(reader.contracts, confirmations=reader.confirmations)


def index_markets(
    *, settings: Settings, session_factory: sessionmaker[Session], reader: ChainReader
) -> int:
    """Follow the shop, market and accessory events into the markets mirror and ledger."""
    return markets_jobs.index(
        settings=settings, session_factory=session_factory, reader=market_reader(reader)
    ).events


def _add_markets(
    report: ledger.LedgerReconciliation,
    *,
    session_factory: sessionmaker[Session],
    reader: ChainReader,
) -> None:
    """Every shop purchase and market sale against the DEW transfers of its transaction."""
    found = markets_jobs.reconcile(session_factory=session_factory, reader=market_reader(reader))
    report.markets = found
    report.differences += [f"markets: {d}" for d in found.differences]


def wallet_rows(
    *, session: Session, reader: ChainReader, addresses: list[str]
) -> list[dict[str, object]]:
    """One row per wallet for the demo's final table: roles, what the ledger says it earned
    (in total and per role), the settlement transactions that paid it, and its DEW balance
    read from the token (independently of the ledger)."""
    rows = []
    token = reader.contracts.token
    for address in addresses:
        summary = reports.wallet_summary(session=session, address=address)
        lines = reports.wallet_statement(session=session, address=address, limit=10_000)
        by_role = summary["by_role"]
        assert isinstance(by_role, dict)
        rows.append(
            {
                "address": summary["address"],
                "roles": sorted(by_role),
                "earned": summary["earned"],
                "paid": summary["paid"],
                "pending": summary["pending"],
                **{
                    f"as_{role}": by_role.get(role, {}).get("paid", 0)
                    + by_role.get(role, {}).get("pending", 0)
                    for role in ("owner", "manager", "scholar", "wallet")
                },
                "tx_hashes": sorted({str(x["tx_hash"]) for x in lines if x["tx_hash"]}),
                "dew_balance": token.functions.balanceOf(summary["address"]).call(),
            }
        )
    return rows
