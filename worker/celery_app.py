"""The Celery application: broker, queues and the beat schedule all come from settings.

Embedded default: kombu's SQLAlchemy transport on a SQLite file (no server needed).
Production: ``DEW_BROKER_URL=redis://...``. Start with ``dew worker`` and ``dew beat``.
"""

from __future__ import annotations

import logging

from celery import Celery
from celery.signals import after_setup_logger, beat_init, worker_init
from sqlalchemy.exc import IntegrityError

from backend.config import get_settings


def create_app() -> Celery:
    settings = get_settings()
    broker = settings.broker
    app = Celery("dew", include=["worker.tasks"])
    app.conf.update(
        broker_url=broker.url,
        result_backend=broker.result_backend,
        task_ignore_result=broker.result_backend is None,
        task_default_queue=broker.default_queue,
        task_routes={
            "worker.tasks.pump_wallet_task": {"queue": broker.payouts_queue},
            "worker.tasks.reconcile_task": {"queue": broker.default_queue},
        },
        worker_prefetch_multiplier=broker.prefetch_multiplier,
        # Late acks are opted into per task (only the idempotent ones).
        task_acks_late=False,
        task_reject_on_worker_lost=False,
        broker_connection_retry_on_startup=True,
        task_serializer="json",
        accept_content=["json"],
        timezone="UTC",
        beat_schedule={
            "pump-operator-wallet": {
                "task": "worker.tasks.pump_wallet_task",
                "schedule": broker.pump_every_s,
            },
            "reconcile-chain-requests": {
                "task": "worker.tasks.reconcile_task",
                "schedule": broker.reconcile_every_s,
            },
            "economy-cycle": {
                "task": "worker.tasks.economy_cycle_task",
                "schedule": settings.economy.settle_every_s,
            },
            "advance-tournaments": {
                "task": "worker.tasks.advance_tournaments_task",
                "schedule": settings.competitions.advance_every_s,
            },
            "reconcile-economy": {
                "task": "worker.tasks.reconcile_economy_task",
                "schedule": broker.reconcile_every_s,
            },
        },
    )
    if broker.url.startswith("sqla+sqlite"):
        from pathlib import Path

        Path(broker.url.split("sqlite:///", 1)[1]).parent.mkdir(parents=True, exist_ok=True)
    return app


@after_setup_logger.connect
def _quiet_http_client(**_kwargs: object) -> None:
    # httpx logs every JSON-RPC call at INFO; the engine logs what matters.
    logging.getLogger("httpx").setLevel(logging.WARNING)


def declare_queues(celery: Celery, attempts: int = 3) -> None:
    """Create the broker's queues before this process uses them, tolerating another process
    doing the same. kombu's SQLAlchemy transport creates a queue's row on first use under a
    lock that holds only within one process, so a worker and beat starting side by side on
    the SQLite broker could both insert it; the loser's ``UNIQUE constraint failed:
    kombu_queue.name`` used to stop beat's schedule for good. The retry finds the row."""
    broker = get_settings().broker
    for attempt in range(1, attempts + 1):
        try:
            with celery.connection_for_write() as connection:
                for name in (broker.default_queue, broker.payouts_queue):
                    connection.default_channel.queue_declare(queue=name)
            return
        except IntegrityError:
            if attempt == attempts:
                raise


@worker_init.connect
def _declare_queues_for_worker(**_kwargs: object) -> None:
    declare_queues(app)


@beat_init.connect
def _declare_queues_for_beat(**_kwargs: object) -> None:
    declare_queues(app)


app = create_app()
