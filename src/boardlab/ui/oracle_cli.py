"""The ``oracle`` command: an agent's move accuracy against an exact judge, as a table, a plot
and a JSON file."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

from boardlab.agents.base import AgentSpecError
from boardlab.arena.oracle import (
    DEFAULT_OPPONENTS,
    OracleError,
    OracleReport,
    check_builds,
    judge_for,
    measure,
    plot_accuracy,
    write_json,
)
from boardlab.core.console import LoggedProgress, counted, make_console, print_whole
from boardlab.core.files import output_problem, path_problem
from boardlab.core.processes import raise_if_stopping, sigterm_as_interrupt
from boardlab.core.spec import SpecError, shorten, top_level_items
from boardlab.games import GameError, parse_game
from boardlab.play.referee import MIN_MOVE_TIMEOUT, MOVE_TIMEOUT_FACTOR, TimeLimitError, move_limit
from boardlab.ui.errors import fail
from boardlab.ui.game_args import TABLES_DEFAULT_HELP
from boardlab.ui.game_args import game_spec as shared_game_spec

DEFAULT_QUIXO_SIZE = 4
THROWN_SHOWN = 20
OPPONENT_WIDTH = 12  # the opponent column never narrows below this on a small terminal


def register(app: typer.Typer) -> None:
    """Attach the ``oracle`` command to a typer app."""
    app.command(
        "oracle",
        help="Move accuracy of an agent against perfect play (Quixo tables, Tic-Tac-Toe, Nim, Connect Four).",
    )(oracle_command)


def split_specs(texts: list[str]) -> list[str]:
    """Agent specs from option texts: separated by spaces, ``;`` or commas, where a comma
    followed by ``key=value`` continues the spec before it (``alphabeta:depth=2,eval=lines3``)
    and commas inside parentheses belong to a sub-spec (``hybrid:search=(alphabeta:tt=22,sym=false)``).
    SpecError when parentheses do not balance."""
    specs: list[str] = []
    for text in texts:
        for chunk in text.replace(";", " ").split():
            for item in top_level_items("--opponents", chunk):
                if not item:
                    continue
                if specs and "=" in item and ":" not in item and ":" in specs[-1]:
                    specs[-1] += "," + item
                else:
                    specs.append(item)
    return specs


def game_spec(game: str, size: int | None) -> str:
    """The game spec from ``--game`` and ``--size`` (Quixo defaults to 4x4 here); one
    ``Error:`` line and exit 2 where they disagree."""
    return shared_game_spec(game, size, DEFAULT_QUIXO_SIZE)


def _share(x: float) -> str:
    return "-" if math.isnan(x) else f"{x:.1%}"


def oracle_command(
    agent: Annotated[str, typer.Argument(metavar="AGENT", help="agent spec, e.g. mcts:iters=1000")],
    game: Annotated[
        str,
        typer.Option(
            "--game", help="game spec: quixo, tictactoe, nim:piles=3-4-5, connect4 (with --from-ply)"
        ),
    ] = "quixo",
    size: Annotated[
        int | None, typer.Option("--size", help="Quixo board side: 3, 4 (the default) or 5 (endgames)")
    ] = None,
    games: Annotated[  # -n as in match and tournament
        int, typer.Option("--games", "-n", help="games against each opponent (colours alternate)")
    ] = 10,
    opponents: Annotated[
        list[str] | None,
        typer.Option(
            "--opponents",
            help="opponent specs, separated by commas or by spaces within quotes "
            "(default: random greedy alphabeta:depth=2 mcts:iters=500)",
        ),
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="same seed, same openings and games")] = 0,
    opening: Annotated[
        int, typer.Option("--opening", help="most random plies opening a game (0..this many)")
    ] = 2,
    from_ply: Annotated[
        int,
        typer.Option("--from-ply", help="judge the agent's moves from this ply on (earlier: played only)"),
    ] = 0,
    out: Annotated[Path, typer.Option("--out", help="folder for oracle.png and oracle.json")] = Path(
        "results/oracle"
    ),
    tables: Annotated[
        Path | None,
        typer.Option(
            "--tables",
            "--dir",
            help=f"the folder of the Quixo board's tables, as solve wrote it ({TABLES_DEFAULT_HELP})",
        ),
    ] = None,
    move_timeout: Annotated[
        float | None,
        typer.Option(
            "--move-timeout",
            help=(
                "seconds an agent may think per move before it forfeits and the run ends (0: no "
                f"limit; default: {MOVE_TIMEOUT_FACTOR:g}x the agent's own time option, at least "
                f"{MIN_MOVE_TIMEOUT:g} s)"
            ),
        ),
    ] = None,
) -> None:
    """Play the agent against a spread of opponents and judge each of its moves with perfect
    play: the share keeping the value, the share exactly best, and the games in which it threw
    a won position away; accuracy by the number of pieces on the board is plotted."""

    if games < 1:
        fail(f"--games must be at least 1, got {games}")
    if opening < 0:
        fail(f"--opening must be 0 or more, got {opening}")
    if from_ply < 0:
        fail(f"--from-ply must be 0 or more, got {from_ply}")
    try:
        move_limit(agent, move_timeout)
    except TimeLimitError as err:
        fail(str(err).replace("move timeout", "--move-timeout", 1))
    out_problem = path_problem(out, folder=True)
    if out_problem is not None:
        fail(f"--out {shorten(str(out))}: {out_problem}")
    try:
        specs = split_specs(opponents) if opponents else list(DEFAULT_OPPONENTS)
    except SpecError as error:
        fail(str(error))
    if not specs:
        fail("--opponents names no agent")
    try:
        the_game = parse_game(game_spec(game, size))
        judge = judge_for(the_game, tables)
        for spec in (agent, *specs):
            check_builds(spec, the_game)
    except (AgentSpecError, GameError, OracleError) as err:
        fail(str(err))
    except KeyError as err:  # a table missing after the check (removed meanwhile)
        fail(str(err.args[0]) if err.args else str(err))
    cap = the_game.ply_cap
    if cap is not None and from_ply >= cap:
        fail(f"--from-ply {from_ply}: a game of {the_game.spec} ends by ply {cap}; no move would be judged")
    out_problem = output_problem(out, folder=True)  # before the games, not after them
    if out_problem is not None:
        fail(f"--out {shorten(str(out))}: {out_problem}")
    console = make_console(highlight=False)
    console.print(f"Judging {agent} on {the_game.title} with {judge.title}")
    columns = (
        TextColumn("games"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    judged = [0, games * len(specs)]

    def progress(done: int, total: int) -> None:
        judged[:] = [done, total]
        bar.update(task, completed=done, total=total)
        raise_if_stopping()  # a Ctrl-C swallowed by a compile stops at the next game

    with (
        LoggedProgress(*columns, console=console, transient=True) as bar,
        sigterm_as_interrupt() as termination,
    ):
        task = bar.add_task("games", total=games * len(specs))
        try:
            report = measure(
                agent,
                the_game,
                opponents=specs,
                games=games,
                seed=seed,
                opening=opening,
                from_ply=from_ply,
                judge=judge,
                progress=progress,
                move_timeout=move_timeout,
            )
        except (AgentSpecError, OracleError) as err:
            fail(str(err))
        except KeyboardInterrupt:
            how = "Terminated" if termination.received else "Interrupted"
            typer.echo(
                f"{how} after {judged[0]} of {judged[1]} games; nothing written to {out}. "
                "The same command and seed replay the same games.",
                err=True,
            )
            raise typer.Exit(termination.exit_code) from None
    if not report.moves:  # an empty report says nothing: none is written
        fail(
            f"no move of {agent} was judged: every game ended before ply {from_ply} (--from-ply) "
            "or left the positions the judge covers; nothing written"
        )
    _print_report(console, report)
    try:
        paths = [plot_accuracy([report], out / "oracle.png"), write_json(report, out / "oracle.json")]
    except OSError as err:
        fail(f"cannot write into {out}: {err.strerror or err}")
    console.print("Wrote " + ", ".join(str(p) for p in paths))


def _table(title: str, caption: str, columns: tuple[str, ...], rows: Sequence[tuple[str, ...]]) -> Table:
    """A table with the opponent first and right-aligned figures; the last row is the total."""
    table = Table(title=title, caption=caption)
    table.add_column(columns[0], overflow="fold", min_width=OPPONENT_WIDTH)
    for column in columns[1:]:
        table.add_column(column, justify="right", no_wrap=True, min_width=len(column))
    for row in rows[:-1]:
        table.add_row(*row)
    table.add_section()
    table.add_row(*rows[-1], style="bold")
    return table


def _print_report(console: Console, report: OracleReport) -> None:
    lines = [
        (r.opponent, f"{r.wins}-{r.draws}-{r.losses}", r.tally, r.distinct, f"{r.thrown_games} of {r.games}")
        for r in report.opponents
    ]
    wins = sum(r.wins for r in report.opponents)
    draws = sum(r.draws for r in report.opponents)
    losses = sum(r.losses for r in report.opponents)
    thrown_games = f"{report.thrown_games} of {report.games}"
    lines.append(("all", f"{wins}-{draws}-{losses}", report.tally, report.distinct, thrown_games))
    accuracy = [
        (name, wdl, f"{t.moves:,}", _share(t.accuracy), _share(t.exact_accuracy), _share(d.accuracy))
        for name, wdl, t, d, _ in lines
    ]
    given_up = [
        (name, f"{t.won:,}", f"{t.thrown:,}", games, f"{t.drawn:,}", f"{t.lost:,}")
        for name, _, t, _, games in lines
    ]
    print_whole(
        console,
        _table(
            f"{report.agent} on {report.game}, judged by {report.judge}",
            "accuracy: moves keeping the perfect-play value; exact: also the fastest win or the slowest "
            "loss; distinct: accuracy with each position counted once per game",
            ("opponent", "W-D-L", "moves", "accuracy", "exact", "distinct"),
            accuracy,
        ),
    )
    print_whole(
        console,
        _table(
            "Won and drawn positions given up",
            "won, drawn: the agent's moves from won or drawn positions; wins thrown: moves from a won "
            "position that no longer win; draws lost: moves from a drawn position that lose",
            ("opponent", "won", "wins thrown", "games thrown", "drawn", "draws lost"),
            given_up,
        ),
    )
    stages = Table(title=f"Accuracy by {report.pieces_label} on the board")
    for column in (report.pieces_label, "moves", "accuracy", "exact"):
        stages.add_column(column, justify="right")
    for pieces, t in sorted(report.by_pieces.items()):
        stages.add_row(str(pieces), f"{t.moves:,}", _share(t.accuracy), _share(t.exact_accuracy))
    print_whole(console, stages)
    for line in summary_lines(report):
        console.print(line)
    _print_thrown(console, report)
    _print_lost(console, report)
    console.print(f"({report.seconds:.1f} s)")


def summary_lines(report: OracleReport) -> list[str]:
    """The sentences under the tables: the won games converted, the games the ply cap drew and
    the moves left unjudged (each only where there are some)."""
    games = counted(report.games, "game")
    lines = []
    if report.won_games:
        lines.append(
            f"The agent had a won position in {report.won_games} of {games} and {_converted(report)}."
        )
    if report.capped:
        were = "was" if report.capped == 1 else "were"
        lines.append(
            f"{report.capped} of {games} {were} drawn by the ply cap: their moves (often a loop of repeated "
            "positions) weigh heavily on the move counts; the distinct column counts each position once."
        )
    if report.unjudged:
        were = "was" if report.unjudged == 1 else "were"
        where = "in positions the judge does not cover"
        if report.from_ply:
            where = f"before ply {report.from_ply} (--from-ply) or {where}"
        lines.append(f"{counted(report.unjudged, 'move')} of the agent {were} not judged: {where}.")
    return lines


def _converted(report: OracleReport) -> str:
    """How many of the games in which the agent had a won position it won: ``won all 7``."""
    had, won = report.won_games, report.won_games - report.unconverted
    if won == had:
        return "won it" if had == 1 else f"won all {had}"
    if won == 0:
        return "did not win it" if had == 1 else "won none of them"
    return f"won {won} of them, letting {report.unconverted} slip"


def _print_thrown(console: Console, report: OracleReport) -> None:
    """The won positions the agent threw away, at most :data:`THROWN_SHOWN` of them."""
    rows = [
        (r.opponent, str(t.ply), t.position, t.played, t.value, str(t.wins), t.fastest, _plies(t.plies))
        for r in report.opponents
        for t in r.thrown_wins
    ]
    _print_positions(
        console,
        "Won positions thrown away",
        "wins: winning moves there; plies: to the end of the fastest win, that move included",
        ("played", "left", "wins", "fastest", "plies"),
        rows,
    )


def _print_lost(console: Console, report: OracleReport) -> None:
    """The drawn positions the agent lost, at most :data:`THROWN_SHOWN` of them."""
    rows = [
        (r.opponent, str(t.ply), t.position, t.played, str(t.draws), t.drawing, _plies(t.plies))
        for r in report.opponents
        for t in r.lost_draws
    ]
    _print_positions(
        console,
        "Drawn positions lost",
        "draws: moves keeping the draw there; plies: to the end of the loss, that move included",
        ("played", "draws", "drawing", "plies"),
        rows,
    )


def _plies(plies: int | None) -> str:
    return "-" if plies is None else str(plies)


def _print_positions(
    console: Console, title: str, caption: str, columns: tuple[str, ...], rows: Sequence[tuple[str, ...]]
) -> None:
    """A table of positions (opponent, ply, position, then ``columns``), the first
    :data:`THROWN_SHOWN` of ``rows``; nothing when there are none."""
    if not rows:
        return
    table = Table(title=f"{title} ({len(rows)}; all of them in oracle.json)", caption=caption)
    table.add_column("opponent", overflow="fold", min_width=OPPONENT_WIDTH)
    table.add_column("ply", justify="right")
    table.add_column("position", overflow="fold", min_width=len("position"))  # whole, to be copied
    for column in columns:
        table.add_column(column, justify="right", no_wrap=True, min_width=len(column))
    for row in rows[:THROWN_SHOWN]:
        table.add_row(*row)
    print_whole(console, table)
