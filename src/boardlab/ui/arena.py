"""The `match`, `tournament` and `ratings` commands: thin wrappers over :mod:`boardlab.arena`.

Both store every game in an SQLite file (``--db``), so re-running the same command resumes
an interrupted run, and write a ratings table to the terminal and PNG plots plus a
``summary.json`` into ``--out``. ``match --sprt`` stops the match once a sequential probability
ratio test (:class:`boardlab.arena.sprt.SprtTally`) decides. Bad input exits with status 2 and a
one-line message before any game starts. Each agent plays under a time limit per move
(``--move-timeout``); an agent that overruns it, fails or answers an illegal move forfeits that
game and the run goes on.
Ctrl-C and SIGTERM stop the run with every finished game stored (exit 130 and 143).
``ratings`` reads a store only: every game of it pooled, each player being its spec.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer
from rich.console import Console

from boardlab.agents.base import AgentSpecError, parse_spec
from boardlab.arena.export import FORMATS, games_csv, games_jsonl
from boardlab.arena.openings import distinct_openings, read_openings
from boardlab.arena.play import GameRecord, move_limit
from boardlab.arena.report import (
    colour_table,
    gauntlet_table,
    output_console,
    print_report,
    progress_bar,
    ratings_table,
    score_matrix_table,
    summary_json,
    tournaments_table,
)
from boardlab.arena.runner import (
    TournamentRun,
    changed_since_played,
    check_memory,
    default_workers,
    named_files,
    run_tournament,
    validate_config,
)
from boardlab.arena.schedule import (
    GAUNTLET,
    MAX_GAMES_PER_PAIR,
    MAX_OPENING_PLIES,
    ROUND_ROBIN,
    ArenaError,
    TournamentConfig,
    player_name,
)
from boardlab.arena.sprt import MAX_TESTED_ELO, PENTANOMIAL_SCORES, TRINOMIAL_SCORES, Sprt, SprtTally
from boardlab.arena.store import MEMORY_STORE, Store, StoreError, resumed_config
from boardlab.arena.summary import (
    OUTPUT_NAMES,
    Summary,
    canonical_game,
    player_names,
    pooled_games,
    reindexed,
    stored_games,
    summarize,
)
from boardlab.arena.verify import contradicted
from boardlab.core.console import counted, make_console, print_whole
from boardlab.core.files import (
    atomic_write_all,
    atomic_write_text,
    output_problem,
    path_problem,
    removed_if_refused,
)
from boardlab.core.inputs import InputFileError
from boardlab.core.processes import Termination, sigterm_as_interrupt, stop_requests
from boardlab.core.spec import shorten
from boardlab.games import GameError, parse_game
from boardlab.play.backend import Backend, open_backend
from boardlab.play.pool import BackendError
from boardlab.play.referee import MAX_MOVE_TIMEOUT, MIN_MOVE_TIMEOUT, MOVE_TIMEOUT_FACTOR
from boardlab.ui.errors import fail

DEMO_SPECS: tuple[str, ...] = ("random", "greedy", "alphabeta:depth=3", "mcts:iters=1000", "hybrid:time=0.1")
"""Players of ``tournament --demo``; agents not (yet) available are skipped with a note."""
DEMO_GAMES_PER_PAIR = 10
DEFAULT_DB = Path("results/arena.sqlite")
DEFAULT_GAMES_PER_PAIR = 20
DEFAULT_OPENING_PLIES = 2
MAX_WORKERS = 256
MAX_NAME = 200
DEFAULT_ERROR_RATE = 0.05
"""``--alpha`` and ``--beta`` of ``match --sprt``."""
SPRT_PLOT = "sprt.png"
"""The plot ``match --sprt`` adds to the match's: the LLR over the games, between its bounds."""
KNOWN_OUTPUTS: tuple[str, ...] = (*OUTPUT_NAMES, SPRT_PLOT)
"""Every file ``match``, ``tournament`` and ``ratings --out`` may write into their folder: each
run removes from it those it did not write this time (and nothing else)."""
MATCH_GAMES = 100
"""The games of a match by default."""
SPRT_MAX_GAMES = 10_000
"""The most games of a ``match --sprt`` by default: a bound on a test that could run on for long
(the closer A's strength to the middle of ELO0 and ELO1, the more games a decision takes)."""

GameOpt = Annotated[str, typer.Option("--game", help="game spec, e.g. quixo or quixo:size=4")]
WorkersOpt = Annotated[
    int | None, typer.Option("--workers", "-j", help="parallel worker processes (default: all cores)")
]
SeedOpt = Annotated[int, typer.Option("--seed", help="tournament seed: same seed, same games")]
OpeningOpt = Annotated[
    int | None,
    typer.Option(
        "--opening-plies",
        help=f"random plies opening each game (default: {DEFAULT_OPENING_PLIES}; each played twice)",
    ),
]
OpeningsOpt = Annotated[
    Path | None,
    typer.Option(
        "--openings",
        metavar="FILE",
        help="openings to play in turn instead of random ones: one a line, moves in the game's notation",
    ),
]
DbOpt = Annotated[Path, typer.Option("--db", help="SQLite store of the games (resumes from it)")]
MoveTimeoutOpt = Annotated[
    float | None,
    typer.Option(
        "--move-timeout",
        help=(
            "seconds an agent may think per move before it forfeits the game (0: no limit; default: "
            f"{MOVE_TIMEOUT_FACTOR:g}x the agent's own time option, at least {MIN_MOVE_TIMEOUT:g} s)"
        ),
    ),
]
TimeControlOpt = Annotated[
    str | None,
    typer.Option(
        "--tc",
        metavar="[MOVES/]BASE[+INC]",
        help=(
            "play on a game clock: BASE seconds a side for the game (or for every MOVES moves: 40/60), "
            "INC more after each move (60+0.5); "
            "each agent shares its clock out over its moves, and one that thinks past it loses on time"
        ),
    ),
]
NameOpt = Annotated[
    str,
    typer.Option(
        "--name",
        help="a label for the tournament in the store (given on resuming it: renames it; default: its name)",
    ),
]
BackendOpt = Annotated[
    str,
    typer.Option(
        "--backend",
        help="where the workers run: local (processes on this machine) or ray (a Ray cluster; the ray extra)",
    ),
]
AddressOpt = Annotated[
    str | None,
    typer.Option(
        "--address",
        help=(
            "HOST:PORT of a Ray cluster's head to join, or auto: the running cluster Ray finds "
            "(--backend ray; default: start a local Ray instance)"
        ),
    ),
]


