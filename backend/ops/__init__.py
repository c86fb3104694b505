"""Operations: metrics, structured logs, readiness and the worker heartbeat
(docs/operations.md). ``backend.ops.metrics`` imports nothing of ours, so every layer may
count into it; the modules that read the database or the chain are imported only by the
API, the worker and the CLI."""
