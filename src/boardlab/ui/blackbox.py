"""`boardlab blackbox`: run an evolutionary strategy (or the parent-selection comparison) on the
lab's black-box problem, with a progress bar, a result table, a PNG plot, a JSON summary and a
``.npz`` checkpoint that ``--resume`` continues exactly (files written atomically, no pickle)."""

from __future__ import annotations

import json
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

from boardlab.core.console import LoggedProgress, counted, make_console
from boardlab.core.files import atomic_write, output_problem
from boardlab.core.inputs import InputFileError, check_fields, load_npz, read_json, short_reason
from boardlab.core.processes import Termination, sigterm_as_interrupt
from boardlab.core.spec import number_problem, shorten
from boardlab.labs.blackbox import (
    INSTANCES,
    LOCI,
    STRATEGIES,
    ComparisonRow,
    check_target,
    compare_parent_selection,
    make_problem,
    plot_histories,
    run_strategy,
)
from boardlab.labs.evolve import EvolutionResult, ResumeError, ResumePoint, Run, StopRule
from boardlab.ui.errors import fail

COMPARE = "compare"
COMPARE_CALLS = 30_000
"""The default budget of each run of the comparison."""
CHECKPOINT_SECONDS = 5.0


def accepted_strategies() -> list[str]:
    """Every name `--strategy` accepts."""
    return [*STRATEGIES, COMPARE]


class UsageProblem(Exception):
    """A bad command-line value; reported on one line with exit code 2."""


MAX_LOCI = 10_000
"""Longest genome: the linkage model grows with the square of the length."""
MAX_CALLS = 10**9


def _validate(
    strategy: str,
    instance: int | None,
    max_calls: int | None,
    loci: int,
    seed: int = 0,
    target: float = 1.0,
    resume: bool = False,
    force: bool = False,
) -> None:
    if strategy not in accepted_strategies():
        raise UsageProblem(
            f"unknown strategy {shorten(strategy)!r}; accepted: {', '.join(accepted_strategies())}"
        )
    if resume and force:
        raise UsageProblem("--resume continues the run in --out and --force starts it over: pass one of them")
    if instance is not None and not 1 <= instance <= MAX_LOCI:
        raise UsageProblem(f"--instance must be in 1..{MAX_LOCI} (the lab uses 1, 2, 5, 10)")
    if strategy == COMPARE and resume:
        raise UsageProblem("--resume does not apply to --strategy compare, which keeps no checkpoint")
    # every strand needs a locus: the instance with the most strands sets the shortest genome
    strands = instance if instance is not None else max(INSTANCES)
    if not strands <= loci <= MAX_LOCI:
        raise UsageProblem(
            f"--loci must be in {strands}..{MAX_LOCI} (at least one locus for each of the {strands} strands"
            f"{'' if instance is not None else ' of the largest instance'}), got {loci}"
        )
    for problem in (
        number_problem("--seed", seed, 0, 2**63 - 1),
        number_problem("--max-calls", max_calls, 1, MAX_CALLS),
    ):
        if problem is not None:
            raise UsageProblem(problem)
    try:
        check_target(target, "--target")  # the library's check, in the option's name
    except (TypeError, ValueError) as error:
        raise UsageProblem(str(error)) from None


# -- checkpoints --------------------------------------------------------------------------------


def checkpoint_path(out: Path, instance: int, strategy: str) -> Path:
    """Where the checkpoint of one (instance, strategy) run lives."""
    return out / f"checkpoint_a{instance}_{strategy}.npz"


def finished_path(out: Path, instance: int, strategy: str) -> Path:
    """Where the whole result of one (instance, strategy) run lives once the run has finished
    (reached its target or spent its budget): what ``--resume`` reports without running it again."""
    return out / f"finished_a{instance}_{strategy}.json"


def saved_files(out: Path, instance: int, strategy: str) -> list[Path]:
    """The checkpoint and the finished result of one run in ``out``, those that exist."""
    return [
        path
        for path in (checkpoint_path(out, instance, strategy), finished_path(out, instance, strategy))
        if _exists(path)
    ]


