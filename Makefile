# The two commands a newcomer needs: `make demo` (main job) and `make test` (whole suite).
# Every target installs what is missing first.
SHELL := /bin/bash
UV ?= $(shell command -v uv 2>/dev/null || echo "$(HOME)/.local/bin/uv")
CONTRACTS := contracts

.PHONY: install py-install contracts-install demo test lint test-py test-contracts bench

install: py-install contracts-install

py-install:
	@command -v uv >/dev/null 2>&1 || [ -x "$(UV)" ] || python3 -m pip install --quiet uv
	$(UV) sync --frozen

contracts-install:
	@if [ -f $(CONTRACTS)/package.json ]; then \
	  command -v npm >/dev/null 2>&1 || (apt-get update -qq && apt-get install -y -qq nodejs npm); \
	  cd $(CONTRACTS) && npm ci --no-audit --no-fund --loglevel=error; \
	fi

demo: py-install
	$(UV) run dew play

lint: py-install
	$(UV) run ruff check .
	$(UV) run ruff format --check .
	$(UV) run mypy backend/game
	$(UV) run lint-imports

test-contracts: contracts-install
	@if [ -f $(CONTRACTS)/foundry.toml ]; then cd $(CONTRACTS) && npm run --silent build && npm run --silent test; fi

test-py: install
	$(UV) run pytest

test: lint test-contracts test-py

# Benchmarks print figures against a same-run baseline; they are never part of `make test`.
BENCH_ARGS ?=
bench: install
	$(UV) run python scripts/bench_engine.py $(BENCH_ARGS)
	$(UV) run python scripts/bench_bots.py $(BENCH_ARGS)
	$(UV) run python scripts/bench_gas.py $(BENCH_ARGS)
	$(UV) run python scripts/bench_payouts.py $(BENCH_ARGS)
	$(UV) run python scripts/bench_server.py $(BENCH_ARGS)
