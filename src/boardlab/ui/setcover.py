"""`boardlab setcover`: minimum set cover of a random instance by A*, weighted A* or the anytime
search, compared with the exact integer programme solved by HiGHS."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any, NoReturn, TypeVar

import typer
from rich.console import Console
from rich.table import Table

from boardlab.core.console import counted, make_console
from boardlab.core.processes import STOP_POLL_SECONDS, Termination, raise_if_stopping, sigterm_as_interrupt
from boardlab.core.spec import number_problem, shorten
from boardlab.labs.setcover import (
    HEURISTICS,
    CoverResult,
    MilpResult,
    SetCoverProblem,
    UnsolvableInstanceError,
    check_instance,
    check_limits,
    get_heuristic,
    make_challenge_problem,
    make_lab_problem,
    solve_anytime,
    solve_astar,
    solve_milp,
)
from boardlab.ui.errors import fail

ALL = "all"
GENERATORS = ("lab", "challenge")
SHOWN_SETS = 20


OPTION_NAMES = {
    "num_points": "--points",
    "num_sets": "--sets",
    "density": "--density",
    "seed": "--seed",
    "weight": "--weight",
    "max_expansions": "--max-expansions",
    "time_limit": "--time-limit",
    "milp": "the MILP (--no-milp needs less)",
}
"""The library's checks name the options of the command line."""
MILP_OPTION_NAMES = {"time_limit": "--milp-time-limit"}
MAX_SEED = 2**63 - 1


class UsageProblem(Exception):
    """A bad command-line value; reported on one line with exit code 2."""


def _validate(
    points: int,
    sets: int,
    density: float,
    heuristic: str,
    generator: str,
    weight: float,
    anytime: bool,
    time_limit: float,
    max_expansions: int | None,
    milp_time_limit: float,
    seed: int = 0,
    milp: bool = True,
) -> None:
    try:
        check_instance(points, sets, density, seed, milp=milp, names=OPTION_NAMES)
        check_limits(weight=weight, max_expansions=max_expansions, time_limit=time_limit, names=OPTION_NAMES)
        check_limits(time_limit=milp_time_limit, names=MILP_OPTION_NAMES)
    except (TypeError, ValueError) as error:
        raise UsageProblem(str(error)) from None
    too_large_seed = number_problem("--seed", seed, 0, MAX_SEED)  # the library takes any seed >= 0
    if too_large_seed is not None:
        raise UsageProblem(too_large_seed)
    if generator not in GENERATORS:
        raise UsageProblem(f"unknown generator {shorten(generator)!r}; accepted: {', '.join(GENERATORS)}")
    if heuristic != ALL and heuristic not in HEURISTICS:
        accepted = ", ".join([*HEURISTICS, ALL])
        raise UsageProblem(f"unknown heuristic {shorten(heuristic)!r}; accepted: {accepted}")
    if anytime and heuristic != ALL and not get_heuristic(heuristic).admissible:
        raise UsageProblem(f"--anytime needs an admissible heuristic, not {heuristic!r}")


def _make_problem(generator: str, points: int, sets: int, density: float, seed: int) -> SetCoverProblem:
    make = make_lab_problem if generator == "lab" else make_challenge_problem
    try:
        return make(points, sets, density, seed)
    except UnsolvableInstanceError as error:
        raise UsageProblem(str(error)) from None


@dataclass
class _Progress:
    """What the command has done so far: what an interruption reports."""

    total: int
    """Searches asked for."""
    stage: str = "the generation of the instance"
    results: list[CoverResult] = field(default_factory=list)
    """The searches finished."""


def _searches(heuristic: str, anytime: bool) -> tuple[list[str], str | None]:
    """The heuristics A* runs with, and that of the anytime search (None without one)."""
    names = list(HEURISTICS) if heuristic == ALL else [] if anytime else [heuristic]
    return names, ("dual_bound" if heuristic == ALL else heuristic) if anytime else None