def check_fresh(out: Path, instances: list[int], strategy: str) -> None:
    """UsageProblem if ``out`` holds a checkpoint or finished result of one of these runs (each
    instance with ``strategy``), which a run started afresh would write over; those of other
    instances or strategies are left alone, and so are not in the way."""
    found = [saved[0] for saved in (saved_files(out, i, strategy) for i in instances) if saved]
    if not found:
        return
    if len(found) == 1:
        raise UsageProblem(f"{found[0]} exists; pass --resume to continue it or --force to start over")
    kind = "checkpoint" if all(path.suffix == ".npz" for path in found) else "saved run"
    others = counted(len(found) - 1, f"other {kind}")
    raise UsageProblem(
        f"{found[0]} and {others} of --strategy {strategy} exist; pass --resume to continue them "
        "or --force to start over"
    )


def remove_saved_runs(out: Path, instances: list[int], strategy: str) -> None:
    """Remove the checkpoints and finished results of these runs (``--force``): a forced run
    interrupted part way must not leave older ones of its later instances for ``--resume``."""
    for instance in instances:
        for path in saved_files(out, instance, strategy):
            path.unlink(missing_ok=True)


def _exists(path: Path) -> bool:
    """Whether ``path`` exists; False where it cannot be looked at (the --out check names why)."""
    try:
        return path.exists()
    except OSError:
        return False


RESUME_PREFIX = "resume_"
"""Names of the arrays of a checkpoint's resume point begin with this."""


def save_checkpoint(path: Path, run: Run, strategy: str, seed: int) -> None:
    """Best genome so far and the calls spent, and the run's latest resume point, from which
    ``--resume`` continues exactly (arrays only; loaded with allow_pickle=False)."""
    if run.best_genome is None:
        return
    point = run.resume_point
    arrays: dict[str, Any] = {
        "best_genome": run.best_genome.astype(np.uint8),
        "best_fitness": np.array(run.best_fitness, dtype=np.float64),
        "calls": np.array(run.calls, dtype=np.int64),
        "seed": np.array(seed, dtype=np.int64),
        "strategy": np.array(strategy),
    }  # Any: for mypy, ndarray values might fill savez's allow_pickle
    if point is not None:
        arrays.update({RESUME_PREFIX + name: array for name, array in point.to_arrays().items()})
    atomic_write(path, lambda handle: np.savez(handle, **arrays))


MAX_CHECKPOINT_BYTES = 1 << 30
"""The largest black-box checkpoint read (genomes, a strategy's population, the histories)."""
START_OVER = "delete it or start over with --force in place of --resume"
"""What to do with a checkpoint or finished result that cannot be resumed (a run without either
flag refuses it)."""


def load_checkpoint(path: Path, strategy: str) -> tuple[np.ndarray, int] | None:
    """``(best genome, calls spent)`` from a checkpoint of the same strategy, else None."""
    if not path.exists():
        return None
    try:
        data = load_npz(path, "checkpoint", MAX_CHECKPOINT_BYTES, ("strategy", "best_genome", "calls"))
        if data["strategy"].shape != () or data["calls"].shape != () or data["calls"].dtype.kind != "i":
            raise ValueError("its strategy and calls must be single values")
        if str(data["strategy"]) != strategy:
            return None
        genome, calls = data["best_genome"].astype(bool), int(data["calls"])
    except InputFileError as error:
        raise UsageProblem(f"{error}; {START_OVER}") from None  # the error names the checkpoint
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as error:
        raise UsageProblem(f"unreadable checkpoint {path}: {error}; {START_OVER}") from None
    if calls < 0 or genome.ndim != 1:
        raise UsageProblem(f"unreadable checkpoint {path}: {calls} calls spent; {START_OVER}")
    return genome, calls