_BOUNDS: dict[str, tuple[int | float, int | float]] = {
    "games": (1, MAX_GAMES_PER_PAIR),
    "games_per_pair": (1, MAX_GAMES_PER_PAIR),
    "workers": (1, MAX_WORKERS),
    "opening_plies": (0, MAX_OPENING_PLIES),
    "seed": (0, 2**63 - 1),
    "move_timeout": (0, MAX_MOVE_TIMEOUT),
}


def _check_counts(**counts: float | None) -> None:
    for key, value in counts.items():
        if value is None:
            continue
        low, high = _BOUNDS[key]
        flag = "--" + key.replace("_", "-")
        if value != value or value in (float("inf"), float("-inf")):
            fail(f"{flag} must be a finite number, got {value}")
        if value < low:
            fail(f"{flag} must be at least {low}, got {shorten(str(value))}")
        if value > high:
            fail(f"{flag} must be at most {high}, got {shorten(str(value))}")


def _check_path(flag: str, path: Path, *, folder: bool) -> None:
    """Exit 2 if ``path`` cannot be written (see :func:`boardlab.core.files.output_problem`)."""
    problem = output_problem(path, folder=folder)
    if problem is not None:
        fail(f"{flag} {shorten(str(path))}: {problem}")


def _check_store_not_output(db: Path, folders: list[Path]) -> None:
    """Exit 2 if the store ``db`` is one of ``folders`` or one of the files written into them or
    removed from them (:data:`KNOWN_OUTPUTS`: the plots, summary.json, sprt.png), which would
    replace or remove the stored games; paths compared resolved."""
    try:
        store = db.resolve()
        outputs = {(folder / name).resolve() for folder in folders for name in KNOWN_OUTPUTS}
        same = any(folder.resolve() == store for folder in folders)
    except (OSError, RuntimeError, ValueError):  # a link loop, a NUL: path_problem names these
        return
    if same:
        fail(
            f"--db and --out name the same path, {shorten(str(db))}: the store is a file and --out "
            "the folder its plots and summary.json are written into; name another --out"
        )
    if store in outputs:
        fail(
            f"--db {shorten(str(db))} is one of the files written into --out "
            f"({', '.join(KNOWN_OUTPUTS)}); name another store or another --out folder"
        )


def _check_name(name: str) -> None:
    if len(name) > MAX_NAME or not name.isprintable():
        fail(f"--name must be printable text of at most {MAX_NAME} characters, got {shorten(name)!r}")


def connect_backend(name: str, address: str | None) -> Backend:
    """The backend of ``--backend``/``--address``, connected; exits 2 with one line if it cannot be used
    (an unknown name, Ray not installed, a cluster that does not answer)."""
    try:
        return open_backend(name, address, _say_starting)
    except BackendError as err:
        fail(str(err))


def _say_starting(what: str) -> None:
    """One line on standard error as Ray starts: it takes seconds in which nothing else shows."""
    typer.echo(f"{what}...", err=True)


def _warn_of_waiting_workers(backend: Backend, workers: int | None) -> None:
    """Warn when ``--workers`` asks for more Ray workers than the cluster has CPUs: each holds a
    CPU, so the extra ones wait for one and play nothing meanwhile."""
    if backend.name != "ray" or workers is None:
        return
    cpus = backend.default_size()
    if workers > cpus:
        _warn(
            f"--workers {workers} on a Ray cluster of {counted(cpus, 'CPU')}: {workers - cpus} of them "
            f"wait for a free CPU (each Ray worker holds one), so at most {cpus} games are played at a time"
        )


def run_and_report(
    config: TournamentConfig,
    db: Path,
    workers: int | None,
    out: Path,
    move_timeout: float | None = None,
    backend: str = "local",
    address: str | None = None,
    sprt: SprtTally | None = None,
) -> TournamentRun:
    """Run ``config`` into the store at ``db`` with a progress bar, then print and plot the results.

    With ``sprt`` (a match's test, empty) the stored games are counted into it first and play
    stops as soon as it decides (see :func:`~boardlab.arena.runner.run_tournament`'s ``stop``);
    the report and ``summary.json`` add the test's outcome, computed from the stored games.

    ``backend`` and ``address`` say where the workers run (see
    :func:`boardlab.play.backend.open_backend`); the games come back here and only this
    process writes the store. Exits 2 on bad input (a Ray cluster that does not answer
    included), 1 if a game fails, 130 when interrupted (Ctrl-C) and 143 when terminated
    (SIGTERM); the stored games are kept. A refused command (exit 2) removes the folders it
    created for ``db`` and ``out`` while they are still empty.
    """
    with removed_if_refused(_refused):
        return _check_and_run(config, db, workers, out, move_timeout, backend, address, sprt)


def _refused(error: BaseException) -> bool:
    """Whether ``error`` ends a command refused as bad input (exit 2)."""
    return isinstance(error, typer.Exit) and error.exit_code == 2


