"""`boardlab train`: train a tabular learner with a progress bar, checkpoints and plots.

    boardlab train qlearning --game tictactoe --episodes 30000 --out runs/ttt-q
    boardlab train mcrl --game tictactoe --episodes 30000 --out runs/ttt-mc --alpha 0.2
    boardlab train ga --game "nim;nim:misere=false" --epochs 50 --hyper selection=roulette --out runs/nim-ga

``--out DIR`` receives ``model.npz`` (the table with its hyper-parameters and training state:
the file the ``qlearning`` / ``mcrl`` agents play with ``model=DIR/model.npz``),
``summary.json`` and the PNG plots. Ctrl-C or SIGTERM saves a checkpoint (exit 130 or 143);
the same command with ``--resume`` continues it, and the result is the same as an
uninterrupted run.

``ga`` (an evolved Nim player, :mod:`boardlab.train.nim_ga`) counts ``--epochs``, takes its
hyper-parameters as ``--hyper key=value,...``, trains on one or several ';'-separated Nim games
and writes ``model.json`` (the ``nimga`` agent plays ``model=DIR/model.json``) and its own plots.
``es`` (an evolved rule-based Quixo player, :mod:`boardlab.train.rules_es`) does the same for
the ``rules`` agent: ``boardlab train es --game quixo --hyper opponent=random --out DIR``.
``neat`` (a NEAT-evolved Quixo network, :mod:`boardlab.train.neat_quixo`) likewise, for the
``neat`` agent: ``boardlab train neat --game quixo --epochs 100 --out DIR``.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from boardlab.core.processes import stop_requests

MODEL_FILE = "model.npz"
GA_KIND = "ga"
ES_KIND = "es"
NEAT_KIND = "neat"
SUMMARY_FILE = "summary.json"
EVOLVED = {
    GA_KIND: "boardlab.train.nim_ga",
    ES_KIND: "boardlab.train.rules_es",
    NEAT_KIND: "boardlab.train.neat_quixo",
}
"""The evolutionary kinds and the modules that plan and run them (plan_command, run_command)."""
DEFAULT_GAMES = {GA_KIND: "nim", ES_KIND: "quixo", NEAT_KIND: "quixo"}
"""The game each kind trains on when --game is not given (the tabular learners: tictactoe)."""


class UsageProblem(Exception):
    """Bad command-line input, reported on one line with exit code 2."""


def _fail(message: str) -> typer.Exit:
    from boardlab.core.spec import one_line

    text = escape(one_line(message))
    Console(stderr=True).print(f"[red]Error:[/red] {text}", highlight=False, soft_wrap=True)
    return typer.Exit(2)


_interrupt_flag = stop_requests
"""A flag set by Ctrl-C or SIGTERM while the block runs, instead of an exception in the middle
of a compiled call (see :func:`boardlab.core.processes.stop_requests`)."""


def _whole(flag: str, text: str, low: int, high: int) -> int:
    """A whole number option in ``low..high``; UsageProblem naming the flag otherwise."""
    clean = text.strip().replace("_", "")
    if not (clean.isascii() and clean.isdigit()) or len(clean) > 19 or not low <= int(clean) <= high:
        raise UsageProblem(f"{flag} must be a whole number in {low:,}..{high:,}, got {text[:40]!r}")
    return int(clean)


@dataclasses.dataclass(frozen=True)
class EpochCounts:
    """The counts every evolutionary ``train`` kind (ga, es, neat) takes, checked."""

    epochs: int
    eval_every: int
    eval_games: int
    final_games: int
    seed: int | None


def epoch_counts(
    kind: str,
    *,
    epochs: str | None,
    default_epochs: int,
    eval_every: str,
    eval_games: str,
    final_games: str,
    seed: str | None,
    tabular_options: Mapping[str, Any],
    max_seed: int = 2**63 - 1,
) -> EpochCounts:
    """Check the counts of an evolutionary kind, refusing the tabular learners' options."""
    given = [f"--{name.replace('_', '-')}" for name, value in tabular_options.items() if value is not None]
    if given:
        raise UsageProblem(
            f"{', '.join(given)}: options of qlearning and mcrl; {kind} takes --epochs and --hyper"
        )
    total = _whole("--epochs", epochs or str(default_epochs), 1, 10**7)
    every = _whole("--eval-every", eval_every, 0, 10**7)
    return EpochCounts(
        epochs=total,
        eval_every=every or max(1, total // 20),
        eval_games=_whole("--eval-games", eval_games, 0, 10**6),
        final_games=_whole("--final-games", final_games, 0, 10**6),
        seed=None if seed is None else _whole("--seed", seed, 0, max_seed),
    )


def run_file(out: Path | None, name: str, resume: bool, force: bool) -> Path:
    """The file in ``--out`` that a run writes and ``--resume`` reads, checked against the flags."""
    from boardlab.core.files import path_problem

    if out is None:
        raise UsageProblem("--out DIR is required: the folder for the model, its summary and plots")
    problem = path_problem(out, folder=True)
    if problem is not None:
        raise UsageProblem(f"--out {str(out)[:80]}: {problem}")
    path = out / name
    if resume and not path.exists():
        raise UsageProblem(f"nothing to resume: {path} does not exist")
    if not resume and path.exists() and not force:
        raise UsageProblem(f"{path} exists; pass --resume to continue it or --force to start over")
    return path


def against_specs(against: str, default: Sequence[str]) -> list[str]:
    """The opponent specs of ``--against`` (separated by ``;``), or ``default``."""
    specs = [spec.strip() for spec in against.split(";") if spec.strip()] if against else []
    return specs or list(default)


def checked_opponents(against: str, default: Sequence[str], game: Any) -> list[str]:
    """:func:`against_specs`, each built once for ``game`` so that a bad spec is refused now."""
    from boardlab.agents.base import AgentSpecError, make_agent

    specs = against_specs(against, default)
    for spec in specs:
        try:
            make_agent(spec, seed=0, game=game)
        except AgentSpecError as error:
            raise UsageProblem(f"--against: {error}") from None
    return specs


def check_resumed_params(given: Any, stored: Any, free: Collection[str] = ()) -> None:
    """Hyper-parameters given with --resume must be the run's own (but the ``free`` ones)."""
    kept = dataclasses.asdict(stored)
    for name, value in dataclasses.asdict(given).items():
        if kept[name] != value and name not in free:
            raise UsageProblem(
                f"--hyper {name}={value} differs from the run being resumed ({kept[name]}); "
                "a resumed run keeps its hyper-parameters"
            )


def check_resumed_seed(seed: int | None, resumed_seed: int) -> None:
    """A --seed given with --resume must be the run's own."""
    if seed is not None and seed != resumed_seed:
        raise UsageProblem(f"--seed {seed} differs from the run being resumed (seed {resumed_seed})")


def _hyper_values(method: str, given: dict[str, str | None]) -> dict[str, Any]:
    """The hyper-parameters given on the command line, parsed and checked by their options."""
    from boardlab.core.spec import SpecError, options_of
    from boardlab.train.tabular import METHODS

    known = {o.name: o for o in options_of(METHODS[method])}
    values = {}
    for name, text in given.items():
        if text is None:
            continue
        if name not in known:
            flag = "--" + name.replace("_", "-")
            raise UsageProblem(f"{method} has no {flag}; its options: {', '.join(sorted(known))}")
        try:
            values[name] = known[name].parse(method, text)
        except SpecError as error:
            raise UsageProblem(str(error)) from None
    return values


def _trainer(
    method: str, game: Any, out: Path, resume: bool, force: bool, seed: int | None, hyper: dict[str, Any]
) -> Any:
    from boardlab.models.table import ModelFileError
    from boardlab.train.tabular import Trainer, TrainingError, params_for

    path = out / MODEL_FILE
    if resume:
        if not path.exists():
            raise UsageProblem(f"nothing to resume: {path} does not exist")
        try:
            trainer = Trainer.resume(path, game, method)
        except ModelFileError as error:
            raise UsageProblem(str(error)) from None
        stored = dataclasses.asdict(trainer.params)
        for name, value in hyper.items():
            if stored[name] != value:
                raise UsageProblem(
                    f"--{name.replace('_', '-')} {value} differs from the run being resumed "
                    f"({stored[name]}); a resumed run keeps its hyper-parameters"
                )
        if seed is not None and seed != trainer.seed:
            raise UsageProblem(f"--seed {seed} differs from the run being resumed (seed {trainer.seed})")
        return trainer
    if path.exists() and not force:
        raise UsageProblem(f"{path} exists; pass --resume to continue it or --force to start over")
    try:
        return Trainer.start(game, method, params_for(method, hyper), seed=0 if seed is None else seed)
    except TrainingError as error:
        raise UsageProblem(str(error)) from None


def _hyper_table(trainer: Any, title: str) -> Table:
    table = Table(title=title)
    table.add_column("hyper-parameter")
    table.add_column("value", justify="right")
    for name, value in dataclasses.asdict(trainer.params).items():
        table.add_row(name, str(value))
    table.add_row("seed", str(trainer.seed))
    return table


def _progress(console: Console) -> Progress:
    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(bar_width=24),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.fields[speed]} eps={task.fields[epsilon]:.3f} {task.fields[last]}"),
        console=console,
    )


