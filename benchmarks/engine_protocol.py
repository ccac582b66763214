"""What the engine protocol costs a move: an agent asked in process against the same agent run
by ``boardlab engine`` behind the engine agent, and the C example engine.

    .venv/bin/python benchmarks/engine_protocol.py --positions 300

Every agent answers the same random Connect Four positions (2 to 20 plies from the start, seed
0); the table gives the mean and median milliseconds per move and, for the agents behind the
protocol, the cost over the same agent in process (the pipes, the position and move texts and
the other process's reading of them). The C engine (examples/engines/connect4_engine.c, built
with gcc into a temporary folder) searches six plies: its time is mostly its own thinking.
"""

from __future__ import annotations

import argparse
import random
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from boardlab.agents.base import make_agent
from boardlab.games import parse_game

ROOT = Path(__file__).resolve().parents[1]
C_ENGINE = ROOT / "examples" / "engines" / "connect4_engine.c"


def positions(count: int, seed: int) -> list[Any]:
    """``count`` open Connect Four positions, 2 to 20 random plies from the start."""
    rng, game, found = random.Random(seed), parse_game("connect4"), []
    while len(found) < count:
        state = game.initial()
        for _ in range(rng.randint(2, 20)):
            state = state.play(rng.choice(state.legal_moves()))
            if state.is_over:
                break
        if not state.is_over:
            found.append(state)
    return found


def times_per_move(spec: str, states: list[Any]) -> list[float]:
    """Milliseconds of each decision of the agent of ``spec`` on ``states`` (prepared first)."""
    agent = make_agent(spec, seed=0)
    agent.prepare(states[0].game)
    agent.act(states[0])  # the first answer may compile
    spent = []
    for state in states:
        tic = time.perf_counter()
        agent.act(state)
        spent.append((time.perf_counter() - tic) * 1000)
    close = getattr(agent, "close", None)
    if close is not None:
        close()
    return spent


def served(spec: str) -> str:
    """The engine agent's spec for ``boardlab engine SPEC`` run by this Python."""
    command = shlex.join([sys.executable, "-m", "boardlab", "engine", spec, "--seed", "0"])
    return f"engine:cmd=({command}),start=120"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=300, help="positions per agent (default 300)")
    parser.add_argument("--seed", type=int, default=0, help="the positions' seed (default 0)")
    args = parser.parse_args()
    states = positions(args.positions, args.seed)
    table = Table(title=f"Milliseconds per move on {len(states)} Connect Four positions")
    for column in ("agent", "how", "mean ms", "median ms", "over in process"):
        table.add_column(column, justify="left" if column in ("agent", "how") else "right")
    for spec in ("random", "greedy", "alphabeta:depth=4"):
        own = times_per_move(spec, states)
        piped = times_per_move(served(spec), states)
        table.add_row(spec, "in process", f"{statistics.mean(own):.3f}", f"{statistics.median(own):.3f}", "")
        over = statistics.median(piped) - statistics.median(own)
        table.add_row(
            spec,
            "boardlab engine",
            f"{statistics.mean(piped):.3f}",
            f"{statistics.median(piped):.3f}",
            f"+{over:.3f} ms",
        )
    with tempfile.TemporaryDirectory() as folder:
        program = Path(folder) / "connect4_engine"
        subprocess.run(["gcc", "-O2", "-o", str(program), str(C_ENGINE)], check=True)
        c_times = times_per_move(f"engine:cmd={program}", states)
    table.add_row(
        "connect4_engine.c",
        "engine",
        f"{statistics.mean(c_times):.3f}",
        f"{statistics.median(c_times):.3f}",
        "",
    )
    Console().print(table)


if __name__ == "__main__":
    main()