def _check_and_run(
    config: TournamentConfig,
    db: Path,
    workers: int | None,
    out: Path,
    move_timeout: float | None,
    backend: str,
    address: str | None,
    sprt: SprtTally | None,
) -> TournamentRun:
    _check_store_not_output(db, [out])  # before the paths: the same path is neither's fault
    for flag, path, folder in (("--db", db, False), ("--out", out, True)):
        problem = path_problem(path, folder=folder)
        if problem is not None:
            fail(f"{flag} {shorten(str(path))}: {problem}")
    _check_name(config.name)
    try:
        for spec in config.specs:
            move_limit(spec, move_timeout)
        validate_config(config)
        if backend == "local":  # a cluster's memory is not this machine's
            check_memory(config, default_workers() if workers is None else workers)
    except ArenaError as err:
        fail(str(err))
    workers_backend = connect_backend(backend, address)  # a cluster that does not answer: bad input
    try:
        _warn_of_one_coloured_opening(config)  # the input is good: a warning, then play
        _warn_of_waiting_workers(workers_backend, workers)
        return _run_into_store(config, db, workers, out, move_timeout, workers_backend, sprt)
    finally:
        _close_through_interrupts(workers_backend)


def _close_through_interrupts(backend: Backend) -> None:
    """Close ``backend``, Ctrl-C and SIGTERM waiting until it is closed: a Ray instance stopped
    half-way would leave its processes running, and by then every game is stored (and the
    report written, unless the run was stopped, which said so already)."""
    with stop_requests():
        backend.close()


def _run_into_store(
    config: TournamentConfig,
    db: Path,
    workers: int | None,
    out: Path,
    move_timeout: float | None,
    backend: Backend,
    sprt: SprtTally | None,
) -> TournamentRun:
    # the input is good: create the folders and prove them writable, before any game
    _check_path("--db", db, folder=False)
    _check_path("--out", out, folder=True)
    try:
        store = Store(db)
    except ArenaError as err:
        fail(str(err))
    console, status = output_console(), make_console(stderr=True)
    with store, sigterm_as_interrupt() as termination:
        try:
            config = _as_stored(store, config, status)
            _warn_of_changed_files(store, config, status)
            if sprt is not None:
                _resume_test(sprt, store, config, status)
            note = sprt.llr_text if sprt is not None else None
            with progress_bar(status, config.label, note) as (on_start, on_game):
                run = run_tournament(
                    config,
                    store,
                    workers=workers,
                    move_timeout=move_timeout,
                    on_start=on_start,
                    on_game=on_game,
                    backend=backend,
                    sprt=sprt,
                )
        except StoreError as err:  # a store holding damaged games: bad input, found before work
            fail(str(err))
        except ArenaError as err:
            fail(str(err), code=1)
    _say_losses(run, backend.name, status)
    if run.interrupted and (run.complete or run.stopped):  # nothing was left to play
        _say_all_stored(run, termination, sprt, db)
    if run.interrupted:
        how = "Terminated" if termination.received else "Interrupted"
        most = "" if sprt is None else "at most "
        done = f"{len(run.records)} of {most}{counted(run.total, 'game')}"
        standing = "" if sprt is None else f" The SPRT stood at {sprt.llr_text()}."
        kept = (
            f"{done} were played and none kept (--db {MEMORY_STORE}).{standing}"
            if _throw_away(db)
            else f"{done} are stored in {db}.{standing} Run the same command again to resume."
        )
        status.print(f"{how}: {kept}", soft_wrap=True, markup=False, highlight=False)
        raise typer.Exit(termination.exit_code)
    with sigterm_as_interrupt() as termination:
        try:
            _report(run, console, out, sprt)
        except KeyboardInterrupt:  # every game is stored: the report alone is missing
            _say_all_stored(run, termination, sprt, db)
    return run


def _say_all_stored(
    run: TournamentRun, termination: Termination, sprt: SprtTally | None, db: Path
) -> NoReturn:
    """Say that a Ctrl-C (or SIGTERM) came once every game was stored (or the SPRT had decided),
    and how to get the report; exit 130 (143)."""
    played = counted(len(run.records), "game")
    if _throw_away(db):
        kept = f"all {played} were played, none kept (--db {MEMORY_STORE})"
    else:
        decided = " the SPRT needed" if sprt is not None and not run.complete else ""
        kept = f"all {played}{decided} are stored in {db}; run the same command again to write the report"
    status = make_console(stderr=True)
    status.print(f"{termination.how}: {kept}", soft_wrap=True, markup=False, highlight=False)
    raise typer.Exit(termination.exit_code)


def _say_losses(run: TournamentRun, backend: str, status: Console) -> None:
    """One line on standard error when workers were lost through no agent's doing (a killed
    process, a machine gone): how many, and the games played again for them."""
    lost, replayed = run.losses.lost, run.losses.replayed
    if not lost:
        return
    workers = (
        counted(lost, "Ray worker")
        if backend == "ray"
        else counted(lost, "worker process", "worker processes")
    )
    again = f", {counted(replayed, 'game')} played again" if replayed else " and replaced"
    status.print(f"{workers} lost{again}", soft_wrap=True, markup=False, highlight=False)


def _as_stored(store: Store, config: TournamentConfig, status: Console) -> TournamentConfig:
    """``config`` as it goes on in ``store`` (:meth:`~boardlab.arena.store.Store.register`:
    under the key it is stored by, named as ``--name`` says, else as stored), saying when
    ``--name`` renames it."""
    found = store.find_tournament(config)
    if found is None:
        return config
    if config.name and found["name"] != config.name:
        status.print(
            f"renamed tournament {found['id']} from {found['name']!r} to {config.name!r}",
            soft_wrap=True,
            markup=False,
            highlight=False,
        )
    return resumed_config(config, found)


