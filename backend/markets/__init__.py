"""Markets: the shop (first sale), the resale market, accessories and what avatars wear.

The chain is the truth; this package mirrors the Shop, Market, Accessories and AvatarNFT
events (``indexer``), books every DEW leg of a purchase or a sale (``ledger``), proves those
legs equal the DEW ``Transfer`` events of the same transactions (``ledger.reconcile_markets``)
and builds the unsigned transactions a player's wallet signs (``transactions``).
"""
