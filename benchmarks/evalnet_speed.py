"""Alpha-beta nodes per second with a value network at the leaves vs with ``tuned``, in one run.

    .venv/bin/python benchmarks/evalnet_speed.py [--net PATH] [--depth 5] [--rounds 5]

Both searches run in this process on the same random positions (4 to 20 random plies from the
empty 5x5 board) to a fixed depth with fresh tables, taking turns (tuned, net, tuned, ...) so
that a machine shared with other jobs slows both alike. Prints each evaluation's nodes, the
median and best nodes per second over the rounds, the ratio net/tuned (the issue's target:
at least 0.5), and the cost of one leaf evaluation alone (ns, over a million random boards).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np
from numba import njit

from boardlab.games import parse_game
from boardlab.models.evalnet import net_evaluation, net_for
from boardlab.search.alphabeta import SearchRunner


def _positions(game: object, count: int, seed: int) -> list[tuple[int, int]]:
    rng = np.random.default_rng(seed)
    out: list[tuple[int, int]] = []
    while len(out) < count:
        state = game.initial()  # type: ignore[attr-defined]
        for _ in range(int(rng.integers(4, 20))):
            if state.is_over:
                break
            state = state.play_index(int(rng.choice(state.legal_indices())))
        if not state.is_over:
            out.append((int(state.words[0]), int(state.words[1])))
    return out


@njit
def _evaluate_all(evaluate, ctx, me, opp, eval_id):  # type: ignore[no-untyped-def]
    total = 0.0
    for i in range(me.shape[0]):
        total += evaluate(ctx, me[i], opp[i], eval_id)
    return total


def _leaf_ns(
    kernel: object,
    ctx: tuple[object, ...],
    evaluate: object,
    boards: tuple[np.ndarray, np.ndarray],
    eval_id: int = 0,
) -> float:
    me, opp = boards
    _evaluate_all(evaluate, ctx, me[:10], opp[:10], eval_id)
    start = time.perf_counter()
    _evaluate_all(evaluate, ctx, me, opp, eval_id)
    return (time.perf_counter() - start) / len(me) * 1e9


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--net", default="", help="network file (default: the shipped one)")
    parser.add_argument("--game", default="quixo")
    parser.add_argument("--depth", type=int, default=5)
    parser.add_argument("--positions", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    for option in ("depth", "positions", "rounds"):
        if getattr(args, option) < 1:
            parser.error(f"--{option.replace('_', '-')} must be at least 1, got {getattr(args, option)}")
    game = parse_game(args.game)
    kernel = game.kernel
    net = net_for(kernel, args.net)
    net_ctx = net.search_ctx(kernel)
    evaluate = net_evaluation(kernel, net)
    runners = {
        "tuned": SearchRunner(kernel, "tuned", win_probe=True),
        "net": SearchRunner(kernel, net.base, win_probe=True, ctx=net_ctx, evaluate=evaluate),
    }
    positions = _positions(game, args.positions, 2026)
    jitter = np.zeros(kernel.num_actions)
    rates: dict[str, list[float]] = {name: [] for name in runners}
    nodes: dict[str, int] = {}
    for _ in range(args.rounds):
        for name, runner in runners.items():
            count, seconds = 0, 0.0
            for me, opp in positions:
                runner.reset()
                start = time.perf_counter()
                count += runner.search(me, opp, args.depth, jitter)[2]
                seconds += time.perf_counter() - start
            nodes[name] = count
            rates[name].append(count / seconds)
    rng = np.random.default_rng(0)
    owner = rng.integers(0, 3, (1_000_000, 25))
    weights = 1 << np.arange(25, dtype=np.int64)
    boards = ((owner == 1) @ weights, (owner == 2) @ weights)
    tuned_ns = _leaf_ns(kernel, kernel.ctx, kernel.evaluate, boards)
    net_ns = _leaf_ns(kernel, net_ctx, evaluate, boards, max(net.base_id(kernel), 0))
    print(
        f"{args.game}, depth {args.depth}, {len(positions)} positions, {args.rounds} rounds; "
        f"network {net.layers}{' + ' + net.base if net.base else ''}"
    )
    print(f"{'evaluation':<10} {'nodes':>10} {'median n/s':>12} {'best n/s':>12} {'ns/leaf':>9}")
    for name, ns in (("tuned", tuned_ns), ("net", net_ns)):
        print(
            f"{name:<10} {nodes[name]:>10,} {statistics.median(rates[name]):>12,.0f} "
            f"{max(rates[name]):>12,.0f} {ns:>9.0f}"
        )
    median = statistics.median(rates["net"]) / statistics.median(rates["tuned"])
    best = max(rates["net"]) / max(rates["tuned"])
    print(f"net/tuned nodes per second: median {median:.2f}, best {best:.2f} (target >= 0.50)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