def _warn_of_one_coloured_opening(config: TournamentConfig) -> None:
    """Warn when an odd count of games a pair plays the last opening with one colour only (each
    opening is played twice, the colours swapped: see :mod:`boardlab.arena.schedule`)."""
    if config.games_per_pair % 2 == 0 or not (config.openings or config.opening_plies):
        return
    last = (config.games_per_pair - 1) // 2  # the opening of the last game
    which = (
        f"opening {last % len(config.openings) + 1} of the suite" if config.openings else "the last opening"
    )
    games = counted(config.games_per_pair, "game") + (" a pair" if len(config.pairs) > 1 else "")
    _warn(
        f"with {games}, {which} is played with one colour only "
        "(each opening is played once with each colour: an even count plays every one with both)"
    )


def _warn(line: str) -> None:
    """``line`` on standard error as a warning: the command goes on."""
    typer.echo(f"warning: {line}", err=True)


def _warn_of_changed_files(store: Store, config: TournamentConfig, status: Console) -> None:
    """Warn when a file an agent spec names (a player's, an engine's) changed after the stored
    games of ``config`` were played: the same specs resume those games, the old version's."""
    if not any(named_files(spec) for spec in config.specs) or not store.stored_indices(config.tournament_id):
        return  # most matches name no file: their stored games are not read here
    records = store.games(config.tournament_id, below=config.total_games)
    for path in changed_since_played(config.specs, records):
        status.print(
            f"warning: {path} changed after this tournament's {counted(len(records), 'stored game')} "
            "ended: they are its old version's, and only the games missing are "
            "played now (name the new version's file otherwise, or give another --db, to play it afresh)",
            soft_wrap=True,
            markup=False,
            highlight=False,
        )


def _resume_test(sprt: SprtTally, store: Store, config: TournamentConfig, status: Console) -> None:
    """Count the stored games of ``config`` into ``sprt`` and say where the test stands."""
    sprt.extend(store.games(config.tournament_id, below=config.total_games))
    pairs = "" if sprt.trinomial else ", in whole pairs"
    first, second = player_names(config.specs)
    status.print(
        f"SPRT of {first} against {second} ({sprt.sampling}; {sprt.hypotheses_text()}): "
        f"at most {config.total_games:,} games{pairs}",
        soft_wrap=True,
        markup=False,
        highlight=False,
    )
    if sprt.games:
        said = f"resumed with {counted(sprt.games, 'stored game')}: {sprt.llr_text()}"
        if sprt.decided:
            said += f"; already decided ({sprt.decision(config.total_games)}), nothing to play"
        status.print(said, soft_wrap=True, markup=False, highlight=False)


def _throw_away(db: str | Path) -> bool:
    """True for ``--db :memory:``, a store that lives only while the command runs."""
    return str(db) == MEMORY_STORE


def _write_plots(
    summary: Summary,
    out: Path,
    store: str | Path,
    again: str,
    extra: dict[str, Any] | None = None,
    sprt: tuple[SprtTally, int] | None = None,
) -> list[Path]:
    """The plots and summary.json of ``summary`` (with the items of ``extra``) in ``out``, and
    with ``sprt`` (a test and its most games) sprt.png; exit 1 with one line if they cannot be
    written (the games stay in ``store``; ``again`` says what the same command then does).

    Every file is drawn first and then all are written together
    (:func:`~boardlab.core.files.atomic_write_all`): a Ctrl-C while plotting leaves the folder
    as it was. The outputs an earlier command left there that this one does not write (a
    match's sprt.png) are removed: the folder holds this run's outputs only."""
    from boardlab.arena.plots import plot_images, sprt_image  # matplotlib only when plotting

    files = plot_images(summary)
    if sprt is not None:
        test, most = sprt
        files.append((SPRT_PLOT, sprt_image(test, most, (summary.names[0], summary.names[1]))))
    files.append(("summary.json", summary_json(summary, extra).encode()))
    try:
        paths = atomic_write_all([(out / name, data) for name, data in files])
    except OSError as err:
        fail(
            f"cannot write the plots into {out}: {err.strerror or err}; "
            f"the games are kept in {store}, {again}",
            code=1,
        )
    _remove_stale_outputs(out, {name for name, _ in files})
    return paths


def _remove_stale_outputs(out: Path, written: set[str]) -> None:
    """Remove from ``out`` the files of :data:`KNOWN_OUTPUTS` not in ``written`` (an earlier
    command's, which would read as this one's); nothing else is touched. Exit 1 with one line
    if one cannot be removed."""
    for name in KNOWN_OUTPUTS:
        stale = out / name
        if name in written or not (stale.is_symlink() or stale.is_file()):
            continue
        try:
            stale.unlink(missing_ok=True)
        except OSError as err:
            fail(f"cannot remove {stale}, an earlier run's output: {err.strerror or err}", code=1)


def _report(run: TournamentRun, console: Console, out: Path, sprt: SprtTally | None = None) -> None:
    summary = run.summary()
    config = run.config
    title = f"{config.label}, clock {config.time_control}" if config.time_control else config.label
    print_report(summary, console, title, run.records, gauntlet=config.pairing == GAUNTLET)
    extra, tested = None, None
    if sprt is not None:
        # the outcome of the stored games, what the same command finds when run again
        test = SprtTally(sprt.sprt, sprt.trinomial)
        test.extend(run.records)
        names = (summary.names[0], summary.names[1])  # whole: specs may differ only at their ends
        for line in test.report_lines(run.total, names):
            console.print(line, soft_wrap=True, markup=False, highlight=False)
        extra, tested = {"sprt": test.result(run.total)}, (test, run.total)
    again = "and the same command writes the plots without playing them again"
    paths = _write_plots(summary, out, run.store_path, again, extra, tested)
    if _throw_away(run.store_path):
        kept = f"none kept (--db {MEMORY_STORE})"
    elif run.stored_beyond:  # a smaller count than played before: its games, the first ones
        stored = counted(len(run.records) + run.stored_beyond, "stored game")
        kept = f"reporting the first {len(run.records)} of {stored} in {run.store_path}"
    else:
        kept = f"{len(run.records)} stored in {run.store_path}"
    played = counted(run.played, "new game")
    console.print(f"{played}, {kept} (tournament {run.config.tournament_id})", soft_wrap=True)
    console.print("wrote " + ", ".join(str(p) for p in paths), soft_wrap=True)


