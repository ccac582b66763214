"""Nodes and time to a fixed depth for alpha-beta search features, on the same positions.

Each configuration searches the same random positions (``--positions`` of them, reached by
random plies from the start) by iterative deepening to ``--depth`` with fresh tables, and
the script prints the total nodes and seconds and how many root values differ from the
first configuration's. A feature that keeps the search exact is worth exactly the nodes and
time it saves.

Usage:
    .venv/bin/python benchmarks/search_features.py --depth 7 --positions 12 \\
        --configs "" probe=0 sym=0 threads=2
"""

from __future__ import annotations

import argparse
import random
import sys
import time

import numpy as np

from boardlab.agents.base import make_agent
from boardlab.games import parse_game


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="quixo", help="game spec")
    parser.add_argument("--depth", type=int, default=7, help="search depth")
    parser.add_argument("--positions", type=int, default=12, help="number of random positions")
    parser.add_argument("--eval", default="", help="evaluation (default: the game's first)")
    parser.add_argument("--contempt", type=float, default=300.0, help="contempt of every configuration")
    parser.add_argument(
        "--configs",
        nargs="+",
        default=["", "probe=0", "sym=0"],
        help="alpha-beta options of each configuration ('' for the plain search)",
    )
    args = parser.parse_args(argv)
    for option in ("depth", "positions"):
        if getattr(args, option) < 1:
            parser.error(f"--{option} must be at least 1, got {getattr(args, option)}")
    return args


def _positions(game_spec: str, count: int) -> list[tuple[int, int]]:
    game = parse_game(game_spec)
    rng = random.Random(2026)
    out = []
    while len(out) < count:
        state = game.initial()
        for _ in range(rng.randrange(4, 40)):
            moves = [m for m in state.legal_moves() if not state.play(m).is_over]
            if not moves:
                break
            state = state.play(rng.choice(moves))
        if not state.is_over:
            out.append(tuple(int(w) for w in state.words))
    return out  # type: ignore[return-value]


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; returns the exit status."""
    args = _arguments(argv)
    game = parse_game(args.game)
    positions = _positions(args.game, args.positions)
    plain_scores: list[float] | None = None
    print(f"{args.game}, depth {args.depth}, {len(positions)} positions, contempt {args.contempt:g}")
    print(f"{'options':<28} {'nodes':>12} {'seconds':>9} {'nodes vs first':>15} {'values changed':>15}")
    first_nodes = 0
    for config in args.configs:
        spec = f"alphabeta:contempt={args.contempt:g}" + (f",eval={args.eval}" if args.eval else "")
        runner = make_agent(spec + (f",{config}" if config else ""), 0, game=game).runner(game.kernel)
        runner.iterate(*positions[0], 2, 0.0, np.random.default_rng(0))  # compiled before timing
        nodes, seconds, scores = 0, 0.0, []
        for me, opp in positions:
            runner.reset()
            tic = time.perf_counter()
            result = runner.iterate(me, opp, args.depth, 0.0, np.random.default_rng(0))
            seconds += time.perf_counter() - tic
            nodes += result.nodes
            scores.append(result.score)
        if plain_scores is None:
            plain_scores, first_nodes = scores, nodes
        changed = sum(abs(a - b) > 1e-9 for a, b in zip(scores, plain_scores, strict=True))
        print(
            f"{config or '(plain)':<28} {nodes:>12,} {seconds:>9.2f} {nodes / first_nodes:>14.1%} "
            f"{changed:>15}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
