"""The shipped Tic-Tac-Toe AlphaZero network, checked exhaustively against the solved game.

For each simulation budget: every position reachable when the network (PUCT search) plays
either side and the opponent plays *any* move, and the positions where its move gives away
game-theoretic value (a win made a draw or a loss, a draw made a loss). None means it never
loses to ``perfect`` (nor to anyone) and never lets a win slip; then 20 games against
``perfect`` (both colours) are played through the ordinary agent as a cross-check.

    .venv/bin/python benchmarks/alphazero_tictactoe.py
    .venv/bin/python benchmarks/alphazero_tictactoe.py --model runs/ttt/model.safetensors --sims 1 64 400
"""

from __future__ import annotations

import argparse
import time

from rich.console import Console
from rich.table import Table

from boardlab.agents import make_agent
from boardlab.agents.alphazero import shipped_model
from boardlab.games import parse_game
from boardlab.models.network import read_network
from boardlab.play.session import Session
from boardlab.train.alphazero import exhaustive_check


def games_against_perfect(model: str, sims: int, games: int) -> tuple[int, int, int]:
    """Wins, draws and losses of ``alphazero:model=...,sims=...`` against ``perfect``."""
    game = parse_game("tictactoe")
    counts = [0, 0, 0]
    for index in range(games):
        learner = index % 2
        ours = make_agent(f"alphazero:model={model},sims={sims}", seed=index, game=game)
        perfect = make_agent("perfect", seed=index, game=game)
        seats = (ours, perfect) if learner == 0 else (perfect, ours)
        outcome = Session(game.initial(), seats).run()
        counts[0 if outcome.winner == learner else 1 if outcome.winner is None else 2] += 1
    return counts[0], counts[1], counts[2]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--model", default="", help="network file (default: the shipped one)")
    parser.add_argument("--sims", type=int, nargs="*", default=[1, 64, 200, 400])
    parser.add_argument("--games", type=int, default=20)
    args = parser.parse_args()
    import torch

    torch.set_num_threads(1)
    game = parse_game("tictactoe")
    model = args.model or str(shipped_model("tictactoe"))
    network = read_network(model, game).network
    table = Table(title=f"Tic-Tac-Toe AlphaZero ({model}) against the solved game")
    for column in (
        "simulations",
        "positions where it chose",
        "moves giving away value",
        "vs perfect W/D/L",
        "s",
    ):
        table.add_column(column, justify="right")
    for sims in args.sims:
        start = time.perf_counter()
        report = exhaustive_check(game, network, sims)
        wdl = games_against_perfect(model, sims, args.games) if args.games else (0, 0, 0)
        table.add_row(
            str(sims),
            f"{report.positions:,}",
            str(len(report.mistakes)),
            "/".join(map(str, wdl)),
            f"{time.perf_counter() - start:.1f}",
        )
    Console().print(table)


if __name__ == "__main__":
    main()
