"""The one fee schedule and a settlement's fee legs (treasury, hosting center, creators)."""
