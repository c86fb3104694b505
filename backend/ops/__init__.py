"""Operations at the bottom of the house: metrics, structured logs and their redaction, the
multiprocess metrics setup and the worker heartbeat's table (docs/operations.md). Nothing here
reads the domain, so every layer may count into it or log through it. Readiness, the
operator's state and the HTTP side live in ``backend.api.ops``; the heartbeat's writer in
``worker.heartbeat``."""
