"""HTTP routers, one per aggregate."""
