"""A Connect Four AlphaZero network judged by the solver and by games.

- the share of moves that keep the perfect-play value on the Begin-Easy, Middle-Easy and
  Middle-Medium benchmark sets (the first ``--positions`` / 3 of each), for the raw policy and
  with PUCT search of each ``--sims`` budget (each move weakly solved within a node budget;
  moves the solver cannot settle in it are left out and counted);
- games against ``random`` and against ``hybrid`` at equal time per move (``--time``), each
  opening played twice with the colours swapped (``--games`` openings of two random plies).

    .venv/bin/python benchmarks/alphazero_connect4.py --model runs/c4/model.safetensors
    .venv/bin/python benchmarks/alphazero_connect4.py --model M --sims 32 400 --games 10 --time 1
"""

from __future__ import annotations

import argparse
import random
import time

from rich.console import Console
from rich.table import Table

from boardlab.agents import make_agent
from boardlab.games import parse_game
from boardlab.models.network import read_network
from boardlab.play.session import Session
from boardlab.train.alphazero import judged_positions, raw_policy_actions, search_policies


def paired_games(ours: str, theirs: str, openings: int, seed: int) -> tuple[int, int, int]:
    """Wins, draws and losses of ``ours``: each opening (two random plies) with both colours."""
    game = parse_game("connect4")
    rng = random.Random(seed)
    counts = [0, 0, 0]
    for index in range(openings):
        start = game.initial()
        for _ in range(2):
            start = start.play_index(rng.choice(start.legal_indices()))
        for colour in (0, 1):
            a = make_agent(ours, seed=index, game=game)
            b = make_agent(theirs, seed=index, game=game)
            seats = (a, b) if colour == 0 else (b, a)
            outcome = Session(start, seats).run()
            counts[0 if outcome.winner == colour else 1 if outcome.winner is None else 2] += 1
    return counts[0], counts[1], counts[2]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--model", required=True)
    parser.add_argument("--sims", type=int, nargs="*", default=[32, 400])
    parser.add_argument("--positions", type=int, default=300)
    parser.add_argument("--games", type=int, default=2, help="openings, each played with both colours")
    parser.add_argument("--time", type=float, default=1.0, help="seconds per move against hybrid")
    args = parser.parse_args()
    import torch

    torch.set_num_threads(1)
    game = parse_game("connect4")
    network = read_network(args.model, game).network
    judged = judged_positions(game, args.positions, 0)
    if judged is None:
        raise SystemExit("the Connect Four benchmark sets were not found (BOARDLAB_CONNECT4_DATA)")
    console = Console()
    table = Table(title=f"{args.model}: moves keeping the perfect-play value ({judged.source})")
    for column in ("player", "accuracy", "moves judged", "s"):
        table.add_column(column, justify="right")
    start = time.perf_counter()
    accuracy, count = judged.accuracy(raw_policy_actions(network, game.kernel, judged.words, judged.legal))
    table.add_row("raw policy", f"{accuracy:.1%}", str(count), f"{time.perf_counter() - start:.0f}")
    for sims in args.sims:
        start = time.perf_counter()
        rows = judged.searched
        actions = search_policies(game.kernel, judged.words[rows], network.evaluator(game.kernel), sims, 0)
        accuracy, count = judged.accuracy(actions, rows)
        table.add_row(
            f"{sims} simulations", f"{accuracy:.1%}", str(count), f"{time.perf_counter() - start:.0f}"
        )
    console.print(table)
    if args.games:
        games = Table(title="games (each opening with both colours)")
        for column in ("opponent", "W/D/L", "score"):
            games.add_column(column, justify="right")
        ours = f"alphazero:model={args.model},time={args.time:g}"
        for opponent in ("random", f"hybrid:time={args.time:g}"):
            w, d, lost = paired_games(ours, opponent, args.games, 1)
            games.add_row(opponent, f"{w}/{d}/{lost}", f"{(w + d / 2) / max(1, w + d + lost):.1%}")
        console.print(games)


if __name__ == "__main__":
    main()
