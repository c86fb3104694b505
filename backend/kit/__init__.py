"""The kit every package shares, below every layer and knowing nothing of any aggregate: the
kinds of error (`errors`), the one cleaner of free text (`text`), the schema block of the
API shapes (`schemas`: an address, an idempotency key, DEW wei as a decimal string), a
socket's outbox that its writer awaits (`mailbox`) and a row read into a view's dict (`rows`)."""
