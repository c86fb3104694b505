"""Chain access: contract bindings (contracts.py), and the transaction engine.

The engine (``engine.py``) turns outbox requests (``outbox.py``) into signed
transactions (``sender.py``) with nonces assigned under a database lock
(``nonces.py``), tracks them to a confirmation depth and repairs drops, reorgs
and stuck fees (``tracker.py``, ``fees.py``). See docs/transactions.md.
"""