def load_resume_point(path: Path, seed: int, loci: int) -> ResumePoint | None:
    """The resume point of the checkpoint at ``path`` (one :func:`load_checkpoint` accepted)
    when it holds one of a run of ``seed``: None for a checkpoint written without one, or by a
    run of another seed (warm-started from instead, as before resume points were kept)."""
    try:
        data = load_npz(path, "checkpoint", MAX_CHECKPOINT_BYTES)
        if RESUME_PREFIX + "run" not in data:
            return None
        saved_seed = data.get("seed")
        if saved_seed is None or saved_seed.shape != () or saved_seed.dtype.kind != "i":
            raise ValueError("its seed must be a single whole number")
        if int(saved_seed) != seed:
            return None
        point = ResumePoint.from_arrays(
            {name[len(RESUME_PREFIX) :]: a for name, a in data.items() if name.startswith(RESUME_PREFIX)}
        )
    except InputFileError as error:
        raise UsageProblem(f"{error}; {START_OVER}") from None  # the error names the checkpoint
    except ValueError as error:  # ResumeError too
        raise UsageProblem(f"unreadable checkpoint {path}: {short_reason(error)}; {START_OVER}") from None
    if point.best_genome is not None and len(point.best_genome) != loci:
        raise UsageProblem(
            f"unreadable checkpoint {path}: its resume point holds a genome of {len(point.best_genome)} "
            f"loci, not --loci {loci}; {START_OVER}"
        )
    return point


MAX_FINISHED_BYTES = 1 << 30
"""The largest finished result read (a genome and a few numbers for each generation)."""


@dataclass(frozen=True)
class FinishedRun:
    """A run that ended by itself (target reached or budget spent), read back whole from its
    finished result, with the settings it ran under."""

    loci: int
    seed: int
    target: float
    max_calls: int
    result: EvolutionResult

    def other_settings(self, loci: int, seed: int, stop: StopRule) -> list[str]:
        """The settings it ran under that differ from this command's, as ``--seed 1 (not 0)``."""
        ran = {
            "--loci": self.loci,
            "--seed": self.seed,
            "--target": self.target,
            "--max-calls": self.max_calls,
        }
        asked = {
            "--loci": loci,
            "--seed": seed,
            "--target": stop.target_fitness,
            "--max-calls": stop.max_calls,
        }
        return [
            f"{flag} {_shown(ran[flag])} (not {_shown(asked[flag])})"
            for flag in ran
            if ran[flag] != asked[flag]
        ]


def _shown(value: float | None) -> str:
    """A setting as typed: whole numbers in full, fractions short (``1`` for a target of 1.0)."""
    return str(value) if value is None or isinstance(value, int) else f"{value:g}"


def save_finished(
    path: Path, result: EvolutionResult, strategy: str, instance: int, loci: int, seed: int, stop: StopRule
) -> None:
    """The whole result of a run that ended by itself, with the settings it ran under (JSON)."""
    record = {
        "strategy": strategy,
        "instance": instance,
        "loci": loci,
        "seed": seed,
        "target": stop.target_fitness,
        "max_calls": stop.max_calls,
        "result": result.to_record(),
    }
    _write_json(path, record)


def load_finished(path: Path, strategy: str, instance: int) -> FinishedRun | None:
    """The finished run saved at ``path`` (None when there is none); UsageProblem when it is
    damaged or holds another run than its name says (another strategy or instance)."""
    if not _exists(path):
        return None
    try:
        record = check_fields(
            read_json(path, "finished result", MAX_FINISHED_BYTES),
            f"finished result {path}",
            {
                "strategy": "str",
                "instance": "int",
                "loci": "int",
                "seed": "int",
                "target": "number",
                "max_calls": "int",
                "result": "dict",
            },
        )
        result = EvolutionResult.from_record(record["result"])
    except InputFileError as error:
        raise UsageProblem(f"unreadable {error}; {START_OVER}") from None
    except ValueError as error:
        raise UsageProblem(
            f"unreadable finished result {path}: {short_reason(error)}; {START_OVER}"
        ) from None
    misplaced = (record["strategy"], record["instance"]) != (strategy, instance)
    if misplaced or len(result.best_genome) != record["loci"]:
        raise UsageProblem(
            f"unreadable finished result {path}: it holds a run of --strategy {shorten(record['strategy'])} "
            f"on instance {record['instance']} with {len(result.best_genome)} loci, not the one its name "
            f"says; {START_OVER}"
        )
    return FinishedRun(record["loci"], record["seed"], float(record["target"]), record["max_calls"], result)


