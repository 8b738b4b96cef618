# One command per habit. Each target creates .venv and installs the project when missing,
# so `make demo` and `make test` work on a fresh machine.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test test-deep mutation lint typecheck bench bench-full bench-peers screenshot clean

# No lock or constraints file: a fresh clone (CI's) gets the newest release of every
# dependency, and --upgrade-strategy eager moves an existing .venv to them too whenever
# pyproject.toml changes, so a developer runs what CI runs (issue 39: typer and click
# have no upper bound).
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet --upgrade --upgrade-strategy eager -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/python scripts/demo.py

# The README's test command, and what CI runs: lint, types, then the tests, one worker
# per core (pytest-xdist): most tests wait on git, fsync and snapline's own processes,
# and every test keeps to its own temporary directory.
test: lint typecheck
	$(BIN)/python -m pytest -q -n auto

# The replay of real histories (tests/replay/) in full: every commit of every bundle in
# tests/fixtures/, restored and checked every 5th snapshot, and this checkout's own
# first-parent git history the same way (when it has a .git). `make test` replays the
# bundles with a check point every 10th and 40th snapshot. Then the warm path's state
# machine (every warm status and verify against the cold one) in its long mode:
# `make test` runs 3 programs of 10 steps (about 2 minutes), this 40 of 30 (each
# step is real processes: about 3 minutes a program on two shared cores). And blame's
# oracle (tests/blame/: git blame on a twin repository) over every commit of each bundle
# at every 5th snapshot and 300 random histories, where `make test` runs a part and 12.
test-deep: lint typecheck
	SNAPLINE_REPLAY=deep $(BIN)/python -m pytest -q tests/replay
	SNAPLINE_REPLAY=deep SNAPLINE_STRESS=1 $(BIN)/python -m pytest -q tests/blame
	SNAPLINE_STRESS=1 $(BIN)/python -m pytest -q tests/cli/warm/test_monitor_machine.py

# The mutation score, package by package (mutmut, in a venv of its own: .venv-mutation):
# the restore path, snapshots/check/, scanning/, milestones/, cli/warm/, one at a time
# under nice -n 19 (`scripts/mutation.py --package NAME` for one), written to
# scripts/mutation-report.md (committed, beside the reasons it reads: a run is long).
# Hours on two idle cores, most of it on the survivors (mutmut runs every test of the
# package's selection that reaches each); not part of `make test` or CI.
mutation: $(STAMP)
	$(BIN)/python scripts/mutation.py

lint: $(STAMP)
	$(BIN)/ruff check snapline tests scripts benchmarks
	$(BIN)/ruff format --check snapline tests scripts benchmarks

typecheck: $(STAMP)
	$(BIN)/mypy

bench: $(STAMP)
	$(BIN)/python -m benchmarks

bench-full: $(STAMP)
	$(BIN)/python -m benchmarks --full

# Rows P1-P5: snapline against stepback and rewind-ai. Installs them from the package
# index (the one target that needs the network) into a venv of their own,
# bench-work/peers-venv, and replaces only the peers' section of docs/benchmarks.md.
bench-peers: $(STAMP)
	$(BIN)/python -m benchmarks --peers

# docs/report.png: the demo story's review page, as headless Chromium draws it. Installs
# nothing: without Chromium it says how to get it. No network: the page needs none, and
# Chromium's own background traffic is switched off.
CHROMIUM ?= /usr/bin/chromium

screenshot: $(STAMP)
	@test -x $(CHROMIUM) || { echo "make screenshot needs Chromium at $(CHROMIUM): apt-get install chromium" >&2; exit 1; }
	set -e; tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	$(BIN)/python scripts/demo.py --report "$$tmp/report.html" > "$$tmp/demo.log"; \
	$(CHROMIUM) --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$$tmp/profile" --screenshot=docs/report.png --window-size=1280,1600 \
		"file://$$tmp/report.html" 2> "$$tmp/chromium.log" || { cat "$$tmp/chromium.log" >&2; exit 1; }; \
	echo "wrote docs/report.png"

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