def match_command(
    spec_a: Annotated[
        str, typer.Argument(metavar="SPEC_A", help="first agent spec, e.g. greedy or alphabeta:depth=3")
    ],
    spec_b: Annotated[str, typer.Argument(metavar="SPEC_B", help="second agent spec")],
    games: Annotated[
        int | None,
        typer.Option(
            "--games",
            "-n",
            help=f"games to play, colours alternating (default {MATCH_GAMES}; with --sprt, the most: "
            f"default {SPRT_MAX_GAMES:,})",
            show_default=False,
        ),
    ] = None,
    game: GameOpt = "quixo",
    workers: WorkersOpt = None,
    seed: SeedOpt = 0,
    opening_plies: OpeningOpt = None,
    openings: OpeningsOpt = None,
    db: DbOpt = DEFAULT_DB,
    out: Annotated[Path, typer.Option("--out", help="folder for plots and summary.json")] = Path(
        "results/match"
    ),
    name: NameOpt = "",
    time_control: TimeControlOpt = None,
    move_timeout: MoveTimeoutOpt = None,
    backend: BackendOpt = "local",
    address: AddressOpt = None,
    sprt: Annotated[
        str | None,
        typer.Option(
            "--sprt",
            metavar="ELO0,ELO1",
            help=(
                "stop as soon as a sequential probability ratio test accepts H0 (A is ELO0 Elo stronger "
                "than B) or H1 (A is ELO1 stronger), e.g. 0,10: pentanomial over game pairs; --games is "
                "the most it plays, rounded up to whole pairs; games still being played when it decides "
                "are stopped, not stored; the same command resumes it"
            ),
        ),
    ] = None,
    alpha: Annotated[
        float | None,
        typer.Option("--alpha", help=f"--sprt's false-positive rate (default {DEFAULT_ERROR_RATE:g})"),
    ] = None,
    beta: Annotated[
        float | None,
        typer.Option("--beta", help=f"--sprt's false-negative rate (default {DEFAULT_ERROR_RATE:g})"),
    ] = None,
    trinomial: Annotated[
        bool,
        typer.Option("--trinomial", help="--sprt on single games, not game pairs (--games exactly)"),
    ] = False,
) -> None:
    """Play a match between two agents and rate them, or until an SPRT decides (--sprt).

    Example: boardlab match greedy random --games 100 --workers 2

    Example: boardlab match NEW OLD --sprt 0,10 --games 2000 --db results/ab.sqlite
    """
    if games is None:
        games = MATCH_GAMES if sprt is None else SPRT_MAX_GAMES
    _check_counts(
        games=games, workers=workers, opening_plies=opening_plies, seed=seed, move_timeout=move_timeout
    )
    test = _sprt_test(sprt, (alpha, beta), trinomial)
    if test is not None:
        asked, games = games, games if trinomial else games + games % 2  # whole pairs
        _check_decidable(test, sprt or "", games, asked)
    config = _config(
        (spec_a, spec_b),
        games,
        game,
        seed,
        (opening_plies, openings),
        name,
        clock=(time_control, move_timeout),
    )
    run_and_report(config, db, workers, out, move_timeout, backend, address, test)


def _sprt_test(
    text: str | None, rates: tuple[float | None, float | None], trinomial: bool
) -> SprtTally | None:
    """The test of ``--sprt ELO0,ELO1`` with ``--alpha``, ``--beta`` and ``--trinomial``, empty;
    None without ``--sprt``. Exit 2 with one line on a bad value, or on an option of the test
    given without it."""
    alpha, beta = rates
    if text is None:
        for flag, given in (
            ("--alpha", alpha is not None),
            ("--beta", beta is not None),
            ("--trinomial", trinomial),
        ):
            if given:
                fail(f"{flag} is an option of --sprt; give --sprt ELO0,ELO1 with it")
        return None
    parts = text.split(",")
    try:
        elo0, elo1 = (float(part) for part in parts)
    except ValueError:
        fail(f"--sprt takes two Elo differences as ELO0,ELO1 (e.g. 0,10), got {shorten(text)!r}")
    if not (math.isfinite(elo0) and math.isfinite(elo1)):
        fail(f"--sprt takes two finite Elo differences, got {shorten(text)!r}")
    if not elo0 < elo1:
        swapped = f"; did you mean --sprt {elo1:g},{elo0:g}?" if elo0 > elo1 else ""
        fail(
            f"--sprt {shorten(text)}: ELO0 must be below ELO1 (H0: A is ELO0 Elo stronger, H1: ELO1){swapped}"
        )
    if max(abs(elo0), abs(elo1)) > MAX_TESTED_ELO:
        fail(f"--sprt {shorten(text)}: the Elo differences must be within ±{MAX_TESTED_ELO:g}")
    alpha = DEFAULT_ERROR_RATE if alpha is None else alpha
    beta = DEFAULT_ERROR_RATE if beta is None else beta
    for flag, rate in (("--alpha", alpha), ("--beta", beta)):
        if not 0 < rate < 0.5:
            fail(f"{flag} must be in (0, 0.5), got {rate:g}")
    try:
        return SprtTally(Sprt(elo0, elo1, alpha, beta), trinomial)
    except ValueError as err:
        fail(f"--sprt {shorten(text)}: {err}")