def _last_eval(progress: Any) -> str:
    parts = [f"{o} {r['wins']}/{r['draws']}/{r['losses']}" for o, r in progress.last_eval.items()]
    if progress.mistakes is not None:
        parts.append(f"bad moves {progress.mistakes}")
    return ("W/D/L vs " + ", ".join(parts)) if parts else ""


def train_command(
    kind: Annotated[
        str, typer.Argument(metavar="KIND", help="What to train: qlearning, mcrl, ga, es or neat.")
    ] = "",
    out: Annotated[
        Path | None,
        typer.Option("--out", metavar="DIR", help="Folder for model.npz, summary.json and the plots."),
    ] = None,
    game: Annotated[
        str | None,
        typer.Option(help="Game spec, e.g. quixo:size=3 (default: tictactoe; ga nim; es and neat quixo)."),
    ] = None,
    episodes: Annotated[
        str | None,
        typer.Option(metavar="N", help="Episodes in total (a resumed run counts its own; default 30000)."),
    ] = None,
    resume: Annotated[bool, typer.Option("--resume", help="Continue the run saved in --out.")] = False,
    force: Annotated[bool, typer.Option("--force", help="Start over even if --out holds a model.")] = False,
    seed: Annotated[
        str | None, typer.Option(metavar="N", help="Seed of every random choice (default 0).")
    ] = None,
    alpha: Annotated[str | None, typer.Option(help="Learning rate.")] = None,
    gamma: Annotated[
        str | None, typer.Option(help="Discount (qlearning: per own move; mcrl: per ply).")
    ] = None,
    epsilon: Annotated[str | None, typer.Option(help="Exploration rate at the start.")] = None,
    epsilon_end: Annotated[str | None, typer.Option(help="Exploration rate after the decay.")] = None,
    epsilon_decay: Annotated[str | None, typer.Option(help="Episodes of linear exploration decay.")] = None,
    q_init: Annotated[str | None, typer.Option(help="qlearning: value of an untried action.")] = None,
    opponent: Annotated[str | None, typer.Option(help="self (self-play) or random.")] = None,
    opening: Annotated[
        str | None, typer.Option(help="Exploring starts: up to N random opening plies.")
    ] = None,
    max_plies: Annotated[str | None, typer.Option(help="Plies after which an episode is a draw.")] = None,
    shaping: Annotated[
        str | None, typer.Option(help="Reward shaping: none, or an evaluation of the game as potential.")
    ] = None,
    shaping_weight: Annotated[str | None, typer.Option(help="Scale of the shaping potential.")] = None,
    eval_every: Annotated[
        str, typer.Option(metavar="N", help="Episodes between learning-curve points (0: 1/20 of the run).")
    ] = "0",
    eval_games: Annotated[
        str, typer.Option(metavar="N", help="Games per opponent at each curve point.")
    ] = "100",
    final_games: Annotated[
        str, typer.Option(metavar="N", help="Games per opponent after training, for the plots.")
    ] = "1000",
    against: Annotated[
        str, typer.Option(help="Fixed opponents, ';'-separated specs (default: random;perfect).")
    ] = "",
    epochs: Annotated[
        str | None, typer.Option(metavar="N", help="ga, es: epochs in total (default 50, es 100).")
    ] = None,
    hyper: Annotated[
        str | None,
        typer.Option(metavar="K=V,...", help="ga: hyper-parameters, e.g. genome=target,selection=roulette."),
    ] = None,
) -> None:
    """Train a tabular learner (Q-learning, Monte Carlo value learning) or an evolved Nim player (ga)
    and plot what it learned."""
    from boardlab.games import GameOptionError, parse_game
    from boardlab.train.tabular import METHOD_TITLES, METHODS, default_opponents

    console = Console()
    game = game if game is not None else DEFAULT_GAMES.get(kind.strip().lower(), "tictactoe")
    given = {
        "alpha": alpha,
        "gamma": gamma,
        "epsilon": epsilon,
        "epsilon_end": epsilon_end,
        "epsilon_decay": epsilon_decay,
        "q_init": q_init,
        "opponent": opponent,
        "opening": opening,
        "max_plies": max_plies,
        "shaping": shaping,
        "shaping_weight": shaping_weight,
    }
    if kind.strip().lower() in EVOLVED:
        options = {"game": game, "out": out, "epochs": epochs, "hyper": hyper, "resume": resume}
        options |= {"force": force, "seed": seed, "eval_every": eval_every, "eval_games": eval_games}
        options |= {"final_games": final_games, "against": against}
        _train_evolved(kind.strip().lower(), console, options, {**given, "episodes": episodes})
        return
    try:
        method = kind.strip().lower()
        kinds = ", ".join([*METHODS, GA_KIND, ES_KIND, NEAT_KIND])
        if not method:
            raise UsageProblem(f"say what to train: boardlab train KIND --out DIR, KIND one of {kinds}")
        if method not in METHODS:
            raise UsageProblem(f"unknown kind {kind[:40]!r}; accepted: {kinds}")
        if epochs is not None or hyper is not None:
            raise UsageProblem(f"--epochs and --hyper are options of {GA_KIND}; {method} counts --episodes")
        try:
            the_game = parse_game(game)
        except GameOptionError as error:
            raise UsageProblem(str(error)) from None
        total = _whole("--episodes", episodes or "30000", 1, 10**12)
        every = _whole("--eval-every", eval_every, 0, 10**12)
        games_per_point = _whole("--eval-games", eval_games, 0, 10**6)
        games_at_end = _whole("--final-games", final_games, 0, 10**6)
        seed_value = None if seed is None else _whole("--seed", seed, 0, 2**63 - 1)
        hyper_values = _hyper_values(method, given)
        opponents = checked_opponents(against, default_opponents(the_game), the_game)
        if out is None:
            raise UsageProblem("--out DIR is required: the folder for the model, its summary and plots")
        if out.exists() and not out.is_dir():
            raise UsageProblem(f"--out {out} is a file, not a folder")
        trainer = _trainer(method, the_game, out, resume, force, seed_value, hyper_values)
    except UsageProblem as problem:
        raise _fail(str(problem)) from None
    title = f"{METHOD_TITLES[method]} on {the_game.spec}"
    console.print(_hyper_table(trainer, title))
    _run(console, trainer, title, out, total, every, games_per_point, games_at_end, opponents)


