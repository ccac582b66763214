"""The arena: matches, round-robin and gauntlet tournaments, stored in SQLite, rated, tabled and plotted.

Typical use::

    from boardlab.arena import match, tournament

    run = match("greedy", "random", games=100, store="results/arena.sqlite", workers=2)
    summary = run.summary()          # scores, results by colour, Elo with intervals
    run = tournament(["random", "greedy", "alphabeta:depth=3"], games_per_pair=50)
    run = tournament(["alphabeta:depth=3", "random", "greedy"], 50, pairing="gauntlet")  # the first vs each

Games open with random plies or a suite of openings (:mod:`boardlab.arena.openings`) and
follow a deterministic schedule (:mod:`boardlab.arena.schedule`), read lazily; each is
played in a worker process (:mod:`boardlab.play.pool`) under a time limit per move and
stored as it ends (:mod:`boardlab.arena.store`), and running the same tournament again
resumes it. An agent that fails, overruns its limit or answers an illegal move forfeits the
game (``Reason.FORFEIT``, counted in :attr:`Summary.forfeits`); the tournament goes on.
Plots live in :mod:`boardlab.arena.plots` and tables in :mod:`boardlab.arena.report`.
"""

from boardlab.arena.openings import parse_openings, read_openings
from boardlab.arena.play import GameRecord, move_limit, play_game, play_opening
from boardlab.arena.ratings import EloFit, RatingError, elo_from_score, expected_score, fit_elo, pair_elo
from boardlab.arena.runner import TournamentRun, match, run_tournament, tournament, validate_config
from boardlab.arena.schedule import (
    GAUNTLET,
    PAIRINGS,
    ROUND_ROBIN,
    ArenaError,
    GameTask,
    TournamentConfig,
    build_schedule,
    derive_seed,
    iter_schedule,
)
from boardlab.arena.store import Store, StoreError
from boardlab.arena.summary import Outcomes, Summary, summarize

__all__ = [
    "GAUNTLET",
    "PAIRINGS",
    "ROUND_ROBIN",
    "ArenaError",
    "EloFit",
    "GameRecord",
    "GameTask",
    "Outcomes",
    "RatingError",
    "Store",
    "StoreError",
    "Summary",
    "TournamentConfig",
    "TournamentRun",
    "build_schedule",
    "derive_seed",
    "elo_from_score",
    "expected_score",
    "fit_elo",
    "iter_schedule",
    "match",
    "move_limit",
    "pair_elo",
    "parse_openings",
    "play_game",
    "play_opening",
    "read_openings",
    "run_tournament",
    "summarize",
    "tournament",
    "validate_config",
]