def _check_decidable(test: SprtTally, text: str, games: int, asked: int) -> None:
    """Exit 2 if ``games`` (``--games`` ``asked``, in whole pairs) are too few for ``test`` to
    accept H0 or H1 whatever the results: it could only end inconclusive (or accept one side
    only)."""
    scores = TRINOMIAL_SCORES if test.trinomial else PENTANOMIAL_SCORES
    per = 1 if test.trinomial else 2  # games an observation takes
    h1, h0 = (n * per for n in test.sprt.fewest_to_decide(scores))
    if games < max(h1, h0):
        rounded = f" ({games} in whole pairs)" if games != asked else ""
        fail(
            f"--games {asked}{rounded} is too few for --sprt {shorten(text)} to decide: it can accept "
            f"H1 only after {h1} games (A winning them all) and H0 only after {h0} (A losing them all); "
            f"give --games {max(h1, h0)} or more"
        )


def tournament_command(
    specs: Annotated[
        list[str] | None, typer.Argument(metavar="SPECS", help="agent specs (at least two)")
    ] = None,
    games_per_pair: Annotated[
        int | None,
        typer.Option(
            "--games-per-pair",
            "--games",  # match's name of its count: one pair, the same games
            "-n",
            help=(
                f"games per pair, also --games (default: {DEFAULT_GAMES_PER_PAIR}; "
                f"demo: {DEMO_GAMES_PER_PAIR})"
            ),
        ),
    ] = None,
    game: GameOpt = "quixo",
    workers: WorkersOpt = None,
    seed: SeedOpt = 0,
    opening_plies: OpeningOpt = None,
    openings: OpeningsOpt = None,
    db: DbOpt = DEFAULT_DB,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            help="folder for plots and summary.json (default: results/tournament, demo: results/demo)",
        ),
    ] = None,
    name: NameOpt = "",
    demo: Annotated[
        bool, typer.Option("--demo", help="a short demonstration tournament (writes to results/demo)")
    ] = False,
    gauntlet: Annotated[
        bool,
        typer.Option(
            "--gauntlet",
            help="the first agent plays each of the others, who do not play each other",
        ),
    ] = False,
    time_control: TimeControlOpt = None,
    move_timeout: MoveTimeoutOpt = None,
    backend: BackendOpt = "local",
    address: AddressOpt = None,
) -> None:
    """Play a round-robin tournament between agents (or a gauntlet) and rate them.

    Example: boardlab tournament random greedy alphabeta:depth=3 --games-per-pair 50
    """
    _check_counts(
        games_per_pair=games_per_pair,
        workers=workers,
        opening_plies=opening_plies,
        seed=seed,
        move_timeout=move_timeout,
    )
    specs = list(specs or [])
    if demo:
        if specs:
            fail("--demo plays its own agents; give either --demo or agent specs")
        specs = _demo_specs()
        games_per_pair = games_per_pair or DEMO_GAMES_PER_PAIR
        name = name or "demo"
    out = out or Path("results/demo" if demo else "results/tournament")
    if demo and gauntlet:
        fail("--demo plays a round robin; give either --demo or --gauntlet")
    games = games_per_pair or DEFAULT_GAMES_PER_PAIR
    pairing = GAUNTLET if gauntlet else ROUND_ROBIN
    clock = (time_control, move_timeout)
    config = _config(specs, games, game, seed, (opening_plies, openings), name, pairing, clock=clock)
    run_and_report(config, db, workers, out, move_timeout, backend, address)


MAX_MATRIX_PLAYERS = 12
"""Above this many players ``ratings`` leaves out the score matrix (too wide to read)."""
StorePath = Annotated[
    Path | None,
    typer.Argument(
        metavar="DB",
        help=f"SQLite store of games (match, tournament, train alphazero); default: {DEFAULT_DB}, or --db",
        show_default=False,
    ),
]
"""The store argument of the commands that read one (``ratings``, ``export``, ``tournaments``)."""
StoreOpt = Annotated[
    Path | None,
    typer.Option(
        "--db",
        help=f"SQLite store of games, as match and tournament name it (or as DB; default: {DEFAULT_DB})",
        show_default=False,
    ),
]
"""``--db``: the same store as :data:`StorePath`, named as ``match`` and ``tournament`` name it."""


def store_of(positional: Path | None, option: Path | None) -> Path:
    """The store a reading command opens: its ``DB`` argument or its ``--db`` (one place, given
    either way, or both the same), else ``results/arena.sqlite`` as ``match`` writes it; exit 2
    when the two name different stores."""
    if positional is not None and option is not None and not _same_store(positional, option):
        fail(
            f"the store is given twice, as DB {shorten(str(positional))} and as --db "
            f"{shorten(str(option))}; give one of them"
        )
    return option or positional or DEFAULT_DB


def _same_store(first: Path, second: Path) -> bool:
    return first == second or _same_file(first, second)


def ratings_command(
    db_argument: StorePath = None,
    db_option: StoreOpt = None,
    game: Annotated[
        str | None, typer.Option("--game", help="rate the games of this game spec only (default: each game)")
    ] = None,
    tournament: Annotated[
        str | None, typer.Option("--tournament", help="rate the games of this tournament only (id or name)")
    ] = None,
    out: Annotated[
        Path | None, typer.Option("--out", help="also write plots and summary.json into this folder")
    ] = None,
    verify: Annotated[
        bool,
        typer.Option(
            "--verify",
            help="replay every game by the rules first; leave out (and name) those they contradict",
        ),
    ] = False,
) -> None:
    """Rate the players of every game in an arena store, its tournaments pooled.

    A player is its agent spec, whatever tournament it played in; nothing is played.
    Example: boardlab ratings results/arena.sqlite --game quixo --verify
    """
    db, game = _read_store(db_argument, db_option, game)
    with removed_if_refused(_refused):  # an --out created for a store then refused is removed
        _rate(db, game, tournament, out, verify)


