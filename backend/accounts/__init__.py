"""Wallet accounts: Sign-In with Ethereum (EIP-4361), sessions and tokens."""
