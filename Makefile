# The two commands a newcomer needs: `make demo` (main job) and `make test` (whole suite).
# Every target installs what is missing first.
SHELL := /bin/bash
# uv from PATH, else as the module that `pip install uv` provides (no PATH or shim needed).
UV ?= $(shell command -v uv 2>/dev/null || echo "python3 -m uv")
CONTRACTS := contracts
# ESLint for the web client (backend/web), kept apart so that nothing of it is served or packaged.
ESLINT := tools/eslint

.PHONY: install py-install contracts-install eslint-install browser-install demo test lint lint-web \
	test-py test-contracts bench

install: py-install contracts-install browser-install

py-install:
	@$(UV) --version >/dev/null 2>&1 || python3 -m pip install --quiet uv \
	  || python3 -m pip install --quiet --break-system-packages uv \
	  || (apt-get update -qq && apt-get install -y -qq python3-pip \
	      && python3 -m pip install --quiet --break-system-packages uv)
	$(UV) sync --locked

contracts-install: $(CONTRACTS)/node_modules/.package-lock.json

# npm ci only when the lock file changed since the last install (it wipes node_modules).
$(CONTRACTS)/node_modules/.package-lock.json: $(CONTRACTS)/package-lock.json
	@command -v npm >/dev/null 2>&1 || (apt-get update -qq && apt-get install -y -qq nodejs npm)
	cd $(CONTRACTS) && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

eslint-install: $(ESLINT)/node_modules/.package-lock.json

$(ESLINT)/node_modules/.package-lock.json: $(ESLINT)/package-lock.json
	@command -v npm >/dev/null 2>&1 || (apt-get update -qq && apt-get install -y -qq nodejs npm)
	cd $(ESLINT) && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

# The web client's tests drive Debian's Chromium through Playwright (a Python dev dependency);
# Playwright never downloads a browser of its own.
browser-install:
	@test -x /usr/bin/chromium || (apt-get update -qq \
	  && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium)

# `make demo DEMO_ARGS=--stay` keeps the web client serving after the season.
DEMO_ARGS ?=
# The demo needs no browser: Chromium is installed for the tests only.
demo: py-install contracts-install
	$(UV) run dew demo $(DEMO_ARGS)

# What `make lint`, `make test-contracts`, `make test-py` and `make test` run, once each.
LINT_PY = $(UV) run ruff check . && $(UV) run ruff format --check . \
	&& $(UV) run mypy --strict backend worker && $(UV) run lint-imports
# eslint:recommended, browser globals, ES modules, lines of at most 120 characters;
# protocol.js is generated (scripts/gen_protocol_js.py) and checked by tests/web/test_protocol.py.
LINT_WEB = cd $(ESLINT) && npm run --silent lint
FORGE = cd $(CONTRACTS) && npm run --silent build && npm run --silent test
SLITHER = $(UV) run python scripts/slither_check.py
# pytest-xdist workers, one per core of our 2-core CI machines; tests/conftest.py hands out
# whole modules (docs/testing.md). `make test-py PYTEST_WORKERS=0` runs in one process.
PYTEST_WORKERS ?= 2
PYTEST = $(UV) run pytest -n $(PYTEST_WORKERS)

lint: py-install lint-web
	$(LINT_PY)

lint-web: eslint-install
	$(LINT_WEB)

test-contracts: contracts-install py-install
	$(FORGE)
	$(SLITHER)

test-py: install
	$(PYTEST)

# `make test` prints `phase <name>: <N> s` after each phase and the whole in the end.
# $(call timed,<phase>,<command>): run the command in a subshell, print its time, keep its status.
timed = @t0=$$(date +%s); ( $(2) ); rc=$$?; echo "phase $(1): $$(( $$(date +%s) - t0 )) s"; \
	exit $$rc
MAKE_T0 := $(shell date +%s)

test:
	$(call timed,install,$(MAKE) --no-print-directory install eslint-install)
	$(call timed,lint,( $(LINT_WEB) ) && $(LINT_PY))
	$(call timed,forge,$(FORGE))
	$(call timed,slither,$(SLITHER))
	$(call timed,pytest,$(PYTEST))
	@echo "make test: $$(( $$(date +%s) - $(MAKE_T0) )) s in all"

# Benchmarks print figures against a same-run baseline; they are never part of `make test`.
BENCH_ARGS ?=
bench: install
	$(UV) run python scripts/bench_engine.py $(BENCH_ARGS)
	$(UV) run python scripts/bench_bots.py $(BENCH_ARGS)
	$(UV) run python scripts/bench_gas.py $(BENCH_ARGS)
	$(UV) run python scripts/bench_payouts.py $(BENCH_ARGS)
	$(UV) run python scripts/bench_server.py $(BENCH_ARGS)
	$(UV) run python scripts/bench_web.py $(BENCH_ARGS)
	$(UV) run python scripts/bench_tournament.py $(BENCH_ARGS)
	$(UV) run python scripts/bench_launcher.py $(BENCH_ARGS)
