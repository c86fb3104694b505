"""Chain access: contract bindings (contracts.py), and the transaction engine.

The engine turns outbox requests (``outbox.py``) into signed transactions with
nonces assigned under a database lock (``engine.py``), tracks them to a
confirmation depth and repairs drops, reorgs and stuck fees. See
docs/transactions.md.
"""
