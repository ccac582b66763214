"""`boardlab setcover`: minimum set cover of a random instance by A*, weighted A* or the anytime
search, compared with the exact integer programme solved by HiGHS."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from boardlab.core.console import counted, make_console
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


def _runs(
    problem: SetCoverProblem,
    heuristic: str,
    weight: float,
    anytime: bool,
    time_limit: float,
    max_expansions: int | None,
    console: Console,
) -> list[CoverResult]:
    """Each search asked for, one after the other, with a line saying which one is running."""
    names = list(HEURISTICS) if heuristic == ALL else [] if anytime else [heuristic]
    method = "A*" if weight == 1.0 else f"weighted A* (w={weight:g})"
    results = []
    for name in names:
        with console.status(f"{method} with {name}, up to {time_limit:g} s..."):
            result = solve_astar(
                problem, name, weight=weight, time_limit=time_limit, max_expansions=max_expansions
            )
        results.append(result)
    if anytime:
        name = "dual_bound" if heuristic == ALL else heuristic
        with console.status(f"anytime search with {name}, up to {time_limit:g} s..."):
            results.append(solve_anytime(problem, name, time_limit=time_limit, max_nodes=max_expansions))
    return results


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
            problem = _make_problem(generator, points, sets, density, seed)
        except UsageProblem as problem_error:
            fail(str(problem_error))
        console = make_console(width=max(make_console().width, 110))
        console.print(f"{generator} instance: {points} points, {sets} sets, density {density}, seed {seed}")
        results = _runs(problem, heuristic, weight, anytime, time_limit, max_expansions, console)
        milp_result = None
        if milp:
            with console.status(f"the integer programme (HiGHS), up to {milp_time_limit:g} s..."):
                milp_result = solve_milp(problem, time_limit=milp_time_limit)
        console.print(_results_table(results, milp_result))
        for result in results:
            console.print(
                f"sets chosen by {result.method} ({result.heuristic}): {_format_sets(result.chosen)}"
            )
        if milp_result is not None:
            console.print(_milp_line(milp_result, results))