def _runs(
    problem: SetCoverProblem,
    heuristic: str,
    weight: float,
    anytime: bool,
    time_limit: float,
    max_expansions: int | None,
    console: Console,
    progress: _Progress,
) -> None:
    """Each search asked for, one after the other, with a line saying which one is running; the
    results go to ``progress`` as they come."""
    names, anytime_name = _searches(heuristic, anytime)
    method = "A*" if weight == 1.0 else f"weighted A* (w={weight:g})"
    for name in names:
        progress.stage = f"{method} with {name}"
        with console.status(f"{method} with {name}, up to {time_limit:g} s..."):
            result = solve_astar(
                problem, name, weight=weight, time_limit=time_limit, max_expansions=max_expansions
            )
        progress.results.append(result)
    if anytime_name is not None:
        progress.stage = f"the anytime search with {anytime_name}"
        with console.status(f"anytime search with {anytime_name}, up to {time_limit:g} s..."):
            result = solve_anytime(problem, anytime_name, time_limit=time_limit, max_nodes=max_expansions)
        progress.results.append(result)


R = TypeVar("R")


def _answering_signals(function: Callable[[], R]) -> R:
    """``function()`` in a helper thread while the main thread waits, so that Ctrl-C and SIGTERM
    are answered at once. For HiGHS: it runs in compiled code that a Python signal handler does
    not reach until it returns (up to --milp-time-limit) and that cannot be told to stop, so an
    interrupted solve is left to end with the process (a daemon thread; it releases the GIL)."""
    box: list[tuple[bool, Any]] = []
    returned = threading.Event()

    def call() -> None:
        try:
            box.append((True, function()))
        except BaseException as error:  # handed to the main thread
            box.append((False, error))
        finally:
            returned.set()

    threading.Thread(target=call, name="boardlab-highs", daemon=True).start()
    while not returned.wait(STOP_POLL_SECONDS):
        raise_if_stopping()
    ok, value = box[0]
    if not ok:
        raise value
    return value  # type: ignore[no-any-return]


def _milp(problem: SetCoverProblem, time_limit: float, console: Console, progress: _Progress) -> MilpResult:
    progress.stage = "the integer programme (HiGHS)"
    with console.status(f"the integer programme (HiGHS), up to {time_limit:g} s..."):
        return _answering_signals(lambda: solve_milp(problem, time_limit=time_limit))


def _print_results(console: Console, results: list[CoverResult], milp: MilpResult | None) -> None:
    console.print(_results_table(results, milp))
    for result in results:
        console.print(f"sets chosen by {result.method} ({result.heuristic}): {_format_sets(result.chosen)}")


def _stop(console: Console, progress: _Progress, termination: Termination) -> NoReturn:
    """After Ctrl-C or SIGTERM: the searches finished so far, one line saying where it stopped,
    exit 130 or 143 (there is nothing to save)."""
    done = len(progress.results)
    if done:
        _print_results(console, progress.results, None)
    kept = f"{done} of {counted(progress.total, 'search', 'searches')} done" + (
        ", shown above" if done else ""
    )
    typer.echo(f"{termination.how} during {progress.stage}; {kept}.", err=True)
    raise typer.Exit(termination.exit_code)


def _format_sets(chosen: Sequence[int]) -> str:
    if not chosen:
        return "-"
    shown = ", ".join(str(i) for i in chosen[:SHOWN_SETS])
    return shown + (f", ... ({len(chosen)} sets)" if len(chosen) > SHOWN_SETS else "")


def _status(result: CoverResult, milp: MilpResult | None) -> str:
    if not result.found:
        return "budget exhausted"
    if result.proven_optimal:
        return "proven optimal"
    if milp is not None and milp.proven_optimal and result.size is not None and milp.size is not None:
        excess = result.size - milp.size
        return "optimal (per MILP)" if excess == 0 else f"NOT optimal (+{excess})"
    return "not proven"


def _results_table(results: list[CoverResult], milp: MilpResult | None) -> Table:
    table = Table(title="set cover")
    for column in ("method", "heuristic"):
        table.add_column(column, no_wrap=True)
    for column in ("size", "bound"):
        table.add_column(column, justify="right", no_wrap=True)
    table.add_column("status", no_wrap=True)
    for column in ("expanded", "generated", "seconds"):
        table.add_column(column, justify="right", no_wrap=True)
    for result in results:
        table.add_row(
            result.method,
            result.heuristic,
            str(result.size) if result.found else "-",
            str(result.lower_bound),
            _status(result, milp),
            f"{result.expansions:,}",
            f"{result.generated:,}",
            f"{result.seconds:.3f}",
        )
    return table


