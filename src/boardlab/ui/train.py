"""`boardlab train KIND`: any training method with a progress bar, checkpoints, a summary and plots.

    boardlab train qlearning --game tictactoe --episodes 30000 --out runs/ttt-q
    boardlab train mcrl --game tictactoe --episodes 30000 --out runs/ttt-mc --alpha 0.2
    boardlab train ga --game "nim;nim:misere=false" --epochs 50 --selection roulette --out runs/nim-ga
    boardlab train es --game quixo --opponent random --out runs/rules-es
    boardlab train neat --game quixo --epochs 100 --out runs/neat

The options every kind shares are this command's own; a method's hyper-parameters are flags
derived from its settings dataclass (``boardlab train KIND --help`` lists them with their help,
defaults and accepted values), or equally ``--hyper key=value,...``. ``--out DIR`` receives the
model (``model.npz`` for the tabular learners, ``model.json`` for the others; the matching
agent plays ``model=DIR/model...``), ``summary.json`` and the PNG plots. Ctrl-C or SIGTERM
saves a checkpoint (exit 130 or 143); the same command with ``--resume`` continues it, and the
result is the same as an uninterrupted run. Bad input is one line on stderr, exit 2, before
any work starts.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.progress import BarColumn, TextColumn, TimeElapsedColumn
from rich.table import Column, Table
from typer.core import TyperCommand

from boardlab.agents.base import AgentSpecError, check_whole_game, make_agent
from boardlab.core.console import LoggedProgress, counted, make_console
from boardlab.core.files import atomic_write_text, output_problem, path_problem, removed_if_refused
from boardlab.core.inputs import InputFileError, read_json
from boardlab.core.processes import Termination, stop_requests
from boardlab.core.spec import SpecError, format_value, options_of, split_spec, with_article
from boardlab.games import GameOptionError
from boardlab.models.errors import ModelFileError
from boardlab.train import METHOD_MODULES, method
from boardlab.train.run import (
    RUN_FILES,
    SUMMARY_FILE,
    CheckpointWriteError,
    Method,
    TrainingError,
    TrainingRun,
    changed_settings,
    resume_run,
    resumed_settings,
    settings_from_texts,
    tallies,
    train,
)
from boardlab.train.settings import SETTINGS
from boardlab.ui.errors import fail
from boardlab.ui.listing import flag, options_table

MAX_TOTAL = {"episodes": 10**12, "epochs": 10**7}
DEFAULT_EVAL_GAMES = 100
DEFAULT_FINAL_GAMES = 1000
MAX_SUMMARY_BYTES = 1 << 20
MAX_RUN_FILE_BYTES = 1 << 30
"""The largest JSON checkpoint or model read to tell which kind of run wrote it."""
RUN_FILE_FORMATS = {
    "boardlab-nim-ga": "ga",
    "boardlab-quixo-rules": "es",
    "boardlab-neat": "neat",
    "boardlab-neat-checkpoint": "neat",
}
"""The kind of run whose JSON model or checkpoint declares each format (the files of ``ga``
and ``es`` also name their ``method``): ``ga``, ``es`` and ``neat`` all write a ``model.json``,
so its name alone does not tell whose run a folder holds. Written out here, so that telling
loads no method (neat-python)."""


class UsageProblem(Exception):
    """Bad command-line input, reported on one line with exit code 2."""


def _write_failure(error: CheckpointWriteError, unit: str) -> NoReturn:
    """The one line and exit 1 of a run stopped by a checkpoint it could not write."""
    if error.kept is None:
        after = "nothing of this run was saved"
    else:
        after = f"the checkpoint of {error.kept:,} {unit} is kept: run the same command with --resume"
    fail(f"{error}; {after}", code=1)


# --- reading the command line ------------------------------------------------------------------


def _given(text: str | None, default: int) -> str:
    """An option's text, or its default's when it is not given (None: so that an option a
    method does not apply can be told from one left alone)."""
    return str(default) if text is None else text


def _whole(flag: str, text: str, low: int, high: int) -> int:
    """A whole number option in ``low..high``; UsageProblem naming the flag otherwise."""
    clean = text.strip().replace("_", "")
    if not (clean.isascii() and clean.isdigit()) or len(clean) > 19 or not low <= int(clean) <= high:
        raise UsageProblem(f"{flag} must be a whole number in {low:,}..{high:,}, got {text[:40]!r}")
    return int(clean)


def hyper_texts(kind: str, settings: type, extra: Sequence[str], hyper: str | None) -> dict[str, str]:
    """The texts of the settings given as flags (``--alpha 0.2``, ``--alpha=0.2``) and in
    ``--hyper key=value,...``, by field name; UsageProblem for anything else."""
    known = [o.name for o in options_of(settings)]
    texts: dict[str, str] = {}
    args = list(extra)
    while args:
        arg = args.pop(0)
        if not arg.startswith("--") or len(arg) < 3:
            raise UsageProblem(f"unexpected argument {arg[:40]!r}; write boardlab train KIND [OPTIONS]")
        name, eq, value = arg[2:].partition("=")
        key = name.replace("-", "_")
        if key not in known:
            flags = ", ".join(flag(k) for k in known)
            raise UsageProblem(f"{kind} has no {flag(name[:40])}; its hyper-parameters: {flags}")
        if not eq:
            if not args:
                raise UsageProblem(f"{flag(key)} needs a value")
            value = args.pop(0)
        if key in texts:
            raise UsageProblem(f"{flag(key)} is given twice")
        texts[key] = value
    if hyper is not None:
        try:
            _, pairs = split_spec(f"{kind}:{hyper}")
        except SpecError as error:
            raise UsageProblem(f"--hyper: {error}") from None
        for key, value in pairs.items():
            if key in texts:
                raise UsageProblem(f"{key} is given both as {flag(key)} and in --hyper")
            texts[key] = value
    return texts


@dataclass
class Plan:
    """A checked ``boardlab train`` command, ready to run."""

    kind: str
    method: Method
    run: TrainingRun
    out: Path
    total: int
    eval_every: int
    eval_games: int
    final_games: int
    opponents: list[str]


def _out_folder(method: Method, out: Path | None, resume: bool, force: bool) -> Path:
    """The checkpoint in ``--out`` that a run writes and ``--resume`` reads, checked against the flags."""
    if out is None:
        raise UsageProblem("--out DIR is required: the folder for the model, its summary and plots")
    problem = path_problem(out, folder=True)
    if problem is not None:
        raise UsageProblem(f"--out {str(out)[:80]}: {problem}")
    path = out / method.checkpoint_file
    found = [name for name in RUN_FILES if (out / name).exists()]
    others = [out / name for name in found if name not in (path.name, SUMMARY_FILE)]  # path: read to resume
    kind = _summary_kind(out / SUMMARY_FILE) or next(filter(None, map(_file_kind, others)), None)
    if resume and kind not in (None, method.name):
        raise UsageProblem(_another_kind(method, path, kind))
    if resume and not path.exists():
        if found:
            raise UsageProblem(
                f"nothing to resume: --out {str(out)[:80]} holds a run ({', '.join(found)}) but no "
                f"{method.checkpoint_file}, which {with_article(method.name)} run saves"
            )
        raise UsageProblem(f"nothing to resume: {path} does not exist")
    if not resume and not force:
        if kind is None and path.exists():
            kind = _file_kind(path)
        if path.exists() and kind in (None, method.name):
            raise UsageProblem(f"{path} exists; pass --resume to continue it or --force to start over")
        if found:
            run = "a run" if kind is None else f"{with_article(kind)} run"
            raise UsageProblem(
                f"--out {str(out)[:80]} holds {run} ({', '.join(found)}); pass --force to start over "
                "there, or name another folder"
            )
    problem = output_problem(out, folder=True)  # proven writable now, not after the training
    if problem is not None:
        raise UsageProblem(f"--out {str(out)[:80]}: {problem}")
    return path


def _another_kind(method: Method, path: Path, kind: str) -> str:
    """The refusal of ``--resume`` in the folder of ``path`` (``method``'s checkpoint), which
    holds a run of another ``kind``."""
    out = path.parent
    why = f"its {path.name} is the {kind} run's" if path.exists() else f"no {path.name}"
    return (
        f"nothing to resume: --out {str(out)[:80]} holds {with_article(kind)} run, not "
        f"{with_article(method.name)} run ({why}); resume it with boardlab train {kind}, or name "
        "another folder"
    )


def _file_kind(path: Path) -> str | None:
    """The kind of run whose JSON checkpoint or model ``path`` is (its ``method``, else its
    ``format``: :data:`RUN_FILE_FORMATS`), None when it does not say (or is no such file)."""
    if path.suffix != ".json" or not path.is_file():
        return None
    try:
        data = read_json(path, "run file", MAX_RUN_FILE_BYTES)
    except InputFileError:
        return None
    if not isinstance(data, dict):
        return None
    kind, declared = data.get("method"), data.get("format")
    if isinstance(kind, str) and kind in METHOD_MODULES:
        return kind
    return RUN_FILE_FORMATS.get(declared) if isinstance(declared, str) else None


def _summary_kind(path: Path) -> str | None:
    """The kind of the run whose ``summary.json`` is ``path`` (its ``method``), None if unknown."""
    if not path.is_file():
        return None
    try:
        kind = read_json(path, "summary", MAX_SUMMARY_BYTES).get("method")
    except (InputFileError, AttributeError):
        return None
    return kind if isinstance(kind, str) and kind in METHOD_MODULES else None


def _saved_game(method: Method, out: Path | None) -> str:
    """The game of the run saved in ``out`` as its method reads it from the checkpoint (empty
    when there is none, or it cannot tell: resuming it then says what is wrong)."""
    if out is None:
        return ""
    try:
        path = out / method.checkpoint_file
        text = method.saved_game(path) if path.is_file() else ""
    except (ModelFileError, InputFileError, OSError, KeyError, TypeError, ValueError, AttributeError):
        return ""
    return text if isinstance(text, str) else ""


def _specs(method: Method, text: str) -> list[str] | None:
    """The game specs of a ``--game`` text, None when it names no game of the method."""
    try:
        games = method.games(text)
    except (GameOptionError, TrainingError):
        return None
    return [g.spec for g in (games if isinstance(games, tuple) else (games,))]


def _resumed_game(method: Method, out: Path | None, given: str | None) -> str | None:
    """The ``--game`` text of a resumed run: the saved run's game when ``--game`` is not given;
    UsageProblem when it is given and names another game (both named)."""
    saved = _saved_game(method, out)
    if not saved or given is None:
        return given or saved or None
    asked = _specs(method, given)
    if asked is not None and asked != _specs(method, saved):
        raise UsageProblem(
            f"--game {given[:80]} differs from the run being resumed ({saved[:80]}); a resumed run "
            "keeps its game: leave --game out"
        )
    return given


def _opponents(against: str, default: Sequence[str], game: Any) -> list[str]:
    """The specs of ``--against`` (separated by ``;``), or ``default``, each built once for
    ``game`` so that a bad spec is refused now."""
    specs = [spec.strip() for spec in against.split(";") if spec.strip()] if against else []
    source = "--against" if specs else f"the default opponents (name others with --against) on {game.spec}"
    specs = specs or list(default)
    for spec in specs:
        try:
            # each plays whole evaluation games: an agent that never can is refused for that,
            # before building it asks for what it would need (tables not built, say)
            check_whole_game(spec, game)
            make_agent(spec, seed=0, game=game)
        except AgentSpecError as error:
            raise UsageProblem(f"{source}: {error}") from None
    return specs


def _resumed(
    method: Method, path: Path, games: Any, settings: Any, given: Mapping[str, str], seed: int | None
) -> TrainingRun:
    """The run saved at ``path``; the settings and seed given must be its own (but the free ones)."""
    try:
        run = resume_run(method, path, games)
    except ModelFileError as error:
        kind = _file_kind(path)  # the file may be another method's (ga, es and neat write model.json)
        if kind not in (None, method.name):
            raise UsageProblem(_another_kind(method, path, kind)) from None
        raise UsageProblem(str(error)) from None
    for name in changed_settings(settings, run.params, method.free):
        if name in given:
            raise UsageProblem(
                f"{flag(name)} {format_value(getattr(settings, name))} differs from the run being resumed "
                f"({format_value(getattr(run.params, name))}); a resumed run keeps its hyper-parameters"
            )
    if seed is not None and seed != run.seed:
        raise UsageProblem(f"--seed {seed} differs from the run being resumed (seed {run.seed})")
    run.params = resumed_settings(run.params, settings, given, method.free, method.follows)
    return run


def _saved_cluster_hint(run: TrainingRun, resume: bool, given: Mapping[str, str]) -> str:
    """What to add to the error of a resumed run's cluster that does not answer, when the cluster
    is the one it was saved with: how to resume it elsewhere. Empty otherwise."""
    address = getattr(run.params, "address", "")
    if not resume or not address or "backend" in given or "address" in given:
        return ""
    return (
        "; it is the cluster the run was saved with: resume with --backend local to play on this "
        "machine, or --address HOST:PORT of a cluster that answers"
    )


def plan_command(kind: str, options: Mapping[str, Any], extra: Sequence[str]) -> Plan:
    """Check a ``boardlab train`` command (``options``: its own options by name, ``extra``: the
    method's flags) and start or read its run; UsageProblem naming the first problem otherwise."""
    kinds = ", ".join(METHOD_MODULES)
    kind = kind.strip().lower()
    if not kind:
        raise UsageProblem(f"say what to train: boardlab train KIND --out DIR, KIND one of {kinds}")
    if kind not in METHOD_MODULES:
        raise UsageProblem(f"unknown kind {kind[:40]!r}; accepted: {kinds}")
    if options["resume"] and options["force"]:
        raise UsageProblem("--resume continues the run in --out and --force starts it over: pass one of them")
    chosen = method(kind)
    other = "epochs" if chosen.unit == "episodes" else "episodes"
    if options[other] is not None:
        raise UsageProblem(f"{kind} counts --{chosen.unit}, not --{other}")
    for name, why in chosen.not_applied:
        if options[name] is not None:
            raise UsageProblem(f"{kind} takes no {flag(name)}: {why}")
    texts = hyper_texts(kind, chosen.settings, extra, options["hyper"])
    game_text = options["game"]
    if options["resume"]:
        game_text = _resumed_game(chosen, options["out"], game_text)
    try:
        games = chosen.games(game_text or chosen.default_game)
        settings = settings_from_texts(chosen.settings, kind, texts, chosen.error)
    except (GameOptionError, TrainingError) as error:
        raise UsageProblem(str(error)) from None
    high = MAX_TOTAL[chosen.unit]
    total = _whole(f"--{chosen.unit}", options[chosen.unit] or str(chosen.default_total), 1, high)
    every = _whole("--eval-every", options["eval_every"] or "0", 0, high) or max(1, total // 20)
    eval_games = _whole("--eval-games", _given(options["eval_games"], DEFAULT_EVAL_GAMES), 0, 10**6)
    final_games = _whole("--final-games", _given(options["final_games"], DEFAULT_FINAL_GAMES), 0, 10**6)
    seed = options["seed"]
    seed_value = None if seed is None else _whole("--seed", seed, 0, chosen.max_seed)
    first_game = games[0] if isinstance(games, tuple) else games
    opponents = _opponents(options["against"], chosen.default_against(first_game), first_game)
    try:
        chosen.check(first_game, settings)
    except TrainingError as error:
        raise UsageProblem(str(error)) from None
    path = _out_folder(chosen, options["out"], options["resume"], options["force"])
    if options["resume"]:
        run = _resumed(chosen, path, games, settings, texts, seed_value)
    else:
        try:
            run = chosen.start(games, settings, 0 if seed_value is None else seed_value)
        except TrainingError as error:
            raise UsageProblem(str(error)) from None
    try:
        chosen.check_run(run, path.parent)
    except TrainingError as error:
        raise UsageProblem(str(error)) from None
    connect = getattr(run, "open_backend", None)  # a cluster that does not answer: before any work
    if connect is not None:
        try:
            connect()
        except TrainingError as error:
            raise UsageProblem(f"{error}{_saved_cluster_hint(run, options['resume'], texts)}") from None
    return Plan(kind, chosen, run, path.parent, total, every, eval_games, final_games, opponents)


# --- help --------------------------------------------------------------------------------------


def final_table(title: str, final: dict[str, dict[str, int]]) -> Table:
    """The final games against each opponent: its spec on the left (folded when long), the
    counts on the right."""
    table = Table(title=title)
    table.add_column("opponent", overflow="fold")
    for column in ("games", "wins", "draws", "losses"):
        table.add_column(column, justify="right", no_wrap=True)
    for opponent, counts in final.items():
        table.add_row(opponent, *(f"{counts[k]:,}" for k in ("games", "wins", "draws", "losses")))
    return table


def settings_table(kind: str, settings: type) -> Table:
    """The hyper-parameter flags of ``kind``: flag, default and what it does."""
    title = f"{kind}: hyper-parameters (flags, or --hyper key=value,...)"
    return options_table(title, options_of(settings), flags=True)


def _show_help(ctx: typer.Context, kind: str, console: Console) -> None:
    typer.echo(ctx.get_help())
    kind = kind.strip().lower()
    if kind in METHOD_MODULES:
        console.print(settings_table(kind, SETTINGS[kind]))
    else:
        console.print(
            f"KIND is one of {', '.join(METHOD_MODULES)}; boardlab train KIND --help lists its flags."
        )


# --- running -----------------------------------------------------------------------------------


def _settings_summary(plan: Plan) -> Table:
    table = Table(title=plan.run.title)
    table.add_column("hyper-parameter")
    table.add_column("value", justify="right")
    for name, value in dataclasses.asdict(plan.run.params).items():
        table.add_row(name, str(value))
    table.add_row("seed", str(plan.run.seed))
    return table


def _progress_bar(console: Console, *, disable: bool = False) -> LoggedProgress:
    """The training bar: its unit, the share done, the count, the time and the run's status
    (which wraps in its column on a narrow terminal, the rest keeping their width)."""
    fixed = Column(no_wrap=True)
    return LoggedProgress(
        TextColumn("[bold]{task.description}", table_column=fixed),
        BarColumn(bar_width=24, table_column=fixed),
        TextColumn("{task.fields[count]}", table_column=fixed),
        TimeElapsedColumn(table_column=fixed),
        TextColumn("{task.fields[last]}", table_column=Column(ratio=1, overflow="fold")),
        console=console,
        disable=disable,
        expand=True,
    )


def _bar_fields(run: TrainingRun, total: int) -> dict[str, Any]:
    """The bar's share done and count: episodes or epochs out of ``total``, or for a run bound
    by its own clock, the share of its time (the count alone shown)."""
    clock = run.clock_share()
    if clock is None:
        return {"completed": min(run.progress, total), "count": f"{run.progress:,}/{total:,}"}
    return {"completed": max(clock, run.progress / total) * total, "count": f"{run.progress:,}"}


def run_plan(console: Console, plan: Plan) -> None:
    """Train, then play the final games and write the summary and plots; Ctrl-C or SIGTERM at
    any moment stops within moments with the checkpoint saved (exit 130 or 143)."""
    out = plan.out
    console.print(_settings_summary(plan))
    out.mkdir(parents=True, exist_ok=True)
    checkpoint = out / plan.method.checkpoint_file
    with stop_requests() as stop:
        try:
            _train_and_report(console, plan, checkpoint, stop)
        except KeyboardInterrupt:
            if not stop.requested:  # a KeyboardInterrupt of its own, from outside the handler
                stop.requested = True
            _stopped(console, plan, checkpoint, stop)
        finally:
            plan.run.close()  # the workers go before the exit code is given
    if stop.requested:
        raise typer.Exit(stop.exit_code)


def _stopped(console: Console, plan: Plan, checkpoint: Path, stop: Termination) -> None:
    if checkpoint.exists():
        console.print(
            f"{stop.how} after {plan.run.progress:,} {plan.method.unit}; saved {checkpoint}. "
            "Run the same command with --resume to continue."
        )
    else:
        console.print(f"{stop.how} before the first checkpoint; nothing to resume.")


def _train_and_report(console: Console, plan: Plan, checkpoint: Path, stop: Termination) -> None:
    """The whole run: each phase stops at a signal (see :func:`boardlab.train.run.train`)."""
    run, out = plan.run, plan.out
    with stop.interruptible(), console.status("preparing the evaluation..."):
        run.prepare()
    done = run.progress >= plan.total or run.finished  # a finished run resumed: no bar
    if done:
        if run.progress >= plan.total:
            unit = plan.method.unit
            why = f"holds {run.progress:,} {unit} already (--{unit} {plan.total}): nothing more to train"
        else:
            why = f"holds a run that {run.finished_reason or 'has finished: nothing more to train'}"
        console.print(f"{out} {why}; the final games, summary and plots are made again.", soft_wrap=True)
    with _progress_bar(console, disable=done) as bar:
        task = bar.add_task(plan.method.unit, total=plan.total, last="", **_bar_fields(run, plan.total))

        def on_step(r: TrainingRun) -> None:
            bar.update(task, last=r.status(), **_bar_fields(r, plan.total))

        try:
            finished = train(
                run,
                plan.total,
                eval_every=plan.eval_every,
                eval_games=plan.eval_games,
                opponents=plan.opponents,
                checkpoint=checkpoint,
                on_step=on_step,
                stop=stop,
            )
        except CheckpointWriteError as error:
            _write_failure(error, plan.method.unit)
    if not finished:
        raise KeyboardInterrupt  # reported by run_plan, with the checkpoint just saved
    # the final games, summary and plots are redone whole by --resume: a signal drops them
    with stop.interruptible():
        with console.status(f"playing {counted(plan.final_games, 'game')} against each opponent..."):
            results = run.final_games(plan.opponents, plan.final_games)
        model = out / plan.method.model_file
        summary = {
            **run.summary(),
            "model_bytes": model.stat().st_size,
            "final": tallies(results, plan.opponents),
        }
        from boardlab.train.plots import write_plots  # matplotlib: loaded only to plot

        try:
            atomic_write_text(out / SUMMARY_FILE, json.dumps(summary, indent=2))
            shared = write_plots(
                out, run.curve, results, run.title, run.curve_unit, run.curve_player, run.played_on
            )
            plots = shared + run.plots(out)
        except OSError as error:
            fail(
                f"cannot write the summary and plots into {out}: {error.strerror or error}; the trained "
                f"model is saved in {model}",
                code=1,
            )
    seconds = float(summary.get("train_seconds", 0.0))
    trained = counted(run.progress, plan.method.unit.removesuffix("s"), plan.method.unit)
    title = f"{run.title}: {trained} in {seconds:.2f} s of training"
    if run.played_on:  # a run of several games plays its final games on one of them
        title += f"; final games on {run.played_on}"
    console.print(final_table(title, summary["final"]))
    for line in run.report_lines():
        console.print(line, soft_wrap=True)
    if run.finished and not done and run.progress < plan.total:  # e.g. the ES's patience ran out
        console.print(
            f"Stopped before --{plan.method.unit} {plan.total:,}: this run {run.finished_reason}.",
            soft_wrap=True,
        )
    console.print(
        f"Model: {model} ({summary['model_bytes']:,} bytes); plots: {', '.join(str(p) for p in plots)}"
    )


# --- the command -------------------------------------------------------------------------------


def train_command(
    ctx: typer.Context,
    kind: Annotated[
        str, typer.Argument(metavar="KIND", help=f"What to train: {', '.join(METHOD_MODULES)}.")
    ] = "",
    out: Annotated[
        Path | None,
        typer.Option(
            "--out", metavar="DIR", help="Folder for the model, summary.json and the plots (required)."
        ),
    ] = None,
    game: Annotated[
        str | None,
        typer.Option(
            help="Game spec, e.g. quixo:size=3 (default: tictactoe; ga nim; es, neat and evalnet quixo)."
        ),
    ] = None,
    episodes: Annotated[
        str | None,
        typer.Option(
            metavar="N",
            help="qlearning, mcrl: episodes in all (a resumed run counts its own; default 30000).",
        ),
    ] = None,
    epochs: Annotated[
        str | None,
        typer.Option(
            metavar="N",
            help="ga, es, neat, evalnet, alphazero: epochs in all (default 50, es and neat 100, "
            "evalnet 30; alphazero stops at --hours).",
        ),
    ] = None,
    resume: Annotated[bool, typer.Option("--resume", help="Continue the run saved in --out.")] = False,
    force: Annotated[bool, typer.Option("--force", help="Start over even if --out holds a run.")] = False,
    seed: Annotated[
        str | None, typer.Option(metavar="N", help="Seed of every random choice (default 0).")
    ] = None,
    eval_every: Annotated[
        str | None,
        typer.Option(
            metavar="N",
            help="Episodes or epochs between learning-curve points (default 0: 1/20 of the run; "
            "not alphazero, which evaluates every iteration).",
        ),
    ] = None,
    eval_games: Annotated[
        str | None,
        typer.Option(
            metavar="N",
            help=f"Games per opponent at each curve point (default {DEFAULT_EVAL_GAMES}; not "
            "alphazero: --versus-games, nor evalnet).",
        ),
    ] = None,
    final_games: Annotated[
        str | None,
        typer.Option(
            metavar="N",
            help=f"Games per opponent after training, for the plots (default {DEFAULT_FINAL_GAMES}; "
            "alphazero: at most its --versus-games, at least 2).",
        ),
    ] = None,
    against: Annotated[
        str, typer.Option(help="Fixed opponents, ';'-separated specs (default: the method's).")
    ] = "",
    hyper: Annotated[
        str | None,
        typer.Option(
            metavar="K=V,...", help="Hyper-parameters as key=value pairs, another way to give the flags."
        ),
    ] = None,
    show_help: Annotated[
        bool, typer.Option("--help", help="Show this help, with KIND also its hyper-parameter flags.")
    ] = False,
) -> None:
    """Train a player: tabular Q-learning or Monte Carlo values (qlearning, mcrl), an evolved Nim
    player (ga), evolved Quixo rule weights (es), a NEAT network (neat), AlphaZero (alphazero) or
    alpha-beta's value network (evalnet); then plot what it learned. Each KIND takes its
    hyper-parameters as flags: boardlab train KIND --help.

    Example: boardlab train qlearning --game tictactoe --out runs/ttt-q"""
    console = make_console()
    if show_help:
        _show_help(ctx, kind, console)
        return
    options = {"out": out, "game": game, "episodes": episodes, "epochs": epochs, "resume": resume}
    options |= {"force": force, "seed": seed, "eval_every": eval_every, "eval_games": eval_games}
    options |= {"final_games": final_games, "against": against, "hyper": hyper}
    try:
        with removed_if_refused(lambda error: isinstance(error, UsageProblem | KeyboardInterrupt)):
            plan = plan_command(kind, options, ctx.args)  # no empty --out left when refused
    except UsageProblem as problem:
        fail(str(problem))
    except KeyboardInterrupt:  # while the command is checked (opponents built, a run read)
        make_console(stderr=True).print("Interrupted before the training started; nothing was done.")
        raise typer.Exit(130) from None
    run_plan(console, plan)


class KindFirst(TyperCommand):
    """``train``'s command, whose usage line reads as the docs write it: ``train KIND --out DIR
    [OPTIONS]``. KIND and --out are checked by the command (so that ``train --help`` and
    ``train KIND --help`` need neither), never optional."""

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        return ["KIND", "--out DIR", "[OPTIONS]"]


def register(app: typer.Typer) -> None:
    """Add the ``train`` command to ``app``."""
    settings = {"allow_extra_args": True, "ignore_unknown_options": True, "help_option_names": []}
    app.command("train", cls=KindFirst, context_settings=settings)(train_command)


__all__ = ["Plan", "UsageProblem", "hyper_texts", "plan_command", "register", "run_plan", "settings_table"]