def export_command(
    db_argument: StorePath = None,
    db_option: StoreOpt = None,
    game: Annotated[
        str | None, typer.Option("--game", help="the games of this game spec only (default: every game)")
    ] = None,
    tournament: Annotated[
        str | None, typer.Option("--tournament", help="the games of this tournament only (id or name)")
    ] = None,
    out: Annotated[
        Path | None, typer.Option("--out", help="write them into this file (default: standard output)")
    ] = None,
    export_format: Annotated[
        str,
        typer.Option(
            "--format",
            metavar="|".join(FORMATS),
            help="jsonl: a game a line, its whole record; csv: a row a game, with a header",
        ),
    ] = FORMATS[0],
) -> None:
    """Write the stored games as JSON Lines, one game a line: players, seeds, opening, moves,
    result and why, thinking times, timestamps; or with --format csv one row a game: tournament
    id and name, game index, players, the first player's score, how it ended, plies, opening,
    moves and timestamps.

    Each line reads back with GameRecord.from_json, or with pandas.read_json(FILE, lines=True);
    a CSV with csv.DictReader or pandas.read_csv.
    Example: boardlab export results/arena.sqlite --game connect4 --out games.jsonl
    """
    if export_format not in FORMATS:
        fail(f"--format is one of {', '.join(FORMATS)}, got {shorten(export_format)!r}")
    db, game = _read_store(db_argument, db_option, game)
    if out is not None:
        _check_path("--out", out, folder=False)
        if _same_file(db, out):
            fail(f"--out {shorten(str(out))} is the store itself; name another file")
    try:
        with Store(db, read_only=True) as store:
            records = list(stored_games(store, game, tournament, on_unreadable=warn_unreadable))
            stored = store.tournaments()
    except StoreError as err:
        fail(str(err))
    if not records:
        fail(f"{shorten(str(db))} holds no games with these options; it holds: {_held(stored)}")
    if export_format == "csv":
        text = games_csv(records, {t["id"]: t["name"] for t in stored})
    else:
        text = games_jsonl(records)
    _write_out(text, out, counted(len(records), "game"))


