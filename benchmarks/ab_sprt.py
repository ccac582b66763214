"""A/B test of two agent versions on the arena, stopped by a sequential probability ratio test.

The new version (first spec) plays the old one (second spec) at whatever budget the specs
give (give both the same ``time=``). Games start from random openings of ``--opening-plies``
plies drawn from ``--seed``, or from a suite of openings in turn (``--openings FILE``, one a
line, see :mod:`boardlab.arena.openings`); each opening is played twice with the colours swapped
(a game pair), so both versions play both colours from every opening. After every finished pair the
script prints W/D/L from the new version's side, the pentanomial counts (pairs scored 0, ½,
1, 1½, 2 points), the log-likelihood ratio (LLR) of H1 "new is ``--elo1`` stronger" over H0
"new is ``--elo0`` stronger" with its bounds, and the Elo estimate ± its 95 % error (after a
sweep, whose estimate is infinite, the arena's finite Elo with the ratings' prior and its
interval). It stops when the LLR leaves the bounds (H1 or H0 accepted) or after ``--max-games``
(inconclusive; rounded up to whole game pairs unless ``--trinomial``).
See :mod:`boardlab.arena.sprt` for the test; its tally and figures are those of
``boardlab match NEW OLD --sprt ELO0,ELO1``, which runs the same test from the command line
(this script adds a line per pair, the time per move and its own defaults).

``--backend ray`` plays the games on Ray (a local instance, or the cluster at ``--address``);
the results come back to this process, which alone writes the store.

Games are stored in ``--db`` as they end: running the same command again resumes (the stored
games count) and a longer ``--max-games`` extends a stopped test.

Usage:
    .venv/bin/python benchmarks/ab_sprt.py "hybrid:time=0.1,search=(alphabeta:contempt=20)" \\
        "hybrid:time=0.1,search=(alphabeta:contempt=10)" \\
        --elo0 0 --elo1 20 --max-games 400 [--game quixo:rules=course] [--trinomial] \\
        [--backend ray [--address HOST:PORT]]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from boardlab.arena import (
    ArenaError,
    GameRecord,
    Store,
    TournamentConfig,
    read_openings,
    run_tournament,
    validate_config,
)
from boardlab.arena.sprt import CONTINUE, INCONCLUSIVE, Sprt, SprtTally
from boardlab.core.inputs import InputFileError
from boardlab.core.processes import sigterm_as_interrupt
from boardlab.games import Reason
from boardlab.play.backend import BACKENDS, BackendError, open_backend

DEFAULT_PLIES = 4
"""Random opening plies without --opening-plies or --openings: more than the arena's 2, so that
the many games of an A/B test rarely repeat an opening."""


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("new", help="agent spec of the new version, e.g. alphabeta:time=0.1,threads=2")
    parser.add_argument("old", help="agent spec of the old version, e.g. alphabeta:time=0.1")
    parser.add_argument("--game", default="quixo", help="game spec, e.g. quixo or quixo:rules=course")
    parser.add_argument("--elo0", type=float, default=0.0, help="Elo of H0 (default 0)")
    parser.add_argument("--elo1", type=float, default=20.0, help="Elo of H1 (default 20)")
    parser.add_argument("--alpha", type=float, default=0.05, help="false-positive rate (default 0.05)")
    parser.add_argument("--beta", type=float, default=0.05, help="false-negative rate (default 0.05)")
    parser.add_argument(
        "--max-games",
        type=int,
        default=400,
        help="stop there, inconclusive (default 400; rounded up to whole game pairs unless --trinomial)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the openings and agents")
    parser.add_argument("--opening-plies", type=int, help=f"random opening plies (default {DEFAULT_PLIES})")
    parser.add_argument("--openings", type=Path, help="a suite of openings played in turn (one a line)")
    parser.add_argument("--tc", default="", metavar="[MOVES/]BASE[+INC]", help="a clock for both: 10+0.1")
    parser.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument("--trinomial", action="store_true", help="test single games, not game pairs")
    parser.add_argument("--db", type=Path, default=Path("results/ab.sqlite"), help="SQLite game store")
    parser.add_argument("--backend", choices=BACKENDS, default="local", help="where the workers run")
    parser.add_argument("--address", default=None, help="HOST:PORT of a Ray cluster to join (--backend ray)")
    args = parser.parse_args(argv)
    if args.max_games < 2:
        parser.error(f"--max-games must be at least 2, got {args.max_games}")
    if args.workers < 0:
        parser.error(f"--workers must be at least 0, got {args.workers}")
    return args


def _openings_said(config: TournamentConfig, suite_file: Path | None) -> str:
    if config.openings:
        return f"{len(config.openings)} from {suite_file} in turn"
    return f"{config.opening_plies} random plies"


class AbTest(SprtTally):
    """The running tally of an A/B match (player 0 is the new version), with the plies, the
    thinking times and the forfeits of its games."""

    def __init__(self, sprt: Sprt, trinomial: bool) -> None:
        super().__init__(sprt, trinomial)
        self.plies: list[int] = []
        self.seconds: tuple[list[float], list[float]] = ([], [])  # thinking times: new, old
        self.forfeits = 0

    def add(self, record: GameRecord) -> None:
        """Count a finished game."""
        super().add(record)
        self.plies.append(record.plies)
        self.forfeits += record.outcome.reason is Reason.FORFEIT
        new_colour = 0 if record.first_player == 0 else 1
        for i, spent in enumerate(record.move_times):  # the moves after the opening
            mover = (len(record.opening) + i) % 2
            self.seconds[0 if mover == new_colour else 1].append(spent)


def main(argv: list[str] | None = None) -> int:
    """Run the A/B test; returns the exit status (0 whatever the decision)."""
    args = _arguments(argv)
    try:
        sprt = Sprt(args.elo0, args.elo1, args.alpha, args.beta)
    except ValueError as err:
        print(f"Error: {err}", file=sys.stderr)
        return 2
    games = args.max_games if args.trinomial else args.max_games + args.max_games % 2  # whole pairs
    if args.openings is not None and args.opening_plies is not None:
        print("Error: give either --openings or --opening-plies", file=sys.stderr)
        return 2
    try:
        suite = read_openings(args.openings, args.game) if args.openings is not None else ()
        plies = DEFAULT_PLIES if args.opening_plies is None else args.opening_plies
        config = TournamentConfig(
            (args.new, args.old), games, args.game, args.seed, plies, openings=suite, time_control=args.tc
        )
        validate_config(config)  # a bad agent spec or game: one line before any work
    except (ArenaError, InputFileError) as err:
        print(f"Error: {' '.join(str(err).split())}", file=sys.stderr)
        return 2
    try:
        backend = open_backend(args.backend, args.address)
    except BackendError as err:
        print(f"Error: {err}", file=sys.stderr)
        return 2
    try:
        store = Store(args.db)  # makes its folder
    except ArenaError as err:
        backend.close()
        print(f"Error: {' '.join(str(err).split())}", file=sys.stderr)
        return 2
    test = AbTest(sprt, args.trinomial)
    sampling = "game" if args.trinomial else "pentanomial (game pairs)"
    clock = f", clock {config.time_control}" if config.time_control else ""
    print(f"A/B: new {args.new}  vs  old {args.old}  on {args.game}{clock}", flush=True)
    print(
        f"SPRT {sampling}: H0 Elo <= {args.elo0:g}, H1 Elo >= {args.elo1:g}, alpha {args.alpha:g}, "
        f"beta {args.beta:g}; at most {games} games; "
        f"openings: {_openings_said(config, args.openings)}, seed {args.seed}",
        flush=True,
    )
    started = time.perf_counter()

    def on_game(record: GameRecord) -> None:
        test.add(record)
        if test.completes(record):
            print(test.line(), flush=True)

    with backend, sigterm_as_interrupt(), store:
        try:
            config = store.register(config)  # as stored: an older version's key of its specs kept
            stored = store.games(config.tournament_id, below=games)
        except ArenaError as err:  # a damaged stored game
            print(f"Error: {' '.join(str(err).split())}", file=sys.stderr)
            return 2
        test.extend(stored)
        if test.scores:
            print(f"resumed with {len(test.scores)} stored games: {test.line()}", flush=True)
        interrupted = False
        if not test.decided:
            try:
                run = run_tournament(
                    config,
                    store,
                    workers=args.workers,
                    on_game=on_game,
                    backend=backend,
                    stop=lambda: test.decided,  # the games in flight then are stopped, unstored
                )
                interrupted = run.interrupted
            except ArenaError as err:
                print(f"Error: {' '.join(str(err).split())}", file=sys.stderr)
                return 1
    state = test.state()
    decision = test.decision(games)
    if decision == INCONCLUSIVE:
        decision = f"{INCONCLUSIVE} after {len(test.scores)} games"
    elif decision == CONTINUE:
        decision = "stopped (interrupted)" if interrupted else f"undecided after {len(test.scores)} games"
    wins, draws, losses = test.wdl()
    new_ms = statistics.fmean(test.seconds[0]) * 1000 if test.seconds[0] else float("nan")
    old_ms = statistics.fmean(test.seconds[1]) * 1000 if test.seconds[1] else float("nan")
    print(
        f"result: {decision}; games {len(test.scores)}, W-D-L {wins}-{draws}-{losses} (new's side), "
        f"LLR {state.llr:+.2f} [{state.lower:+.2f}, {state.upper:+.2f}], Elo {test.elo_text()}; "
        f"forfeits {test.forfeits}; mean plies {statistics.fmean(test.plies) if test.plies else 0:.1f}; "
        f"ms/move new {new_ms:.0f}, old {old_ms:.0f}; {time.perf_counter() - started:.0f} s this run",
        flush=True,
    )
    return 130 if interrupted else 0


if __name__ == "__main__":
    sys.exit(main())