# -- running ------------------------------------------------------------------------------------


def _progress() -> LoggedProgress:
    return LoggedProgress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("best {task.fields[best]:.4f}"),
        TimeElapsedColumn(),
        transient=False,
    )


WarmStart = tuple[np.ndarray | None, int]
"""The genome a run starts from (None: random) and the calls already spent before it."""
Resumed = tuple[ResumePoint, int]
"""The resume point a run continues from exactly, and the calls its checkpoint records as spent."""
Start = EvolutionResult | WarmStart | Resumed
"""Where a run stands before the command: finished (its result, reported as it is), to continue
exactly from a resume point, or to run from a warm start."""


def _start(
    strategy: str, instance: int, stop: StopRule, seed: int, loci: int, out: Path, resume: bool
) -> Start:
    """Where a run starts: fresh without ``--resume``; with it, its finished result when the run
    finished under this command's settings (it is not run again), else its checkpoint, if any.

    A finished result of another genome length is refused, as its checkpoint would be; one of
    other settings (``--seed``, ``--target``, ``--max-calls``) is not this command's run: its
    checkpoint is continued instead, as ``--resume`` always did (raise --max-calls to run on).
    """
    if not resume:
        return None, 0
    path = finished_path(out, instance, strategy)
    finished = load_finished(path, strategy, instance)
    other = [] if finished is None else finished.other_settings(loci, seed, stop)
    if finished is not None and not other:
        return finished.result
    why = (
        f"and there is no finished result {path}"
        if finished is None
        else f"and its finished result {path} ran with {', '.join(other)}"
    )
    warm = _warm_start(strategy, instance, stop, seed, loci, out, why)  # refuses one of other --loci
    if finished is not None and finished.loci != loci:  # and with none, the finished result is kept too
        raise UsageProblem(
            f"the finished result {path} holds a genome of {finished.loci} loci, not --loci {loci}; "
            f"resume with --loci {finished.loci}, or start afresh with --force in place of --resume"
        )
    return warm


def _warm_start(
    strategy: str, instance: int, stop: StopRule, seed: int, loci: int, out: Path, finished: str
) -> WarmStart | Resumed:
    """The checkpoint a resumed run continues from (when there is one), else a fresh start:
    exactly from its resume point when it has one of this ``seed``, else warm-started from its
    best genome (a checkpoint written without resume points, or by a run of another seed).

    A checkpoint of another genome length is refused rather than overwritten by a fresh run,
    and so is one with no budget left to continue with (``finished`` says why its finished
    result does not stand in for it).
    """
    path = checkpoint_path(out, instance, strategy)
    warm = load_checkpoint(path, strategy)
    if warm is None:
        return None, 0
    if len(warm[0]) != loci:
        raise UsageProblem(
            f"the checkpoint {path} holds a genome of {len(warm[0])} loci, not --loci {loci}; "
            f"resume with --loci {len(warm[0])}, or start afresh with --force in place of --resume"
        )
    point = load_resume_point(path, seed, loci)
    spent = warm[1] if point is None else point.calls  # a resume point redoes the calls after it
    if stop.max_calls is not None and spent >= stop.max_calls:
        raise UsageProblem(
            f"the checkpoint {path} already spent {spent:,} calls (--max-calls {stop.max_calls:,}) "
            f"{finished}; raise --max-calls to continue it, or start over with --force in place of --resume"
        )
    return warm if point is None else (point, warm[1])


