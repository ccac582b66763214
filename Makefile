# The two commands: `make run` (demo tournament) and `make test` (whole suite).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: run test install lint clean

$(BIN)/activate: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e ".[dev]"
	touch $(BIN)/activate

install: $(BIN)/activate

run: install
	$(BIN)/boardlab tournament --game quixo --demo --out results/demo

test: install
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/pytest

clean:
	rm -rf $(VENV) results
