"""`boardlab agents` and `boardlab games`: what can be played with, in one short table each, and
one name's options in full.

    boardlab agents                 # every agent: what it does, its games, its option names
    boardlab agents alphabeta mcts  # each option of these: default, accepted values, meaning
    boardlab games quixo            # Quixo's options and evaluations
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from boardlab.agents.base import AgentSpecError, list_agents, parse_spec
from boardlab.core.console import make_console
from boardlab.core.spec import OptionSpec, format_value, options_of
from boardlab.games import GameOptionError, available_games, parse_game
from boardlab.ui.errors import fail

AGENT_EXAMPLE = "alphabeta:depth=5,eval=lines3"
GAME_EXAMPLE = "connect4:width=8,height=7"


def flag(name: str) -> str:
    """The command-line flag of an option: ``epsilon_end`` is ``--epsilon-end``."""
    return "--" + name.replace("_", "-")


def options_table(title: str, specs: Iterable[OptionSpec], *, flags: bool = False) -> Table:
    """One row per option: its name (``--name TYPE`` as a flag), default, and what it sets with
    the values it accepts."""
    table = Table(title=title)
    table.add_column("flag" if flags else "option", style="bold", no_wrap=True)
    table.add_column("default", justify="right")
    table.add_column("what it sets")
    for spec in specs:
        name = f"{flag(spec.name)} {spec.type_name.upper()}" if flags else spec.name
        table.add_row(name, escape(format_value(spec.default)), escape(spec.explained()))
    if not table.row_count:  # an empty table reads as a listing that failed
        table.add_row("-", "", "no options")
    return table


def _names(specs: Iterable[OptionSpec]) -> str:
    return ", ".join(spec.name for spec in specs) or "-"


def agents_overview() -> Table:
    """Every agent on one row: name, what it does, the games it plays, its option names."""
    table = Table(
        title=f"Agents (build them from a spec such as {AGENT_EXAMPLE})",
        caption="boardlab agents NAME: an agent's options, their defaults and accepted values",
    )
    table.add_column("name", style="bold", no_wrap=True)
    table.add_column("what it does")
    table.add_column("games", max_width=16)
    table.add_column("options")
    for cls in list_agents():
        games = ", ".join(cls.games) or "all"
        table.add_row(cls.name, escape(cls.summary), games, _names(options_of(cls.Settings)))
    return table


def agent_options(spec: str) -> Table:
    """The options of the agent of ``spec`` (a name, or a whole spec) in full; AgentSpecError for
    an unknown name or a bad spec."""
    cls = parse_spec(spec)[0]
    games = ", ".join(cls.games) or "every game"
    return options_table(f"{cls.name}: {cls.summary} ({games})", options_of(cls.Settings))


def games_overview() -> Table:
    """Every game on one row: name, title, its option names, its evaluations."""
    table = Table(
        title=f"Games (build them from a spec such as {GAME_EXAMPLE})",
        caption="boardlab games NAME: a game's options, their defaults and accepted values",
    )
    for column in ("name", "title", "options", "evaluations (first is the default)"):
        table.add_column(column)
    for name in available_games():
        game = parse_game(name)
        table.add_row(name, game.title, _names(options_of(type(game))), ", ".join(game.evaluations))
    return table


def game_options(spec: str) -> Table:
    """The options of the game of ``spec`` (a name, or a whole spec) in full, the variant's
    evaluations below; GameOptionError for an unknown name or a bad spec."""
    game = parse_game(spec)
    table = options_table(f"{game.name}: {game.title}", options_of(type(game)))
    table.caption = f"evaluations (first is the default): {', '.join(game.evaluations)}"
    return table


def _show(names: list[str] | None, overview: Callable[[], Table], detail: Callable[[str], Table]) -> None:
    """The overview without names, else each name's table (every name checked before printing)."""
    try:
        tables = [detail(name) for name in names] if names else [overview()]
    except (AgentSpecError, GameOptionError) as err:
        fail(str(err))
    console = make_console()
    for table in tables:
        console.print(table)


def _names_argument(what: str, example: str) -> Any:
    """The optional NAME... argument of `agents` and `games`."""
    help = f"{what} to show in full: names, or specs such as {example}"
    return typer.Argument(metavar="NAME", help=help, show_default=False)


def register(app: typer.Typer) -> None:
    """Attach the `agents` and `games` commands to the main app."""

    @app.command("agents")
    def agents_command(
        names: Annotated[list[str] | None, _names_argument("agents", "mcts:iters=500")] = None,
    ) -> None:
        """List every agent with its option names; with NAMEs, each option of those agents with its
        default and accepted values (spec: NAME:key=value,...)."""
        _show(names, agents_overview, agent_options)

    @app.command("games")
    def games_command(
        names: Annotated[list[str] | None, _names_argument("games", "quixo:size=4")] = None,
    ) -> None:
        """List every game with its option names and evaluations; with NAMEs, each option of those
        games with its default and accepted values (spec: NAME:key=value,...)."""
        _show(names, games_overview, game_options)