def _run_one(
    strategy: str,
    instance: int,
    stop: StopRule,
    seed: int,
    loci: int,
    out: Path,
    start: WarmStart | Resumed,
    progress: LoggedProgress,
) -> EvolutionResult:
    """One strategy on one instance; Ctrl-C keeps the best so far (re-raised after saving).

    From a resume point the run continues exactly; it rewrites its checkpoint only once it has
    spent more calls than the checkpoint records, so that a checkpoint never goes back."""
    path = checkpoint_path(out, instance, strategy)
    task = progress.add_task(f"a={instance} {strategy}", total=stop.max_calls, best=0.0)
    last_save = time.monotonic()
    saved_calls = start[1] if isinstance(start[0], ResumePoint) else 0

    def save(run: Run) -> None:
        if run.calls > saved_calls:
            save_checkpoint(path, run, strategy, seed)

    def on_progress(run: Run) -> None:
        nonlocal last_save
        progress.update(task, completed=run.calls, best=run.best_fitness)
        if time.monotonic() - last_save > CHECKPOINT_SECONDS:
            save(run)
            last_save = time.monotonic()

    fitness = make_problem(instance).evaluate_population
    initial: np.ndarray | None = None
    if isinstance(start[0], ResumePoint):
        run = Run(fitness, stop, on_progress, resumable=True)
        run.restore(start[0])
        run_seed = seed  # the generator's state is the resume point's
    else:
        initial, offset = start[0], start[1]
        run = Run(fitness, stop, on_progress, calls_offset=offset, resumable=True)
        run_seed = seed if offset == 0 else seed + offset
    try:
        if initial is not None:
            run.evaluate_one(initial)  # the resumed run starts at least as good as the checkpoint
        result = run_strategy(strategy, instance, stop, run_seed, loci, run=run, initial=initial)
    except KeyboardInterrupt:
        save(run)
        raise _Interrupted(instance, run) from None
    except ResumeError as error:
        raise UsageProblem(f"unreadable checkpoint {path}: {error}; {START_OVER}") from None
    # the finished result first: killed between the two writes, --resume still reports this run
    save_finished(finished_path(out, instance, strategy), result, strategy, instance, loci, seed, stop)
    save_checkpoint(path, run, strategy, seed)
    return result


class _Interrupted(Exception):
    def __init__(self, instance: int, run: Run) -> None:
        super().__init__("interrupted")
        self.instance = instance
        self.run = run


def _strategy_table(results: dict[int, EvolutionResult], strategy: str, target: float | None) -> Table:
    table = Table(title=f"black-box evolution: {strategy}")
    reached = f"calls@{1.0 if target is None else target:g}"  # the calls to reach the target
    for column in ("a", "best", "calls@best", reached, "gen@best", "gens", "calls"):
        table.add_column(column, justify="right", no_wrap=True)
    table.add_column("stop", no_wrap=True)  # a word: on the left
    for instance, result in results.items():
        table.add_row(
            str(instance),
            f"{result.best_fitness:.4f}",
            f"{result.calls_to_best:,}",
            "-" if result.calls_to_target is None else f"{result.calls_to_target:,}",
            str(result.best_generation),
            str(result.generations),
            f"{result.calls:,}",
            result.stop_reason,
        )
    return table


def _comparison_table(rows: list[ComparisonRow]) -> Table:
    table = Table(title="parent selection: black-box fitness vs raw count of ones")
    table.add_column("a", justify="right", no_wrap=True)
    table.add_column("parents by", no_wrap=True)  # a word: on the left
    for column in ("best", "gen@best", "gens", "calls", "pop"):
        table.add_column(column, justify="right", no_wrap=True)
    table.add_column("stop", no_wrap=True)  # why the run ended: target, max_calls or stagnation
    for row in rows:
        result = row.result
        table.add_row(
            str(row.instance),
            row.parent_key,
            f"{result.best_fitness:.4f}",
            str(result.best_generation),
            str(result.generations),
            f"{result.calls:,}",
            str(row.population),
            result.stop_reason,
        )
    return table


def _write_json(path: Path, payload: object) -> None:
    text = json.dumps(payload, indent=2).encode()
    atomic_write(path, lambda handle: handle.write(text))


