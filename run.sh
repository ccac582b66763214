#!/bin/sh
# The main job: set up .venv, install boardlab, run a short demonstration Quixo tournament
# (ratings table printed, plots written to results/demo).
set -e
cd "$(dirname "$0")"
. ./scripts/setup.sh
.venv/bin/boardlab tournament --demo --out results/demo "$@"
