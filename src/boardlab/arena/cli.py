"""The `match` and `tournament` commands: thin wrappers over :mod:`boardlab.arena`.

Both store every game in an SQLite file (``--db``), so re-running the same command resumes
an interrupted run, and write a ratings table to the terminal and PNG plots plus a
``summary.json`` into ``--out``. Bad input exits with status 2 and a one-line message.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, NoReturn

import typer
from rich.console import Console

from boardlab.agents.base import AgentSpecError, parse_spec
from boardlab.arena.report import output_console, print_report, progress_bar, write_summary_json
from boardlab.arena.runner import TournamentRun, run_tournament, validate_config
from boardlab.arena.schedule import ArenaError, TournamentConfig
from boardlab.arena.store import Store

DEMO_SPECS: tuple[str, ...] = ("random", "greedy", "alphabeta:depth=3", "mcts:iters=1000", "hybrid:time=0.1")
"""Players of ``tournament --demo``; agents not (yet) available are skipped with a note."""
DEMO_GAMES_PER_PAIR = 10
DEFAULT_DB = Path("results/arena.sqlite")
DEFAULT_GAMES_PER_PAIR = 20
INTERRUPTED_EXIT = 130

GameOpt = Annotated[str, typer.Option("--game", help="game spec, e.g. quixo or quixo:size=4")]
WorkersOpt = Annotated[
    int | None, typer.Option("--workers", "-j", help="parallel worker processes (default: all cores)")
]
SeedOpt = Annotated[int, typer.Option("--seed", help="tournament seed: same seed, same games")]
OpeningOpt = Annotated[
    int, typer.Option("--opening-plies", help="random plies opening each game (each opening is played twice)")
]
DbOpt = Annotated[Path, typer.Option("--db", help="SQLite store of the games (resumes from it)")]
NameOpt = Annotated[str, typer.Option("--name", help="a label for the tournament in the store")]


def _fail(message: str, code: int = 2) -> NoReturn:
    typer.echo(f"Error: {' '.join(str(message).split())}", err=True)
    raise typer.Exit(code)


def _check_counts(**counts: int | None) -> None:
    minimum = {"games": 1, "games_per_pair": 1, "workers": 1, "opening_plies": 0, "seed": 0}
    for key, value in counts.items():
        if value is not None and value < minimum[key]:
            flag = "--" + key.replace("_", "-")
            _fail(f"{flag} must be at least {minimum[key]}, got {value}")


def run_and_report(config: TournamentConfig, db: Path, workers: int | None, out: Path) -> TournamentRun:
    """Run ``config`` into the store at ``db`` with a progress bar, then print and plot the results.

    Exits 2 on bad input, 1 if a game fails, 130 when interrupted (stored games are kept).
    """
    try:
        validate_config(config)
    except ArenaError as err:
        _fail(str(err))
    if out.exists() and not out.is_dir():
        _fail(f"--out {out} is a file; expected a folder for the plots")
    try:
        store = Store(db)
    except ArenaError as err:
        _fail(str(err))
    console, status = output_console(), Console(stderr=True)
    with store:
        try:
            with progress_bar(status, config.label) as (on_start, on_game):
                run = run_tournament(config, store, workers=workers, on_start=on_start, on_game=on_game)
        except ArenaError as err:
            _fail(str(err), code=1)
    if run.interrupted:
        status.print(
            f"Interrupted: {len(run.records)} of {run.total} games are stored in {db}. "
            "Run the same command again to resume.",
            soft_wrap=True,
        )
        raise typer.Exit(INTERRUPTED_EXIT)
    _report(run, console, out)
    return run


def _report(run: TournamentRun, console: Console, out: Path) -> None:
    from boardlab.arena.plots import write_plots  # matplotlib only when plotting

    summary = run.summary()
    print_report(summary, console, run.config.label)
    try:
        paths = [*write_plots(summary, out), write_summary_json(summary, out / "summary.json")]
    except OSError as err:
        _fail(f"cannot write the plots into {out}: {err.strerror or err}", code=1)
    console.print(
        f"{run.played} new games, {len(run.records)} stored in {run.store_path} "
        f"(tournament {run.config.tournament_id})"
    )
    console.print("wrote " + ", ".join(str(p) for p in paths), soft_wrap=True)


def match_command(
    spec_a: Annotated[str, typer.Argument(help="first agent spec, e.g. greedy or alphabeta:depth=3")],
    spec_b: Annotated[str, typer.Argument(help="second agent spec")],
    games: Annotated[int, typer.Option("--games", "-n", help="games to play (colours alternate)")] = 100,
    game: GameOpt = "quixo",
    workers: WorkersOpt = None,
    seed: SeedOpt = 0,
    opening_plies: OpeningOpt = 2,
    db: DbOpt = DEFAULT_DB,
    out: Annotated[Path, typer.Option("--out", help="folder for plots and summary.json")] = Path(
        "results/match"
    ),
    name: NameOpt = "",
) -> None:
    """Play a match between two agents and rate them.

    Example: boardlab match greedy random --games 100 --workers 2
    """
    _check_counts(games=games, workers=workers, opening_plies=opening_plies, seed=seed)
    config = _config((spec_a, spec_b), games, game, seed, opening_plies, name)
    run_and_report(config, db, workers, out)


def tournament_command(
    specs: Annotated[list[str] | None, typer.Argument(help="agent specs (at least two)")] = None,
    games_per_pair: Annotated[
        int | None,
        typer.Option(
            "--games-per-pair",
            "-n",
            help=f"games per pair (default: {DEFAULT_GAMES_PER_PAIR}; demo: {DEMO_GAMES_PER_PAIR})",
        ),
    ] = None,
    game: GameOpt = "quixo",
    workers: WorkersOpt = None,
    seed: SeedOpt = 0,
    opening_plies: OpeningOpt = 2,
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
) -> None:
    """Play a round-robin tournament between agents and rate them.

    Example: boardlab tournament random greedy alphabeta:depth=3 --games-per-pair 50
    """
    _check_counts(games_per_pair=games_per_pair, workers=workers, opening_plies=opening_plies, seed=seed)
    specs = list(specs or [])
    if demo:
        if specs:
            _fail("--demo plays its own agents; give either --demo or agent specs")
        specs = _demo_specs()
        games_per_pair = games_per_pair or DEMO_GAMES_PER_PAIR
        name = name or "demo"
    out = out or Path("results/demo" if demo else "results/tournament")
    config = _config(specs, games_per_pair or DEFAULT_GAMES_PER_PAIR, game, seed, opening_plies, name)
    run_and_report(config, db, workers, out)


def _config(
    specs: tuple[str, ...] | list[str], games: int, game: str, seed: int, opening_plies: int, name: str
) -> TournamentConfig:
    try:
        return TournamentConfig(tuple(specs), games, game, seed, opening_plies, name)
    except ArenaError as err:
        _fail(str(err))


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
    """Attach the `match` and `tournament` commands to ``app``."""
    app.command("match")(match_command)
    app.command("tournament")(tournament_command)