def _count(chosen: Sequence[int]) -> str:
    return counted(len(chosen), "set")


def _milp_line(milp: MilpResult, results: Sequence[CoverResult]) -> str:
    """The MILP's outcome; one that HiGHS did not finish says so plainly, with its bound and gap,
    and whether a search found a smaller cover (its best cover then means little)."""
    if milp.proven_optimal:
        found = f"{_count(milp.chosen)} in {milp.seconds:.2f} s"
        return f"MILP optimum (HiGHS): {found}: {_format_sets(milp.chosen)}"
    stopped = f"MILP (HiGHS) did not finish: stopped by its time limit after {milp.seconds:.2f} s"
    if not milp.chosen:
        return f"{stopped} without a cover (lower bound {milp.lower_bound})"
    line = (
        f"{stopped}; its best cover, {_count(milp.chosen)}, is not proven minimum "
        f"(lower bound {milp.lower_bound}, gap {milp.gap:.1%})"
    )
    covers = [result for result in results if result.found]
    best = min(covers, key=lambda result: len(result.chosen), default=None)
    if best is not None and len(best.chosen) < len(milp.chosen):
        line += f" and is worse than the {_count(best.chosen)} found by {best.method} ({best.heuristic})"
    return line


def register(app: typer.Typer) -> None:
    """Attach the `setcover` command to the main app."""

    @app.command("setcover")
    def setcover(
        points: Annotated[int, typer.Option(help="Number of points.")] = 20,
        sets: Annotated[int, typer.Option(help="Number of sets.")] = 40,
        density: Annotated[float, typer.Option(help="Probability that a set holds a point.")] = 0.2,
        heuristic: Annotated[
            str,
            typer.Option(
                help=f"One of {', '.join(HEURISTICS)}; '{ALL}' runs A* with each (and the anytime search "
                "with --anytime) in one table."
            ),
        ] = "dual_bound",
        seed: Annotated[int, typer.Option(help="Seed of the instance generator.")] = 0,
        generator: Annotated[
            str, typer.Option(help="'lab' (may be unsolvable) or 'challenge' (always solvable).")
        ] = "lab",
        weight: Annotated[
            float, typer.Option(help="Weighted A*: f = g + weight * h (cover <= weight x optimum).")
        ] = 1.0,
        anytime: Annotated[
            bool,
            typer.Option(help="Anytime search (greedy + depth-first branch and bound) within --time-limit."),
        ] = False,
        time_limit: Annotated[float, typer.Option(help="Seconds allowed to each search.")] = 30.0,
        max_expansions: Annotated[
            int | None,
            typer.Option(help="Expansion limit of each search (nodes visited by the anytime search)."),
        ] = None,
        milp: Annotated[bool, typer.Option(help="Also solve the integer programme.")] = True,
        milp_time_limit: Annotated[float, typer.Option(help="Seconds allowed to HiGHS.")] = 60.0,
    ) -> None:
        """Find a minimum set cover with A* and compare it with the MILP optimum."""
        try:
            _validate(
                points,
                sets,
                density,
                heuristic,
                generator,
                weight,
                anytime,
                time_limit,
                max_expansions,
                milp_time_limit,
                seed,
                milp,
            )
        except UsageProblem as problem_error:
            fail(str(problem_error))
        console = make_console(width=max(make_console().width, 110))
        names, anytime_name = _searches(heuristic, anytime)
        progress = _Progress(total=len(names) + (anytime_name is not None))
        milp_result = None
        with sigterm_as_interrupt() as termination:  # SIGTERM stops like Ctrl-C
            try:
                problem = _make_problem(generator, points, sets, density, seed)
                console.print(
                    f"{generator} instance: {points} points, {sets} sets, density {density}, seed {seed}"
                )
                _runs(problem, heuristic, weight, anytime, time_limit, max_expansions, console, progress)
                if milp:
                    milp_result = _milp(problem, milp_time_limit, console, progress)
            except UsageProblem as problem_error:
                fail(str(problem_error))
            except KeyboardInterrupt:
                _stop(console, progress, termination)
        _print_results(console, progress.results, milp_result)
        if milp_result is not None:
            console.print(_milp_line(milp_result, progress.results))
