"""MCTS simulations per second: compiled UCT with random rollouts, and the batched cycle.

    .venv/bin/python benchmarks/mcts_speed.py [--repeats 5] [--sims 20000]
    .venv/bin/python benchmarks/mcts_speed.py --against /tmp/old     # a checkout to compare

Printed:
- UCT with one random rollout per leaf (``mcts_search``, the ``mcts`` agent's search) on
  Quixo 5x5 and Connect Four, from the start and three seeded random positions: simulations
  per second, the median of the repeats;
- the batched cycle (collect leaves with virtual loss, one evaluator call, complete) with
  PUCT and an evaluator that costs nothing (uniform priors, value 0) on Connect Four, per
  batch size: the tree's own cost, which a network evaluator adds to;
- with ``--against DIR``: the same UCT figures for the checkout at ``DIR`` (its ``src``),
  measured in two long-lived child processes asked in turn with the same seeds, and the
  ratio of this checkout to that one; both must grow the same trees, which is checked.

Figures are per CPU-second of the measuring process (``time.process_time``), which other
load on a shared machine disturbs far less than the wall clock; one process per checkout,
one core each; compile time is excluded (every figure follows a warm-up). The alternating
ratio is the figure to read.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

GAMES = ("quixo", "connect4")
ROLLOUT_CAP = 200
C = 1.4


def _mcts_search() -> Any:
    try:
        from boardlab.search.mcts import mcts_search
    except ImportError:  # checkouts from before search/ kept it beside the agent
        from boardlab.agents.mcts import mcts_search  # type: ignore[no-redef]
    return mcts_search


def positions(spec: str, seed: int) -> list[Any]:
    """The start and three positions after 4, 8 and 12 seeded random moves."""
    from boardlab.games import parse_game

    game = parse_game(spec)
    rng = np.random.default_rng(seed)
    out = [game.initial()]
    for plies in (4, 8, 12):
        state = game.initial()
        for _ in range(plies):
            options = [a for a in state.legal_indices() if not state.play_index(a).is_over]
            state = state.play_index(int(rng.choice(options)))
        out.append(state)
    return out


def uct_rate(spec: str, sims: int, seed: int) -> tuple[float, list[int]]:
    """Simulations per CPU-second of UCT from each position, and the root visits of the chosen
    moves (the fingerprint of the trees grown)."""
    mcts_search = _mcts_search()
    states = positions(spec, seed)
    kernel = states[0].kernel
    mcts_search(kernel, *states[0].words, 100, 0.0, C, ROLLOUT_CAP, np.random.default_rng(0))
    fingerprint = []
    start = time.process_time()
    for i, state in enumerate(states):
        result, tree = mcts_search(
            kernel, *state.words, sims, 0.0, C, ROLLOUT_CAP, np.random.default_rng(seed + i)
        )
        moves, visits, _ = tree.root_children()
        fingerprint.append(int(visits[list(moves).index(result.move)]))
    return sims * len(states) / (time.process_time() - start), fingerprint


def batched_rate(sims: int, batch: int) -> float:
    """Simulations/s of the batched cycle on Connect Four with an evaluator that costs nothing."""
    from boardlab.games import parse_game
    from boardlab.search.mcts import PUCT, Search

    class Flat:
        def evaluate(self, words: np.ndarray, legal: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            return legal.astype(np.float64), np.zeros(len(words))

    state = parse_game("connect4").initial()

    def run(n: int) -> float:
        search = Search(state.kernel, *state.words, Flat(), PUCT, rng=np.random.default_rng(0))
        start = time.process_time()
        search.run(iterations=n, batch=batch)
        return n / (time.process_time() - start)

    run(100)
    return run(sims)


def worker() -> None:
    """Answer ``{"game", "sims", "seed"}`` lines on stdin with ``{"rate", "fingerprint"}`` lines."""
    for game in GAMES:
        uct_rate(game, 200, 0)  # compile before the first request
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        rate, fingerprint = uct_rate(request["game"], request["sims"], request["seed"])
        print(json.dumps({"rate": rate, "fingerprint": fingerprint}), flush=True)


class Child:
    """A worker process over the checkout whose sources are at ``src``."""

    def __init__(self, src: Path) -> None:
        env = {**os.environ, "PYTHONPATH": str(src)}
        self.process = subprocess.Popen(
            [sys.executable, __file__, "--worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        self._read()

    def _read(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise SystemExit("a benchmark child process ended early; run it with --worker to see why")
        return json.loads(line)

    def ask(self, game: str, sims: int, seed: int) -> dict[str, Any]:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps({"game": game, "sims": sims, "seed": seed}) + "\n")
        self.process.stdin.flush()
        return self._read()

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait()


def compare(against: Path, sims: int, repeats: int) -> None:
    here = Path(__file__).resolve().parents[1] / "src"
    children = {"this": Child(here), "other": Child(against / "src")}
    rates: dict[tuple[str, str], list[float]] = {}
    try:
        for rep in range(repeats):
            order = ("this", "other") if rep % 2 == 0 else ("other", "this")
            for game in GAMES:
                prints = {}
                for name in order:
                    answer = children[name].ask(game, sims, seed=rep)
                    rates.setdefault((name, game), []).append(answer["rate"])
                    prints[name] = answer["fingerprint"]
                if prints["this"] != prints["other"]:
                    raise SystemExit(f"{game}: the two checkouts grew different trees ({prints})")
    finally:
        for child in children.values():
            child.close()
    print(f"UCT, one rollout per leaf, {sims:,} simulations x 4 positions, {repeats} alternating repeats")
    print(f"{'game':10} {'this (sims/s)':>14} {'other (sims/s)':>15} {'this/other':>11}  per repeat")
    for game in GAMES:
        this, other = rates[("this", game)], rates[("other", game)]
        ratios = [a / b for a, b in zip(this, other, strict=True)]
        print(
            f"{game:10} {statistics.median(this):14,.0f} {statistics.median(other):15,.0f} "
            f"{statistics.median(ratios):11.3f}  {' '.join(f'{r:.3f}' for r in ratios)}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--sims", type=int, default=20_000, help="simulations per position")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--against", type=Path, help="another checkout to compare with")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    for option in ("sims", "repeats"):
        if getattr(args, option) < 1:
            parser.error(f"--{option.replace('_', '-')} must be at least 1, got {getattr(args, option)}")
    if args.worker:
        worker()
        return
    if args.against is not None:
        compare(args.against, args.sims, args.repeats)
        return
    print(f"UCT, one rollout per leaf, {args.sims:,} simulations x 4 positions (median of {args.repeats})")
    for game in GAMES:
        uct_rate(game, 200, 0)
        rate = statistics.median(uct_rate(game, args.sims, rep)[0] for rep in range(args.repeats))
        print(f"  {game:10} {rate:12,.0f} sims/s")
    print("batched cycle, PUCT, evaluator that costs nothing, Connect Four start")
    for batch in (1, 8, 64):
        rate = statistics.median(batched_rate(args.sims, batch) for _ in range(args.repeats))
        print(f"  batch {batch:3}  {rate:12,.0f} sims/s")


if __name__ == "__main__":
    main()
