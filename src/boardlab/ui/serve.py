"""The ``boardlab serve`` command: the browser board (:mod:`boardlab.ui.web`) on a local port."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from boardlab.agents.base import AgentSpecError, make_agent
from boardlab.arena import ArenaError, Store
from boardlab.core.spec import one_line, shorten
from boardlab.games import available_games, parse_game
from boardlab.ui.errors import fail
from boardlab.ui.search_analysis import SEARCH_AGENT


def analysis_agent_problem(spec: str) -> str:
    """Why the analysis agent ``spec`` plays none of the games (a bad spec, a missing model
    file), or "" when it plays at least one of them."""
    problems = []
    for name in available_games():
        try:
            make_agent(spec, seed=0, game=parse_game(name))
            return ""
        except AgentSpecError as err:
            problems.append(str(err))
    return problems[0] if problems else ""


def store_problem(db: Path) -> str:
    """Why ``db`` is not a readable arena store, or ""."""
    try:
        if not db.is_file():
            return "not a regular file" if db.exists() else "no such arena store file"
        with Store(db, read_only=True) as store:
            store.tournaments()
    except OSError as err:  # a name too long for the system, say
        return str(err.strerror or err)
    except ArenaError as err:
        return one_line(str(err))
    return ""


def register(app: typer.Typer) -> None:
    """Attach the ``serve`` command to a typer app."""
    app.command("serve", help="Play, watch and analyse the games in the browser.")(serve)


def serve(
    host: Annotated[
        str, typer.Option(help="address to listen on (other machines reach it only if not 127.0.0.1)")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="port to listen on")] = 8000,
    db: Annotated[
        Path | None, typer.Option("--db", help="an arena store whose games the page replays")
    ] = None,
    workers: Annotated[int, typer.Option(min=1, max=64, help="processes the agents think in")] = 2,
    analysis_workers: Annotated[int, typer.Option(min=1, max=64, help="processes analyses run in")] = 1,
    analysis_seconds: Annotated[
        float,
        typer.Option(
            min=0.05, max=600, help="seconds per analysis the page starts with (exact values, else a search)"
        ),
    ] = 2.0,
    analysis_agent: Annotated[
        str, typer.Option(help="the agent whose decision the analysis shows where no exact play answers")
    ] = SEARCH_AGENT,
    max_games: Annotated[int, typer.Option(min=1, max=100_000, help="most games held at once")] = 100,
    idle_minutes: Annotated[
        float, typer.Option(min=0.1, max=10_000, help="a game nobody looks at is dropped after this")
    ] = 30.0,
    max_think: Annotated[
        float, typer.Option(min=0.05, max=3600, help="most seconds per move the page may give an agent")
    ] = 30.0,
    allow_paths: Annotated[
        bool,
        typer.Option(
            "--allow-paths",
            help="let the page name agents that load files or run programs (course:player=PATH, "
            "engine:cmd=PATH, model=)",
        ),
    ] = False,
) -> None:
    """Serve the browser board until Ctrl-C."""
    try:
        from boardlab.ui.web.app import ServeSettings
        from boardlab.ui.web.hall import HallSettings
        from boardlab.ui.web.server import ServeError, check_address
        from boardlab.ui.web.server import serve as run_server
    except ImportError as err:
        fail(f"serve needs the web extra (pip install 'boardlab[web]'): {err}")
    if not host.strip():  # the system would listen on every interface
        fail("--host is empty; give an address (127.0.0.1 for this machine, 0.0.0.0 for every interface)")
    problem = analysis_agent_problem(analysis_agent)
    if problem:
        fail(f"--analysis-agent: {problem}")
    if db is not None:
        problem = store_problem(db)
        if problem:
            fail(f"--db {shorten(str(db))}: {problem}")
    hall = HallSettings(
        max_games=max_games, idle_seconds=60 * idle_minutes, max_think=max_think, allow_paths=allow_paths
    )
    settings = ServeSettings(
        hall=hall,
        agent_workers=workers,
        analysis_workers=analysis_workers,
        analysis_seconds=min(analysis_seconds, max_think),
        analysis_agent=analysis_agent,
        db=None if db is None else str(db),
    )
    try:
        check_address(host, port)
    except ServeError as err:
        fail(str(err))
    shown = f"[{host}]" if ":" in host else host
    typer.echo("boardlab is starting its workers...")

    def announce() -> None:  # once the page can be opened
        typer.echo(f"boardlab serving on http://{shown}:{port}/  (Ctrl-C stops it)")

    run_server(settings, host, port, announce=announce)