def _run_comparison(
    instances: list[int],
    stop: StopRule,
    seed: int,
    loci: int,
    out: Path,
    console: Console,
    termination: Termination,
) -> None:
    rows: list[ComparisonRow] = []

    def on_row(row: ComparisonRow) -> None:
        rows.append(row)
        progress.update(task, advance=1, best=row.result.best_fitness)

    try:
        with _progress() as progress:
            task = progress.add_task("comparison", total=2 * len(instances), best=0.0)
            compare_parent_selection(
                instances,
                seed=seed,
                max_calls=stop.max_calls or COMPARE_CALLS,
                loci=loci,
                on_row=on_row,
                target=stop.target_fitness if stop.target_fitness is not None else 1.0,
            )
    except KeyboardInterrupt:
        console.print(f"[yellow]{termination.how.lower()}[/]: {len(rows)} of {2 * len(instances)} runs done")
        console.print(_comparison_table(rows))
        raise typer.Exit(code=termination.exit_code) from None
    console.print(_comparison_table(rows))
    panels = {
        f"instance {instance}": {
            f"parents by {row.parent_key}": row.result for row in rows if row.instance == instance
        }
        for instance in instances
    }
    plot = plot_histories(panels, out / "compare.png", "parent selection by fitness vs by ones")
    _write_json(
        out / "compare.json",
        [
            {
                "instance": r.instance,
                "parents_by": r.parent_key,
                "population": r.population,
                **r.result.summary(),
            }
            for r in rows
        ],
    )
    console.print(f"plot: {plot}")


def _run_strategy_on(
    strategy: str,
    instances: list[int],
    stop: StopRule,
    seed: int,
    loci: int,
    out: Path,
    resume: bool,
    console: Console,
    termination: Termination,
) -> None:
    starts = {i: _start(strategy, i, stop, seed, loci, out, resume) for i in instances}
    results: dict[int, EvolutionResult] = {}
    try:
        with _progress() as progress:
            for instance, start in starts.items():
                if isinstance(start, EvolutionResult):  # finished before: reported, not run again
                    progress.add_task(
                        f"a={instance} {strategy} (finished before)",
                        total=stop.max_calls,
                        completed=start.calls,
                        best=start.best_fitness,
                    )
                    results[instance] = start
                    continue
                results[instance] = _run_one(strategy, instance, stop, seed, loci, out, start, progress)
    except _Interrupted as interrupted:
        run, how = interrupted.run, termination.how.lower()
        if run.best_genome is None:  # stopped before its first call: nothing of it to save
            console.print(
                f"[yellow]{how}[/]: a={interrupted.instance} had spent no calls yet; the runs finished "
                f"before it are kept in {out} (rerun with --resume)"
            )
        else:
            console.print(
                f"[yellow]{how}[/]: best so far {run.best_fitness:.4f} after {run.calls:,} calls; "
                f"checkpoint in {out} (rerun with --resume)"
            )
        if run.best_genome is not None:
            results[interrupted.instance] = run.result()
        console.print(_strategy_table(results, strategy, stop.target_fitness))
        raise typer.Exit(code=termination.exit_code) from None
    console.print(_strategy_table(results, strategy, stop.target_fitness))
    shown = {**_recorded_results(out, strategy), **results}
    panels = {f"instance {instance}": {strategy: shown[instance]} for instance in sorted(shown)}
    plot = plot_histories(panels, out / f"blackbox_{strategy}.png", f"strategy {strategy}", x_axis="calls")
    save_record(out, strategy, seed, results)
    console.print(f"plot: {plot}")


def _recorded_results(out: Path, strategy: str) -> dict[int, EvolutionResult]:
    """The finished results in ``out`` of the instances in the strategy's record, for the plot
    to show every instance the record holds (an unreadable one is left out of the plot)."""
    found = {}
    for entry in load_record(out, strategy):
        instance = entry["instance"]
        try:
            finished = load_finished(finished_path(out, instance, strategy), strategy, instance)
        except UsageProblem:
            continue
        if finished is not None:
            found[instance] = finished.result
    return found


def _record_path(out: Path, strategy: str) -> Path:
    return out / f"blackbox_{strategy}.json"


MAX_RECORD_BYTES = 1 << 30
"""The largest JSON record of a strategy read (a summary and a genome for each instance)."""


