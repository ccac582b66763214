"""Alpha-beta nodes per second of two source trees, measured side by side in one run.

    git worktree add /tmp/old 7f0f080
    .venv/bin/python benchmarks/alphabeta_speed.py /tmp/old . --rounds 5

Each tree gets one worker process per game (``PYTHONPATH=TREE/src``), which compiles the
search once and then, each time it is asked, searches the same random positions to a fixed
depth with fresh tables and reports nodes and seconds. The workers are asked in turn, old then
new then old..., so that a machine shared with other jobs slows both alike. The table gives
the nodes (the same in both trees when the search itself did not change), the median nodes
per second of each tree over the rounds and new/old, and new/old of the best rounds (the
least disturbed by other jobs).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

WORKLOADS = {"quixo": 6, "connect4": 10}
"""Game spec and fixed depth of each workload."""


def _runner_class() -> Any:
    try:
        from boardlab.search.alphabeta import SearchRunner
    except ImportError:  # a tree from before the search package
        from boardlab.agents.alphabeta import SearchRunner  # type: ignore[no-redef]
    return SearchRunner


def _positions(game: Any, count: int, seed: int) -> list[tuple[int, int]]:
    import numpy as np

    rng = np.random.default_rng(seed)
    out: list[tuple[int, int]] = []
    while len(out) < count:
        state = game.initial()
        for _ in range(int(rng.integers(4, 20))):
            if state.is_over:
                break
            state = state.play_index(int(rng.choice(state.legal_indices())))
        if not state.is_over:
            out.append((int(state.words[0]), int(state.words[1])))
    return out


def worker(game_spec: str, depth: int, count: int) -> None:
    """Answer each line on stdin with one timed pass over the positions, as JSON."""
    import time

    import numpy as np

    from boardlab.games import parse_game

    game = parse_game(game_spec)
    runner = _runner_class()(game.kernel, "", tt_log2=20, win_probe=True)
    jitter = np.zeros(game.kernel.num_actions)
    positions = _positions(game, count, 2026)
    runner.search(*positions[0], 2, jitter)  # compiled before timing
    print("ready", flush=True)
    for _ in sys.stdin:
        nodes, seconds = 0, 0.0
        for me, opp in positions:
            runner.reset()
            start = time.perf_counter()
            nodes += runner.search(me, opp, depth, jitter)[2]
            seconds += time.perf_counter() - start
        print(json.dumps({"nodes": nodes, "seconds": seconds}), flush=True)


def _start(tree: Path, game: str, depth: int, count: int) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(tree.resolve() / "src")}
    command = [sys.executable, __file__, "--worker", game, str(depth), str(count)]
    process = subprocess.Popen(command, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    if process.stdout.readline().strip() != "ready":
        raise RuntimeError(f"the worker for {tree} ({game}) did not start")
    return process


def _ask(process: subprocess.Popen[str]) -> dict[str, float]:
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write("go\n")
    process.stdin.flush()
    return json.loads(process.stdout.readline())


def main() -> int:
    """Run the comparison; returns the exit status."""
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        worker(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("old", type=Path, help="the old source tree (holding src/boardlab)")
    parser.add_argument("new", type=Path, help="the new source tree")
    parser.add_argument("--rounds", type=int, default=5, help="timed passes per tree and game")
    parser.add_argument("--positions", type=int, default=8, help="random positions per game")
    parser.add_argument("--games", nargs="+", default=list(WORKLOADS), choices=list(WORKLOADS))
    args = parser.parse_args()
    for option in ("rounds", "positions"):
        if getattr(args, option) < 1:
            parser.error(f"--{option.replace('_', '-')} must be at least 1, got {getattr(args, option)}")
    header = ("game", "depth", "nodes old", "nodes new", "old n/s", "new n/s", "new/old", "best new/old")
    print(f"{header[0]:<10}" + "".join(f" {h:>12}" for h in header[1:]))
    for game in args.games:
        depth = WORKLOADS[game]
        workers = [_start(tree, game, depth, args.positions) for tree in (args.old, args.new)]
        rates: list[list[float]] = [[], []]
        nodes = [0, 0]
        try:
            for _ in range(args.rounds):
                for i, process in enumerate(workers):
                    result = _ask(process)
                    nodes[i] = int(result["nodes"])
                    rates[i].append(result["nodes"] / result["seconds"])
        finally:
            for process in workers:
                assert process.stdin is not None
                process.stdin.close()
                process.wait()
        old, new = (statistics.median(r) for r in rates)
        cells = (str(depth), f"{nodes[0]:,}", f"{nodes[1]:,}", f"{old:,.0f}", f"{new:,.0f}")
        cells += (f"{new / old:.3f}", f"{max(rates[1]) / max(rates[0]):.3f}")
        print(f"{game:<10}" + "".join(f" {c:>12}" for c in cells), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
