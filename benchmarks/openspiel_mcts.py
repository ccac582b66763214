"""boardlab's MCTS against OpenSpiel's, through the OpenSpiel bridge: speed and strength at
equal simulations and at equal time.

    .venv/bin/python benchmarks/openspiel_mcts.py [--sims 1000] [--games 40] [--seconds 0.02]

Both sides are agents: boardlab's ``mcts`` (compiled UCT, one random rollout a leaf) and
``openspiel:bot=mcts`` (OpenSpiel's C++ ``MCTSBot`` with its random-rollout evaluator on
Connect Four and Tic-Tac-Toe, set up from each position through the bridge; OpenSpiel's Python
MCTS on boardlab's Quixo registered as a Python game). UCT c = 1.4 on both.

Printed:
1. **Speed**: simulations per second of a decision, the median over seeded positions, for
   each agent, and for OpenSpiel's bare C++ bot on the same OpenSpiel states (what the bridge
   costs: rebuilding the state and reading the tree);
2. **Strength at equal simulations**: a match ``mcts:iters=N`` against ``openspiel:sims=N``
   (colours alternate, random two-ply openings each played with both colours);
3. **Strength at equal time**: ``mcts:time=T`` against OpenSpiel given the simulations its
   measured speed fits into ``T`` seconds (OpenSpiel's bots have no clock).

Seconds are wall-clock on one process and noisy on a shared machine; game results are not.
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

import numpy as np
import pyspiel
from rich.console import Console
from rich.table import Table

from boardlab.agents import make_agent
from boardlab.arena import match
from boardlab.arena.report import progress_bar
from boardlab.games import parse_game
from boardlab.interop.openspiel import native_state

C = 1.4


def positions(spec: str, count: int, seed: int) -> list[Any]:
    """The start and positions after a few seeded random moves (none finished)."""
    game = parse_game(spec)
    rng = np.random.default_rng(seed)
    out = [game.initial()]
    while len(out) < count:
        state = game.initial()
        for _ in range(int(rng.integers(2, 9))):
            options = [a for a in state.legal_indices() if not state.play_index(a).is_over]
            if not options:
                break
            state = state.play_index(int(rng.choice(options)))
        if not state.is_over:
            out.append(state)
    return out


def agent_rate(spec: str, states: list[Any], sims: int) -> float:
    """Median simulations per second of an agent's decisions (after a warm-up decision)."""
    agent = make_agent(spec, seed=1, game=states[0].game)
    agent.prepare(states[0].game)
    agent.act(states[0])
    rates = []
    for state in states:
        start = time.perf_counter()
        agent.act(state)
        rates.append(sims / (time.perf_counter() - start))
    return statistics.median(rates)


def bare_openspiel_rate(states: list[Any], sims: int) -> float:
    """Median simulations per second of OpenSpiel's C++ MCTSBot alone on the same positions."""
    rates = []
    spiel_states = [native_state(state) for state in states]
    game = spiel_states[0].get_game()
    for i, spiel_state in enumerate(spiel_states):
        bot = pyspiel.MCTSBot(game, pyspiel.RandomRolloutEvaluator(1, i), C, sims, 1000, False, i, False)
        start = time.perf_counter()
        bot.step(spiel_state)
        rates.append(sims / (time.perf_counter() - start))
    return statistics.median(rates)


def strength(
    console: Console, ours: str, theirs: str, game: str, games: int, workers: int
) -> tuple[float, str]:
    """boardlab's score (0..1) against OpenSpiel's agent, and the W-D-L line."""
    with progress_bar(console, f"{ours} vs {theirs}") as (on_start, on_game):
        run = match(ours, theirs, games, game=game, workers=workers, on_start=on_start, on_game=on_game)
    outcome = run.summary().overall(0)
    return run.summary().points[0].sum() / games, f"{outcome.wins}-{outcome.draws}-{outcome.losses}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sims", type=int, default=1000, help="simulations a move at equal simulations")
    parser.add_argument("--games", type=int, default=40, help="games per match")
    parser.add_argument("--seconds", type=float, default=0.02, help="seconds a move at equal time")
    parser.add_argument("--positions", type=int, default=8, help="positions timed per game")
    parser.add_argument(
        "--quixo-sims", type=int, default=200, help="simulations a move on Quixo (Python game)"
    )
    parser.add_argument("--workers", type=int, default=2, help="worker processes of the matches")
    args = parser.parse_args()
    for option in ("sims", "games", "positions", "workers"):
        if getattr(args, option) < 1:
            parser.error(f"--{option} must be at least 1, got {getattr(args, option)}")
    console = Console(width=120)

    speed = Table(title=f"MCTS simulations per second of a decision (median of {args.positions} positions)")
    for column in (
        "game",
        "sims",
        "boardlab mcts",
        "openspiel agent",
        "bare OpenSpiel C++",
        "boardlab / openspiel",
    ):
        speed.add_column(column, justify="right")
    rates: dict[str, float] = {}
    for game, sims in (("connect4", args.sims), ("tictactoe", args.sims), ("quixo", args.quixo_sims)):
        states = positions(game, args.positions, seed=7)
        ours = agent_rate(f"mcts:iters={sims}", states, sims)
        theirs = agent_rate(f"openspiel:sims={sims}", states, sims)
        bare = bare_openspiel_rate(states, sims) if game != "quixo" else float("nan")  # no C++ Quixo
        rates[game] = theirs
        speed.add_row(
            game,
            f"{sims:,}",
            f"{ours:,.0f}",
            f"{theirs:,.0f}",
            f"{bare:,.0f}" if bare == bare else "—",
            f"{ours / theirs:.1f}×",
        )
    console.print(speed)

    results = Table(
        title=f"boardlab mcts against OpenSpiel's MCTS through the bridge, {args.games} games each"
    )
    for column in ("game", "budget", "boardlab", "openspiel", "boardlab W-D-L", "boardlab score"):
        results.add_column(column, justify="right")
    for game in ("connect4", "tictactoe"):
        score, line = strength(
            console, f"mcts:iters={args.sims}", f"openspiel:sims={args.sims}", game, args.games, args.workers
        )
        results.add_row(game, "equal simulations", f"{args.sims:,}", f"{args.sims:,}", line, f"{score:.1%}")
        fitted = max(1, round(rates[game] * args.seconds))
        score, line = strength(
            console, f"mcts:time={args.seconds}", f"openspiel:sims={fitted}", game, args.games, args.workers
        )
        results.add_row(
            game, f"equal time, {args.seconds} s", f"{args.seconds} s", f"{fitted:,}", line, f"{score:.1%}"
        )
    console.print(results)


if __name__ == "__main__":
    main()