def _run(
    console: Console,
    trainer: Any,
    title: str,
    out: Path,
    episodes: int,
    eval_every: int,
    eval_games: int,
    final_games: int,
    opponents: list[str],
) -> None:
    from boardlab.models.table import atomic_write
    from boardlab.train.plots import write_plots
    from boardlab.train.tabular import perfect_play_report, play_games, run_training, small_solution, tally

    out.mkdir(parents=True, exist_ok=True)
    path = out / MODEL_FILE
    every = eval_every or max(1, episodes // 20)
    with console.status("solving the game for the mistake count..."):
        solution = small_solution(trainer.game)
    start_episodes = trainer.episodes
    with _interrupt_flag() as stop, _progress(console) as bar:
        task = bar.add_task(
            trainer.method, total=episodes, completed=trainer.episodes, speed="", epsilon=1.0, last=""
        )
        spent = [0.0]

        def on_progress(p: Any) -> None:
            spent[0] += p.seconds
            done = p.episodes - start_episodes
            speed = f"{done / spent[0]:,.0f} ep/s" if spent[0] > 0 and done > 0 else ""
            bar.update(task, completed=p.episodes, speed=speed, epsilon=p.epsilon, last=_last_eval(p))

        finished = run_training(
            trainer,
            episodes,
            eval_every=every,
            eval_games=eval_games,
            opponents=opponents,
            solution=solution,
            checkpoint=path,
            on_progress=on_progress,
            should_stop=lambda: stop[0],
        )
    if not finished:
        console.print(
            f"{stop.how} after {trainer.episodes:,} episodes; saved {path}. "
            "Run the same command with --resume to continue."
        )
        raise typer.Exit(stop.exit_code)
    policy = trainer.policy()
    results = []
    with console.status(f"playing {final_games} games against each opponent..."):
        for index, opponent in enumerate(opponents):
            results.extend(play_games(policy, opponent, final_games, trainer.seed * 7919 + 104_729 + index))
        report = perfect_play_report(policy, solution) if solution is not None else None
    header = trainer.model.header
    summary = {
        "method": trainer.method,
        "game": trainer.game.spec,
        "hyper": header["hyper"],
        "seed": trainer.seed,
        "episodes": trainer.episodes,
        "train_seconds": round(float(header.get("train_seconds", 0.0)), 4),
        "table_entries": len(trainer.model.table),
        "model_bytes": path.stat().st_size,
        "final": {o: tally([r for r in results if r.opponent == o]) for o in opponents},
    }
    if report is not None:
        summary["perfect_play"] = {
            "perfect": report.perfect,
            "positions": report.positions,
            "mistakes": len(report.mistakes),
        }
    text = json.dumps(summary, indent=2)
    atomic_write(out / SUMMARY_FILE, lambda handle: handle.write(text.encode()))
    plots = write_plots(out, header.get("curve", []), results, title)
    table = Table(
        title=f"{title}: {trainer.episodes:,} episodes in {summary['train_seconds']:.2f} s of training"
    )
    for column in ("opponent", "games", "wins", "draws", "losses"):
        table.add_column(column, justify="right")
    for opponent, counts in summary["final"].items():
        table.add_row(opponent, *(str(counts[k]) for k in ("games", "wins", "draws", "losses")))
    console.print(table)
    if report is not None:
        verdict = (
            "perfect play"
            if report.perfect
            else f"{len(report.mistakes)} positions where a greedy move gives away value"
        )
        console.print(
            f"Checked against the solved game: {verdict} ({report.positions:,} positions where it chooses)."
        )
    console.print(
        f"Model: {path} ({summary['model_bytes']:,} bytes); plots: {', '.join(str(p) for p in plots)}"
    )


def _train_evolved(
    kind: str, console: Console, options: dict[str, Any], tabular_options: dict[str, Any]
) -> None:
    """``boardlab train ga|es|neat``: plan the run with the kind's module, then run it."""
    module = importlib.import_module(EVOLVED[kind])
    try:
        plan = module.plan_command(**options, tabular_options=tabular_options)
    except UsageProblem as problem:
        raise _fail(str(problem)) from None
    module.run_command(console, plan)


def register(app: typer.Typer) -> None:
    """Add the ``train`` command to ``app``."""
    app.command("train")(train_command)


__all__ = ["MODEL_FILE", "SUMMARY_FILE", "register", "train_command"]
