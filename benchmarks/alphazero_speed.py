"""AlphaZero self-play speed: network-guided simulations per second in Connect Four self-play.

Plays Connect Four self-play exactly as the trainer's workers do (Gumbel root, playout-cap
randomisation, ``--parallel`` games side by side whose leaves share one network call), one
thread per process, and reports for each inference mode (eager PyTorch, TorchScript traced
and frozen, ONNX Runtime when it is installed):

- simulations per second on one core (one process), and with every core busy (one process
  per core, the rates summed); a simulation is one position evaluated by the network;
- the split of one process's time between the network (observation planes + inference) and
  the tree (the compiled collect/complete and the Gumbel bookkeeping in Python);
- the mean batch of a network call.

    .venv/bin/python benchmarks/alphazero_speed.py                    # the shipped network, or 3x32
    .venv/bin/python benchmarks/alphazero_speed.py --model runs/c4/model.safetensors --seconds 20
"""

from __future__ import annotations

import argparse
import os
import time
from dataclasses import dataclass
from typing import Any

import numpy as np
from rich.console import Console
from rich.table import Table

from boardlab.games import parse_game
from boardlab.models.network import Network, onnx_runtime, read_network
from boardlab.play.pool import Workers
from boardlab.train.alphazero import AlphaZeroParams, selfplay_games


@dataclass(frozen=True)
class Job:
    model: str
    mode: str
    seconds: float
    parallel: int
    seed: int


class TimedEvaluator:
    """The network evaluator with the time spent in it counted."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.seconds = 0.0
        self.positions = 0
        self.calls = 0

    def evaluate(self, words: np.ndarray, legal: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        start = time.perf_counter()
        answer = self.inner.evaluate(words, legal)
        self.seconds += time.perf_counter() - start
        self.positions += len(words)
        self.calls += 1
        return answer  # type: ignore[no-any-return]


def load(model: str, mode: str) -> Network:
    """The network in inference ``mode``: eager, script or onnx (see :class:`Network`)."""
    game = parse_game("connect4")
    if model:
        network = read_network(model, game).network
    else:
        network = Network.for_game(game, 3, 32, seed=0)
    network.mode = mode
    return network


def run_job(job: Job) -> dict[str, float]:
    """Self-play for about ``job.seconds``; the counts and times."""
    import torch

    torch.set_num_threads(1)
    game = parse_game("connect4")
    network = load(job.model, job.mode)
    params = AlphaZeroParams(parallel=job.parallel)
    evaluator = TimedEvaluator(network.evaluator(game.kernel))
    selfplay_games(game, evaluator, params, job.seed, 2)  # warm: compile the search, trace the net
    evaluator.seconds, evaluator.positions, evaluator.calls = 0.0, 0, 0
    start = time.perf_counter()
    rounds = 0
    while time.perf_counter() - start < job.seconds:
        selfplay_games(game, evaluator, params, job.seed + 1 + rounds, job.parallel)
        rounds += 1
    wall = time.perf_counter() - start
    return {
        "wall": wall,
        "network": evaluator.seconds,
        "positions": evaluator.positions,
        "calls": evaluator.calls,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--model", default="", help="network file (default: the shipped one, else a fresh 3x32)"
    )
    parser.add_argument("--seconds", type=float, default=15.0, help="self-play seconds per measurement")
    parser.add_argument("--parallel", type=int, default=32, help="games played side by side per process")
    parser.add_argument(
        "--modes", nargs="*", default=None, help="eager, script, onnx (default: each one installed)"
    )
    args = parser.parse_args()
    if args.modes is None:
        args.modes = ["eager", "script"] + (["onnx"] if onnx_runtime() is not None else [])
    model = args.model
    if not model:
        from boardlab.agents.alphazero import shipped_model

        shipped = shipped_model("connect4")
        model = str(shipped) if shipped else ""
    cores = os.cpu_count() or 1
    console = Console()
    net = load(model, "eager")
    console.print(
        f"Connect Four self-play, network {net.shape.blocks} blocks x {net.shape.channels} channels "
        f"({model or 'fresh, random weights'}), {args.parallel} games per process, {cores} cores, "
        f"{args.seconds:g} s per measurement; ONNX Runtime "
        + ("installed" if onnx_runtime() is not None else "not installed")
    )
    table = Table(title="self-play: network-guided simulations per second")
    for column in (
        "mode",
        "processes",
        "sims/s (all)",
        "sims/s per process",
        "network share",
        "tree share",
        "batch",
    ):
        table.add_column(column, justify="right")
    with Workers(cores) as workers:
        for mode in args.modes:
            for processes in (1, cores):
                jobs = [Job(model, mode, args.seconds, args.parallel, 100 * i) for i in range(processes)]
                results = [run_job(jobs[0])] if processes == 1 else workers.map(run_job, jobs)
                rate = sum(r["positions"] / r["wall"] for r in results)
                network = sum(r["network"] for r in results) / sum(r["wall"] for r in results)
                batch = sum(r["positions"] for r in results) / max(1, sum(r["calls"] for r in results))
                table.add_row(
                    mode,
                    str(processes),
                    f"{rate:,.0f}",
                    f"{rate / processes:,.0f}",
                    f"{network:.0%}",
                    f"{1 - network:.0%}",
                    f"{batch:.0f}",
                )
                console.print(f"{mode} x{processes}: {rate:,.0f} sims/s")
    console.print(table)
    console.print(inference_table(model, args.modes))


def inference_table(model: str, modes: list[str]) -> Table:
    """Positions per second of the network alone, one thread, by batch size and mode."""
    import torch

    torch.set_num_threads(1)
    table = Table(title="network alone: positions per second (one thread)")
    table.add_column("mode")
    batches = (1, 16, 64, 256)
    for b in batches:
        table.add_column(f"batch {b}", justify="right")
    obs = np.random.default_rng(0).random((max(batches), 2, 6, 7), dtype=np.float32)
    for mode in modes:
        network = load(model, mode)
        network.infer(obs[:2])
        row = []
        for b in batches:
            start, n = time.perf_counter(), 0
            while time.perf_counter() - start < 1.0:
                network.infer(obs[:b])
                n += b
            row.append(f"{n / (time.perf_counter() - start):,.0f}")
        table.add_row(mode, *row)
    return table


if __name__ == "__main__":
    main()
