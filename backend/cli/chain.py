"""`dew` commands for the chain area."""

import typer

from backend.chain.exceptions import ChainError
from backend.cli.app import app
from backend.config import VAR_DIR, get_settings

# The services are imported inside each command: start-up cost (see backend/cli/__init__.py).

# --- transaction engine and workers (TX) ---------------------------------------------------


@app.command("worker")
def worker_command(
    pool: str = typer.Option("solo", help="Celery pool; solo keeps one pump per process."),
    concurrency: int = typer.Option(1, help="Processes/threads of the pool."),
    loglevel: str = typer.Option("INFO"),
) -> None:
    """Run a Celery worker for the payout and default queues (configured by DEW_BROKER_*)."""
    from backend.ops import multiproc

    settings = get_settings()
    if settings.metrics.enabled:  # before any metric exists (worker.celery_app imports them)
        multiproc.prepare(settings.metrics.multiproc_dir, VAR_DIR, "worker")
    from worker.celery_app import app as celery_app

    broker = settings.broker
    celery_app.worker_main(
        [
            "worker",
            f"--pool={pool}",
            f"--concurrency={concurrency}",
            f"--loglevel={loglevel}",
            "-Q",
            f"{broker.payouts_queue},{broker.default_queue}",
        ]
    )


@app.command("beat")
def beat_command(loglevel: str = typer.Option("INFO")) -> None:
    """Run celery beat: the periodic pump of the operator wallet and the reconciliation."""
    from worker.celery_app import app as celery_app

    celery_app.start(["beat", f"--loglevel={loglevel}"])


@app.command("outbox")
def outbox_command() -> None:
    """Counts of chain requests and transactions by state, and the open transactions."""
    from eth_account import Account
    from sqlalchemy import func, select

    from backend.chain.models import ChainRequest, ChainTx, TxStatus
    from backend.db import create_db_engine, make_session_factory

    settings = get_settings()
    sessions = make_session_factory(create_db_engine(settings.db.url))
    typer.echo(f"operator wallet: {Account.from_key(settings.chain.operator_key).address}")
    with sessions() as session:
        for model in (ChainRequest, ChainTx):
            rows = session.execute(select(model.status, func.count()).group_by(model.status)).all()
            typer.echo(f"{model.__tablename__}: " + ", ".join(f"{s}={n}" for s, n in rows))
        open_txs = session.scalars(
            select(ChainTx)
            .where(ChainTx.status.in_((TxStatus.SIGNED, TxStatus.SENT, TxStatus.MINED)))
            .order_by(ChainTx.nonce)
        ).all()
        for tx in open_txs:
            typer.echo(
                f"  nonce {tx.nonce} {tx.kind} {tx.status} {tx.tx_hash} "
                f"max_fee={tx.max_fee_per_gas} signed_at={tx.signed_at:%H:%M:%S}"
            )


@app.command("reconcile")
def reconcile_command(
    ledger: bool = typer.Option(True, help="Also reconcile the economy's ledger."),
) -> None:
    """Compare confirmed requests (and the ledger) with the contracts' events; list match ids
    someone else settled first and where those matches were paid; exit 1 on any difference."""
    from backend.chain.jobs import reconcile_operator_wallet

    try:
        report = reconcile_operator_wallet()
    except ChainError as exc:
        typer.echo(f"cannot reconcile: {exc}", err=True)
        raise typer.Exit(2) from exc
    typer.echo(
        f"checked {report.checked} confirmed requests against {report.settled_events} "
        f"MatchSettled and {report.minted_events} mint events"
    )
    differences = list(report.differences)
    for b in report.burned:
        typer.echo(
            f"SKIPPED: request {b['request_id']} (id {b['match_id']}) was settled first by "
            f"{b['settled_by_tx']}, which we did not sign"
        )
    if ledger:
        from backend.economy import jobs

        books = jobs.reconcile_economy(with_requests=False)
        typer.echo(
            f"ledger: checked {books.matches_checked} paid matches and "
            f"{books.wallets_checked} wallets"
        )
        for b in books.burned:
            paid = f"paid in tx {b['paid_in_tx']}" if b["status"] == "paid" else b["status"]
            if b["reissued_as"] is None:
                typer.echo(
                    f"COPIED: match {b['match_id']}: id {b['burned_id']} settled by "
                    f"{b['burned_by_tx']} with exactly our payouts; booked as paid, not re-issued"
                )
                continue
            typer.echo(
                f"BURNED: match {b['match_id']}: id {b['burned_id']} settled by "
                f"{b['burned_by_tx']} (paid {b['burned_paid']} wei); re-issued as "
                f"{b['reissued_as']}, now {b['paid_as']}: {paid}"
            )
        differences += books.differences
    for difference in differences:
        typer.echo(f"DIFFERENCE: {difference}")
    raise typer.Exit(0 if not differences else 1)


@app.command("cancel-tx")
def cancel_tx_command(tx_hash: str) -> None:
    """Cancel a stuck transaction: a filler at its nonce; its requests go back to the queue."""
    from backend.chain.jobs import operator_engine

    try:
        filler = operator_engine().cancel_tx(tx_hash)
    except ChainError as exc:
        typer.echo(f"cannot cancel: {exc}", err=True)
        raise typer.Exit(2) from exc
    if filler is None:
        typer.echo("not replaced (already mined, already replaced, or fees at the cap)")
        raise typer.Exit(1)
    typer.echo(f"filler {filler.tx_hash} at nonce {filler.nonce}")
