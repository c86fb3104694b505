"""The demo's story: a short season played end to end by real clients and paid on chain.

``run.run_demo`` plays it; ``season`` starts the stack and tells the story's main steps,
``players`` holds the wallets and the clients that play their seats, ``creators`` and
``markets`` the creators' and the markets' chapters, ``epilogue`` what follows the season,
``report`` the closing of the books and ``results`` what a run returns. ``dew demo`` (in
``backend.cli``) and the browser and e2e tests drive it.
"""