def tournaments_command(
    db_argument: StorePath = None,
    db_option: StoreOpt = None,
    game: Annotated[
        str | None,
        typer.Option("--game", help="the tournaments of this game spec only (default: every game)"),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print them as a JSON list")] = False,
) -> None:
    """List the tournaments of an arena store: id, name, game, pairing, openings, players and
    games, oldest first (the id or name is what --tournament takes elsewhere).

    Example: boardlab tournaments results/arena.sqlite --game connect4
    """
    db, game = _read_store(db_argument, db_option, game)
    try:
        with Store(db, read_only=True) as store:
            stored = store.tournaments()
    except StoreError as err:
        fail(str(err))
    listed = [t for t in stored if game is None or canonical_game(t["game"]) == game]
    if not listed:
        if not stored:
            fail(f"{shorten(str(db))} holds no tournament")
        fail(f"{shorten(str(db))} holds no tournament of {game}; it holds: {_held(stored)}")
    if as_json:
        typer.echo(json.dumps(listed, indent=2))
        return
    print_whole(output_console(), tournaments_table(listed, f"Tournaments in {shorten(str(db), 60)}"))


def openings_command(
    game: GameOpt = "quixo",
    plies: Annotated[int, typer.Option("--plies", help="moves in each opening")] = 2,
    out: Annotated[
        Path | None, typer.Option("--out", help="write them into this file (default: standard output)")
    ] = None,
) -> None:
    """Write a suite of openings for --openings: one for each distinct position reached in
    PLIES moves with the game still open (move orders reaching one position, and positions
    that are images of each other under the board's symmetries, give one opening).

    Example: boardlab openings --game connect4 --plies 2 --out c4-2.txt
    """
    if out is not None:
        _check_path("--out", out, folder=False)
    try:
        spec = parse_game(game).spec
        suite = distinct_openings(spec, plies)
    except (ArenaError, GameError) as err:
        fail(str(err))
    header = f"# {spec}: {counted(len(suite), 'distinct opening')} of {counted(plies, 'ply', 'plies')}\n"
    lines = "".join(" ".join(moves) + "\n" for moves in suite)
    _write_out(header + lines, out, counted(len(suite), "opening"))


def _write_out(text: str, out: Path | None, what: str) -> None:
    """``text`` to standard output, or written atomically into ``out`` (saying ``what`` it holds)."""
    if out is None:
        typer.echo(text, nl=False)
        return
    try:
        atomic_write_text(out, text)
    except OSError as err:
        fail(f"--out {shorten(str(out))}: {err.strerror or err}")
    typer.echo(f"wrote {what} to {out}", err=True)


def _read_store(positional: Path | None, option: Path | None, game: str | None) -> tuple[Path, str | None]:
    """The store a reading command opens (:func:`store_of`; exit 2 unless it is a file, see
    :func:`check_store_file`) and its ``--game`` filter (:func:`_game_filter`)."""
    db = store_of(positional, option)
    game = _game_filter(game)
    check_store_file(db)
    return db, game


def _game_filter(game: str | None) -> str | None:
    """The spec of ``--game`` as the store writes it; a bad spec is named as such, not as a
    game the store lacks."""
    if game is None:
        return None
    try:
        return str(parse_game(game).spec)
    except GameError as err:
        fail(f"--game: {err}")


def check_store_file(db: Path) -> None:
    """Exit 2 unless ``db`` is a file (a store to read, never one to create): for the commands
    that read a store (``ratings``, ``export``, ``review``)."""
    try:
        found = db.is_file()
    except (OSError, ValueError) as err:  # a name the file system cannot hold, a NUL
        fail(f"{shorten(str(db))}: {getattr(err, 'strerror', None) or err}")
    if not found:
        what = "not a regular file" if db.exists() else "no such store"
        fail(f"{shorten(str(db))}: {what} (match and tournament write one with --db)")


def warn_unreadable(problem: str) -> None:
    """Say on standard error that a stored game that cannot be read (``problem`` names it and
    why) is left out: a command reading a store goes on with its other games."""
    _warn(f"{problem}; left out")


def _same_file(first: Path, second: Path) -> bool:
    try:
        return first.resolve() == second.resolve()
    except (OSError, RuntimeError, ValueError):  # a link loop, a NUL: path checks name these
        return False


def _held(stored: list[dict[str, Any]]) -> str:
    """What a store holds, for a refusal: each tournament's game and name."""
    held = ", ".join(sorted({f"{t['game']} ({t['name'] or t['id']})" for t in stored})) or "nothing"
    return shorten(held, 300)


Pool = tuple[list[str], list[GameRecord]]


def _verified(pools: dict[str, Pool]) -> dict[str, Pool]:
    """The pools without the games the rules contradict, each named on standard error (a
    player left with no game is left out too)."""
    status = make_console(stderr=True, highlight=False)
    kept = {}
    for name, (_, records) in pools.items():
        bad = contradicted(records)
        for record, problem in bad:
            status.print(
                f"left out: {name} game {record.index} of tournament {record.tournament_id} "
                f"({record.first_spec} vs {record.second_spec}): {problem}",
                soft_wrap=True,
            )
        left_out = {id(record) for record, _ in bad}
        agreeing = [r for r in records if id(r) not in left_out]
        status.print(f"{name}: {len(agreeing)} of {counted(len(records), 'game')} agree with the rules")
        kept[name] = reindexed(agreeing)
    return kept


def _rate(db: Path, game: str | None, tournament: str | None, out: Path | None, verify: bool = False) -> None:
    if out is not None:
        _check_store_not_output(db, [out])  # the folder of each game is checked once they are known
        _check_path("--out", out, folder=True)
    console = output_console()
    try:
        with Store(db, read_only=True) as store:  # never written, an empty file included
            stored = store.tournaments()
            games = sorted({g for g in map(canonical_game, (t["game"] for t in stored)) if game in (None, g)})
            pools = {g: pooled_games(store, g, tournament, warn_unreadable) for g in games}
    except StoreError as err:
        fail(str(err))
    if verify:
        pools = _verified(pools)
    pools = {g: pool for g, pool in pools.items() if pool[1]}
    if not pools:
        fail(f"{shorten(str(db))} holds no games to rate with these options; it holds: {_held(stored)}")
    folders = {name: _ratings_folder(out, name, len(pools)) for name in pools} if out is not None else {}
    if out is not None:
        _check_store_not_output(db, list(folders.values()))
    for name, (specs, records) in pools.items():
        summary = summarize(specs, records)
        heading = (
            f"Ratings ({name}{', ' + tournament if tournament else ''}): {counted(summary.n_games, 'game')}"
        )
        print_whole(console, ratings_table(summary, heading))
        if len(specs) > 2 and _is_gauntlet(stored, tournament, specs):
            print_whole(console, gauntlet_table(summary, records))
        elif 2 < len(specs) <= MAX_MATRIX_PLAYERS:
            print_whole(console, score_matrix_table(summary))
        print_whole(console, colour_table(summary))
        if out is not None:
            paths = _write_plots(summary, folders[name], db, "and the same command writes them")
            console.print("wrote " + ", ".join(str(p) for p in paths), soft_wrap=True)
    if out is not None and out not in folders.values():  # each game in a folder of its own
        _remove_stale_outputs(out, set())


def _is_gauntlet(stored: list[dict[str, Any]], tournament: str | None, specs: list[str]) -> bool:
    """Whether ``--tournament`` names gauntlets only, whose first agent is the pool's first player
    (then their report is the gauntlet's table, as ``tournament --gauntlet`` printed it)."""
    named = [t for t in stored if tournament is not None and tournament in (t["id"], t["name"])]
    return bool(named) and all(
        t["pairing"] == GAUNTLET and player_name(t["specs"][0]) == specs[0] for t in named
    )


def _ratings_folder(out: Path, game: str, pools: int) -> Path:
    """Where ``ratings --out`` writes the plots of ``game``: ``out`` itself for one game."""
    return out if pools == 1 else out / game.replace(":", "-").replace(",", "-").replace("=", "")


def _config(
    specs: tuple[str, ...] | list[str],
    games: int,
    game: str,
    seed: int,
    opening: tuple[int | None, Path | None],
    name: str,
    pairing: str = ROUND_ROBIN,
    *,
    clock: tuple[str | None, float | None] = (None, None),
) -> TournamentConfig:
    """The tournament of a command; ``opening`` is its ``--opening-plies`` and ``--openings``,
    ``clock`` its ``--tc`` and ``--move-timeout``."""
    plies, suite_file = opening
    if plies is not None and suite_file is not None:
        fail("give either --openings or --opening-plies")
    time_control, move_timeout = clock
    if time_control is not None and move_timeout is not None:
        fail("give either --tc (a game clock) or --move-timeout (a limit per move)")
    try:
        suite = read_openings(suite_file, game, _warn) if suite_file is not None else ()
        plies = DEFAULT_OPENING_PLIES if plies is None else plies
        return TournamentConfig(
            tuple(specs), games, game, seed, plies, name, pairing, suite, time_control=time_control or ""
        )
    except (ArenaError, InputFileError) as err:
        fail(str(err))


def _demo_specs() -> list[str]:
    specs = []
    for spec in DEMO_SPECS:
        try:
            parse_spec(spec)
            specs.append(spec)
        except AgentSpecError as err:
            typer.echo(f"note: demo skips {spec} ({err})", err=True)
    return specs


def register(app: typer.Typer) -> None:
    """Attach the `match`, `tournament`, `ratings`, `export`, `tournaments` and `openings`
    commands to ``app``."""
    app.command("match")(match_command)
    app.command("tournament")(tournament_command)
    app.command("ratings")(ratings_command)
    app.command("export")(export_command)
    app.command("tournaments")(tournaments_command)
    app.command("openings")(openings_command)
