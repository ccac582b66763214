# Sourced by run.sh and test.sh: create .venv and install boardlab (editable) with every extra
# (torch, web, bridges, ray) and the dev tools. Needs only python3 (3.11+) and pip; re-running is
# cheap once installed. PyTorch goes in first, pinned to 2.13.0, so that the `torch` extra's range is
# already satisfied; from PyPI on Linux that is the multi-GB CUDA build, and a CPU build installed
# into .venv before (README.md, "Two commands") satisfies the pin and is kept.
PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
    "$PYTHON" -m venv .venv
fi
if [ ! -f .venv/.installed ] || [ pyproject.toml -nt .venv/.installed ]; then
    .venv/bin/python -m pip install --quiet --upgrade pip
    .venv/bin/python -m pip install --quiet "torch==2.13.0"
    .venv/bin/python -m pip install --quiet -e ".[dev,torch,web,bridges,ray]"
    touch .venv/.installed
fi