def load_record(out: Path, strategy: str) -> list[dict[str, Any]]:
    """The entries of ``blackbox_{strategy}.json`` in ``out`` (none when there is no such file);
    UsageProblem when it is damaged: it is merged into, never written over blindly."""
    path = _record_path(out, strategy)
    if not _exists(path):
        return []
    try:
        entries = read_json(path, "record", MAX_RECORD_BYTES)
        if not isinstance(entries, list):
            raise InputFileError(f"record {path} must be a JSON list")
        for entry in entries:
            check_fields(entry, f"record {path}", {"instance": "int"})
    except InputFileError as error:
        raise UsageProblem(f"unreadable {error}; delete it or move it away") from None
    return entries


def save_record(out: Path, strategy: str, seed: int, results: dict[int, EvolutionResult]) -> None:
    """Merge this command's results into ``blackbox_{strategy}.json``: one entry per instance
    ever run with the strategy in ``out``, sorted by instance; an instance run again replaces
    its entry."""
    entries = {entry["instance"]: entry for entry in load_record(out, strategy)}
    for instance, result in results.items():
        entries[instance] = {"instance": instance, "strategy": strategy, "seed": seed, **result.summary()}
    _write_json(_record_path(out, strategy), [entries[instance] for instance in sorted(entries)])


def register(app: typer.Typer) -> None:
    """Attach the `blackbox` command to the main app."""

    @app.command("blackbox")
    def blackbox(
        instance: Annotated[
            int | None,
            typer.Option(help="Strands of the problem (1, 2, 5, 10); default: all four."),
        ] = None,
        strategy: Annotated[
            str,
            typer.Option(help=f"One of: {', '.join(accepted_strategies())}."),
        ] = "linkage",
        seed: Annotated[int, typer.Option(help="Random seed.")] = 0,
        max_calls: Annotated[
            int | None,
            typer.Option(help="Fitness-call budget per run (default 100000; compare 30000)."),
        ] = None,
        target: Annotated[float, typer.Option(help="Stop once this fitness (0 to 1) is reached.")] = 1.0,
        loci: Annotated[int, typer.Option(help="Genome length.")] = LOCI,
        out: Annotated[Path, typer.Option(help="Directory for the table, plot, checkpoint.")] = (
            Path("results/blackbox")
        ),
        resume: Annotated[
            bool,
            typer.Option(
                help="Continue the run in --out: finished instances are reported, not run again; "
                "the others continue from their checkpoints, as if never stopped."
            ),
        ] = False,
        force: Annotated[
            bool,
            typer.Option(
                help="Start over, removing the checkpoints and finished results of this run in --out."
            ),
        ] = False,
    ) -> None:
        """Evolve genomes for the lab's black-box problem and report the best fitness found."""
        instances = list(INSTANCES) if instance is None else [instance]
        try:
            _validate(strategy, instance, max_calls, loci, seed, target, resume, force)
            if strategy != COMPARE and not resume and not force:
                check_fresh(out, instances, strategy)
            if strategy != COMPARE:
                load_record(out, strategy)  # a damaged record is refused before any work
            out_problem = output_problem(out, folder=True)
            if out_problem is not None:
                raise UsageProblem(f"--out {shorten(str(out))}: {out_problem}")
        except UsageProblem as problem:
            fail(str(problem))
        console = make_console()
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            fail(f"cannot create --out directory {out}: {error.strerror}")
        if force and strategy != COMPARE:
            try:
                remove_saved_runs(out, instances, strategy)
            except OSError as error:
                fail(
                    f"cannot remove the saved runs in --out {out} that --force starts over: {error.strerror}"
                )
        with sigterm_as_interrupt() as termination:  # SIGTERM saves and stops like Ctrl-C
            if strategy == COMPARE:
                stop = StopRule(target_fitness=target, max_calls=max_calls or COMPARE_CALLS)
                _run_comparison(instances, stop, seed, loci, out, console, termination)
                return
            stop = StopRule(target_fitness=target, max_calls=max_calls or 100_000)
            try:
                _run_strategy_on(strategy, instances, stop, seed, loci, out, resume, console, termination)
            except UsageProblem as problem:
                fail(str(problem))
            except OSError as error:  # a full disk: the checkpoints already written are whole
                fail(
                    f"cannot write into {out}: {error.strerror or error}; the last checkpoint there is "
                    "kept (rerun with --resume once there is room)",
                    code=1,
                )
