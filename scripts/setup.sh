# Sourced by run.sh and test.sh: create .venv and install boardlab (editable) with dev tools.
# Needs only python3 (3.11+) and pip; re-running is cheap once installed.
PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
    "$PYTHON" -m venv .venv
fi
if [ ! -f .venv/.installed ] || [ pyproject.toml -nt .venv/.installed ]; then
    .venv/bin/python -m pip install --quiet --upgrade pip
    .venv/bin/python -m pip install --quiet -e ".[dev]"
    touch .venv/.installed
fi
