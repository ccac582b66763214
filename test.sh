#!/bin/sh
# The whole test suite: set up .venv, install boardlab with its dev tools, lint, run pytest.
set -e
cd "$(dirname "$0")"
. ./scripts/setup.sh
.venv/bin/ruff check src tests benchmarks
.venv/bin/pytest "$@"
