"""Seconds from a fresh process to an agent ready to move: the first time, and every time after.

    .venv/bin/python benchmarks/startup.py [--agents SPEC@GAME ...]

For each agent a new Python process builds it and prepares it for its game (``make_agent`` and
``prepare``: imports, loading or compiling its searches), first with an empty compile cache
(``NUMBA_CACHE_DIR`` set to a new folder: the first run after an install or a change to
boardlab's sources), then twice more with that cache filled (every later run). Printed: the
seconds of the preparation (wall clock, and CPU of the process) the first time and the second
time after it, and the later run's whole process (the interpreter's start and exit included).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

from rich.console import Console
from rich.table import Table

DEFAULT = ["alphabeta@connect4", "mcts@connect4", "hybrid@quixo", "perfect@tictactoe"]

CHILD = """
import json, resource, sys, time
tic = time.perf_counter()
from boardlab.agents import make_agent
from boardlab.games import parse_game
game = parse_game(sys.argv[2])
agent = make_agent(sys.argv[1], 0, game=game)
agent.prepare(game)
usage = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"wall": time.perf_counter() - tic, "cpu": usage.ru_utime + usage.ru_stime}))
"""


def run_once(spec: str, game: str, cache: str) -> dict[str, float]:
    """One fresh process preparing ``spec`` for ``game`` with the compile cache at ``cache``."""
    env = {**os.environ, "NUMBA_CACHE_DIR": cache}
    tic = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", CHILD, spec, game], env=env, capture_output=True, text=True, check=True
    )
    figures: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    figures["process"] = time.perf_counter() - tic
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", nargs="+", default=DEFAULT, help="SPEC@GAME, e.g. alphabeta@connect4")
    args = parser.parse_args()
    table = Table(title="From a fresh process to an agent ready to move (seconds)")
    table.add_column("agent", no_wrap=True)
    table.add_column("game", no_wrap=True)
    for column in ("first", "first CPU", "later", "later CPU", "whole process"):
        table.add_column(column, justify="right")
    for item in args.agents:
        spec, _, game = item.partition("@")
        with tempfile.TemporaryDirectory() as cache:
            first = run_once(spec, game, cache)
            run_once(spec, game, cache)
            later = run_once(spec, game, cache)
        table.add_row(
            spec,
            game,
            f"{first['wall']:.1f}",
            f"{first['cpu']:.1f}",
            f"{later['wall']:.1f}",
            f"{later['cpu']:.1f}",
            f"{later['process']:.1f}",
        )
    Console().print(table)


if __name__ == "__main__":
    main()
