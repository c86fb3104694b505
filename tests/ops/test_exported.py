"""Every metric an alert rule or a dashboard panel names is one DEW exports.

The PromQL of deploy/prometheus/alerts.yml and deploy/grafana/dashboards/dew.json is
scanned for ``dew_*`` names; the exported ones are the families of ``backend.ops.metrics``
(with their sample suffixes) plus those the scrape-time collector yields on a database
that has a worker heartbeat, an indexer cursor and the vault's window."""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml
from prometheus_client import REGISTRY
from sqlalchemy.orm import Session

import backend.ops.metrics  # noqa: F401  (defines the process metrics)
from backend.api.ops.state import StateCollector
from backend.chain.follower import ChainCursor
from backend.db import create_db_engine
from backend.db.base import utcnow
from backend.ops.models import WorkerHeartbeat

ROOT = Path(__file__).resolve().parents[2]
NAME = re.compile(r"\bdew_[a-z0-9_]+\b")
SUFFIXES = {"counter": ("_total",), "histogram": ("_bucket", "_count", "_sum"), "gauge": ("",)}


def _named_in_deploy() -> dict[str, set[str]]:
    rules = yaml.safe_load((ROOT / "deploy/prometheus/alerts.yml").read_text())
    dashboard = json.loads((ROOT / "deploy/grafana/dashboards/dew.json").read_text())
    exprs = [r["expr"] for g in rules["groups"] for r in g["rules"]]
    exprs += [t["expr"] for p in dashboard["panels"] for t in p["targets"]]
    names: dict[str, set[str]] = {}
    for expr in exprs:
        for name in NAME.findall(str(expr)):
            names.setdefault(name, set()).add(str(expr))
    return names


def _exported(db_url: str) -> set[str]:
    engine = create_db_engine(db_url)
    with Session(engine) as session:
        session.merge(
            WorkerHeartbeat(
                worker="celery@test",
                pid=1,
                beat_at=utcnow(),
                chain_head=120,
                vault_available=str(5 * 10**18),
                vault_limit=str(50 * 10**18),
                chain_read_at=utcnow(),
            )
        )
        session.merge(ChainCursor(name="registry", next_block=100))
        session.commit()
    families = [*REGISTRY.collect(), *StateCollector(engine, 0).collect()]
    engine.dispose()
    exported = set()
    for family in families:
        for suffix in SUFFIXES.get(family.type, ("",)):
            exported.add(family.name + suffix)
    return exported


def test_every_metric_in_a_rule_or_panel_is_exported(db_url):
    named = _named_in_deploy()
    assert len(named) >= 15, "the rules and panels name the metrics of docs/operations.md"
    exported = _exported(db_url)
    missing = {name: sorted(where)[0] for name, where in named.items() if name not in exported}
    assert not missing, f"named but not exported: {missing}"


def test_the_scan_finds_a_name_that_is_not_exported(db_url):
    # The check above can fail: a misspelt metric is not among the exported names.
    assert "dew_move_latency_seconds_bucket" in _exported(db_url)
    assert "dew_moves_latency_seconds_bucket" not in _exported(db_url)
