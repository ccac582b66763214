"""Milliseconds per move of the ``greedy`` agent, game by game.

    .venv/bin/python benchmarks/greedy_speed.py [--moves 300] [--games quixo connect4 ...]

The agent plays itself from the start (a new game when one ends) for ``--moves`` moves after
one untimed move; each game's line gives the mean time a move. ``greedy`` tries every reply to
each of its moves, so the time grows with the square of the number of moves: a Nim of four piles
of 1,000 (4,000 moves, 16 million plays a move) is the default's largest case. Run it on two
checkouts (``PYTHONPATH=OTHER/src``) to compare them.
"""

from __future__ import annotations

import argparse
import time

from rich.console import Console
from rich.table import Table

from boardlab.agents import make_agent
from boardlab.games import parse_game

GAMES = ["quixo", "connect4", "tictactoe", "nim", "nim:piles=1000-1000-1000-1000"]


def ms_per_move(spec: str, moves: int) -> float:
    """The mean milliseconds of ``moves`` moves of greedy against itself in ``spec``."""
    game = parse_game(spec)
    agent = make_agent("greedy", seed=0, game=game)
    agent.prepare(game)
    state = game.initial()
    agent.act(state)
    spent = 0.0
    for _ in range(moves):
        if state.is_over:
            state = game.initial()
        tic = time.perf_counter()
        move = agent.act(state).move
        spent += time.perf_counter() - tic
        state = state.play(move)
    return 1000 * spent / moves


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--moves", type=int, default=300, help="timed moves per game (default 300)")
    parser.add_argument("--games", nargs="+", default=GAMES, help="game specs")
    args = parser.parse_args()
    table = Table(title="greedy, milliseconds a move")
    table.add_column("game")
    table.add_column("ms/move", justify="right")
    for spec in args.games:
        moves = min(args.moves, 20) if "1000" in spec else args.moves
        table.add_row(spec, f"{ms_per_move(spec, moves):.3f}")
    Console().print(table)


if __name__ == "__main__":
    main()
