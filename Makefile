# One command per habit. Each target creates .venv and installs the project when missing,
# so `make demo` and `make test` work on a fresh machine.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint typecheck bench bench-full clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/python scripts/demo.py

# The README's test command, and what CI runs: lint, types, then the tests.
test: lint typecheck
	$(BIN)/python -m pytest -q

lint: $(STAMP)
	$(BIN)/ruff check snapline tests scripts benchmarks
	$(BIN)/ruff format --check snapline tests scripts benchmarks

typecheck: $(STAMP)
	$(BIN)/mypy

bench: $(STAMP)
	$(BIN)/python -m benchmarks

bench-full: $(STAMP)
	$(BIN)/python -m benchmarks --full

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
