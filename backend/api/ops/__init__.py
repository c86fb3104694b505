"""The API's side of operations: ``/metrics``, ``/health`` and ``/ready`` with the request-id
and latency middleware (``http``), readiness checks (``readiness``) and the operator's state
gauges (``state``), which read the database, the chain and the worker heartbeats."""
