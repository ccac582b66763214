#!/bin/sh
# The whole test suite: set up .venv, install boardlab with its dev tools, lint and check the
# formatting, check that every room imports only the rooms below it (pyproject.toml,
# [tool.importlinter]), check the types (pyproject.toml, [tool.mypy]), run pytest on two
# processes (a test file stays on one of them). docs/contributing.md says how to run a part.
set -e
cd "$(dirname "$0")"
. ./scripts/setup.sh
.venv/bin/ruff check src tests benchmarks examples scripts
.venv/bin/ruff format --check src tests benchmarks examples scripts
.venv/bin/lint-imports --no-cache
.venv/bin/mypy
./scripts/ensure_chromium.sh
.venv/bin/pytest -n 2 --dist loadfile "$@"
