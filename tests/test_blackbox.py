"""The lab's black-box problem, its experiments and the `boardlab blackbox` command."""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import typer
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from boardlab.labs import blackbox as blackbox_lab
from boardlab.labs.blackbox import (
    INSTANCES,
    LOCI,
    STRATEGIES,
    compare_parent_selection,
    make_problem,
    plot_histories,
    run_strategy,
)
from boardlab.labs.evolve import (
    CompactGAConfig,
    EvolutionResult,
    GAConfig,
    HillClimberConfig,
    IslandConfig,
    LinkageClimberConfig,
    MuLambdaConfig,
    OnePlusLambdaConfig,
    Run,
    StopRule,
    UMDAConfig,
    compact_ga,
    genetic_algorithm,
    hill_climber,
    island_model,
    linkage_hill_climber,
    mu_comma_lambda,
    mu_plus_lambda,
    one_plus_lambda,
    umda,
)
from boardlab.ui import blackbox as blackbox_cli
from boardlab.ui.cli import app


def naive_fitness(genome: list[int], a: int) -> float:
    """Straightforward reading of the lab's definition, written independently."""
    counts = []
    for s in range(a):
        counts.append(sum(1 for bit in genome[s::a] if bit))
    counts.sort(reverse=True)
    top = counts[0]
    value = 0.0
    for f in counts:
        if f == top:
            value += f
    k = 0
    for f in counts:
        if f < top:
            value -= f * 0.1 ** (k + 1)
            k += 1
    return value / len(genome)


@st.composite
def instance_and_genome(draw: st.DrawFn) -> tuple[int, list[int]]:
    a = draw(st.integers(1, 12))
    length = draw(st.integers(a, 80))
    genome = draw(st.lists(st.integers(0, 1), min_size=length, max_size=length))
    return a, genome


@given(case=instance_and_genome())
@settings(max_examples=300, deadline=None)
def test_problem_matches_naive_definition(case: tuple[int, list[int]]) -> None:
    a, genome = case
    assert make_problem(a)(genome) == pytest.approx(naive_fitness(genome, a), rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("a", INSTANCES)
def test_problem_matches_naive_definition_on_lab_instances(a: int) -> None:
    rng = np.random.default_rng(a)
    problem = make_problem(a)
    for p_one in (0.1, 0.5, 0.9, 0.99):
        genome = (rng.random(LOCI) < p_one).astype(int).tolist()
        assert problem(genome) == pytest.approx(naive_fitness(genome, a), rel=1e-12)


@pytest.mark.parametrize("a", INSTANCES)
def test_all_ones_scores_one(a: int) -> None:
    assert make_problem(a)([1] * LOCI) == 1.0


@pytest.mark.parametrize("a", INSTANCES)
def test_vectorised_evaluation_is_identical_to_scalar(a: int) -> None:
    rng = np.random.default_rng(100 + a)
    population = rng.random((64, LOCI)) < rng.random((64, 1))
    vectorised = make_problem(a).evaluate_population(population)
    scalar = make_problem(a)
    assert vectorised.tolist() == [scalar(genome) for genome in population]


def test_every_evaluation_counts_a_call() -> None:
    problem = make_problem(5)
    genome = np.ones(LOCI, dtype=bool)
    assert problem.calls == 0
    problem(genome)
    problem(genome)  # re-evaluating the same genome counts again
    assert problem.calls == 2
    problem.evaluate_population(np.stack([genome] * 7))
    assert problem.calls == 9


def test_run_and_problem_agree_on_the_calls() -> None:
    problem = make_problem(2)
    run = Run(problem.evaluate_population, StopRule(max_calls=3_333))
    result = run_strategy("ga", 2, run.stop, seed=0, run=run)
    assert result.calls == problem.calls == 3_333


def test_bad_instance_is_rejected() -> None:
    with pytest.raises(ValueError):
        make_problem(0)


@pytest.mark.parametrize("a", INSTANCES)
def test_linkage_strategy_solves_every_lab_instance(a: int) -> None:
    problem = make_problem(a)
    run = Run(problem.evaluate_population, StopRule(target_fitness=1.0, max_calls=20_000))
    result = run_strategy("linkage", a, run.stop, seed=a, run=run)
    assert result.best_fitness == 1.0
    assert result.calls_to_target == result.calls_to_best <= problem.calls <= 20_000
    assert problem(result.best_genome) == 1.0


@pytest.mark.parametrize("name", sorted(STRATEGIES))
def test_run_strategy_starts_from_the_warm_start_genome(name: str) -> None:
    result = run_strategy(
        name,
        5,
        StopRule(max_generations=1),
        seed=0,
        loci=50,
        initial=np.ones(50, dtype=bool),
    )
    assert result.best_fitness == 1.0  # the all-ones genome, given, was evaluated


def test_run_strategy_rejects_unknown_names_listing_the_strategies() -> None:
    with pytest.raises(ValueError) as refused:
        run_strategy("nope", 1, StopRule(max_calls=10), seed=0)
    assert str(refused.value) == f"unknown strategy 'nope'; accepted: {', '.join(STRATEGIES)}"


@pytest.mark.parametrize("target", [2.0, 1.5, -0.5])
def test_run_strategy_refuses_a_target_the_problem_cannot_reach(target: float) -> None:
    bound = ">= 0" if target < 0 else "<= 1"
    with pytest.raises(ValueError, match=f"^target_fitness must be {bound}, got {target}$"):
        run_strategy("linkage", 1, StopRule(target_fitness=target, max_calls=10), seed=0)
    with pytest.raises(ValueError, match=f"^target must be {bound}, got {target}$"):
        compare_parent_selection(instances=(1,), max_calls=10, target=target)


def test_run_strategy_refuses_a_stop_that_is_not_a_stop_rule() -> None:
    with pytest.raises(TypeError, match=r"^stop must be a StopRule, got dict$"):
        run_strategy("linkage", 1, {"max_calls": 10}, seed=0)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("genome", "message"),
    [
        ([2] * 1000, "a genome holds only 0/1 or bools, got 2 at locus 0"),
        ([-1] * 1000, "a genome holds only 0/1 or bools, got -1 at locus 0"),
        ([0.5] * 1000, "a genome holds only 0/1 or bools, got 0.5 at locus 0"),
        ([1] * 999 + [math.nan], "a genome holds only 0/1 or bools, got nan at locus 999"),
        (np.ones((2, 1000)), "expected one genome (1-D) of 0/1 or bools, got an array of shape (2, 1000)"),
    ],
)
def test_a_genome_that_is_not_0_1_is_refused_not_read_as_ones(genome: Any, message: str) -> None:
    problem = make_problem(1)
    with pytest.raises(ValueError) as refused:
        problem(genome)
    assert str(refused.value) == message
    assert problem.calls == 0  # a refused genome costs no call
    assert problem([1] * 1000) == 1.0 and problem([True] * 999 + [False]) < 1.0


@pytest.mark.parametrize(
    ("genome", "message"),
    [
        ("0101", "a genome must be a sequence of 0/1 or bools, got str"),
        (list("0101"), "a genome must be a sequence of 0/1 or bools, got list of <U1"),
        ([None, 1], "a genome must be a sequence of 0/1 or bools, got list of object"),
    ],
)
def test_a_genome_of_text_or_objects_is_refused_with_a_type_error(genome: Any, message: str) -> None:
    problem = make_problem(2)
    with pytest.raises(TypeError) as refused:
        problem(genome)
    assert str(refused.value) == message
    with pytest.raises(TypeError):
        problem.evaluate_population(genome)


def test_a_population_names_the_genome_and_locus_that_is_wrong() -> None:
    population = np.ones((3, 10), dtype=np.int64)
    population[2, 7] = 3
    with pytest.raises(ValueError, match=r"^a genome holds only 0/1 or bools, got 3 at locus 7 of genome 2$"):
        make_problem(2).evaluate_population(population)


def test_comparison_reports_both_parent_keys_per_instance() -> None:
    rows = compare_parent_selection(instances=(1, 10), seed=3, max_calls=1_500, stagnation=200)
    assert [(r.instance, r.parent_key) for r in rows] == [
        (1, "fitness"),
        (1, "ones"),
        (10, "fitness"),
        (10, "ones"),
    ]
    assert all(r.result.calls <= 1_500 and r.population == 100 for r in rows)
    # On instance 1 the fitness is the count of ones over L: both keys evolve identically.
    assert rows[0].result.history_best == rows[1].result.history_best


def test_the_comparison_s_fitness_row_is_the_lab_s_ga_run_from_the_same_seed() -> None:
    rows = compare_parent_selection(instances=(10,), seed=4, max_calls=3_000, stagnation=3, loci=30)
    alone = run_strategy(
        "ga",
        10,
        StopRule(target_fitness=1.0, max_calls=3_000, stagnation=3),
        seed=4,
        loci=30,
    )
    assert alone.stop_reason == "stagnation"
    assert rows[0].parent_key == "fitness" and rows[0].result.summary() == alone.summary()
    assert rows[0].result.history_best == alone.history_best
    by_ones = run_strategy(
        "ga-ones",
        10,
        StopRule(target_fitness=1.0, max_calls=3_000, stagnation=3),
        seed=4,
        loci=30,
    )
    assert rows[1].parent_key == "ones" and rows[1].result.summary() == by_ones.summary()
    assert by_ones.history_mean != alone.history_mean  # the two keys do pick other parents here


def test_plot_is_written(tmp_path: Path) -> None:
    result = run_strategy("umda", 5, StopRule(max_calls=500), seed=0)
    path = plot_histories({"instance 5": {"umda": result}}, tmp_path / "p.png")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("x_axis", ["generation", "calls"])
def test_every_panel_is_drawn_against_the_chosen_axis(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, x_axis: str
) -> None:
    drawn: list[Any] = []
    monkeypatch.setattr(
        blackbox_lab,
        "atomic_savefig",
        lambda figure, path, **_: drawn.append(figure) or path,
    )
    results = {
        name: run_strategy(name, 2, StopRule(max_calls=300), seed=0, loci=40) for name in ("umda", "cga")
    }
    panels = {f"panel {i}": results for i in range(3)}
    plot_histories(panels, tmp_path / "p.png", x_axis=x_axis)  # type: ignore[arg-type]
    axes = drawn[0].axes
    shown = [axis for axis in axes if axis.get_visible()]
    assert len(axes) == 4 and [axis.get_title() for axis in shown] == list(panels)
    for axis in shown:
        best = axis.get_lines()[0]  # the first series' best-so-far line
        expected = results["umda"].history_calls if x_axis == "calls" else range(results["umda"].generations)
        assert list(best.get_xdata()) == list(expected)
        assert list(best.get_ydata()) == results["umda"].history_best


def test_plotting_leaves_the_caller_s_matplotlib_backend_alone(tmp_path: Path) -> None:
    import matplotlib

    result = run_strategy("umda", 5, StopRule(max_calls=200), seed=0)
    before = matplotlib.get_backend()
    try:
        matplotlib.use("svg")  # e.g. a notebook's backend: a plot must not switch it to Agg
        plot_histories({"instance 5": {"umda": result}}, tmp_path / "p.png")
        assert matplotlib.get_backend() == "svg"
    finally:
        matplotlib.use(before)


# -- the command line -----------------------------------------------------------------------


def invoke(*args: str) -> typer.testing.Result:
    """Run `boardlab blackbox ARGS` (the app collapses to this command when it is the only one)."""
    command = typer.main.get_command(app)
    prefix = ["blackbox"] if hasattr(command, "commands") else []
    return CliRunner().invoke(app, [*prefix, *args])


def umda_run(out: Path, max_calls: int, *more: str) -> typer.testing.Result:
    """``blackbox --instance 2 --strategy umda`` with a budget, into ``out``."""
    return invoke(
        "--instance", "2", "--strategy", "umda", "--max-calls", str(max_calls), "--out", str(out), *more
    )


def test_cli_unknown_strategy_is_a_one_line_error_with_exit_code_2() -> None:
    result = invoke("--strategy", "simulated-annealing")
    assert result.exit_code == 2
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1
    assert "Traceback" not in result.output
    for name in [*STRATEGIES, "compare"]:
        assert name in lines[0]


@pytest.mark.parametrize(
    "args",
    [("--instance", "0"), ("--max-calls", "0"), ("--instance", "5", "--loci", "3")],
)
def test_cli_bad_parameters_exit_with_code_2(args: tuple[str, ...], tmp_path: Path) -> None:
    result = invoke(*args, "--out", str(tmp_path))
    assert result.exit_code == 2
    assert result.output.startswith("Error:")
    assert "Traceback" not in result.output


@settings(max_examples=15, deadline=None)
@given(instance=st.sampled_from([None, 1, 2, 5, 10]), loci=st.integers(-5, 9))
def test_cli_refuses_fewer_loci_than_strands_up_front(instance: int | None, loci: int) -> None:
    strands = 10 if instance is None else instance
    if loci >= strands:
        return
    args = [
        "--loci",
        str(loci),
        "--max-calls",
        "10",
        "--out",
        "/nonexistent-boardlab/blackbox",
    ]
    result = invoke(*args, *([] if instance is None else ["--instance", str(instance)]))
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"Error: --loci must be in {strands}..10000"), lines
    assert "Traceback" not in result.output and not result.stdout.strip()


def test_cli_runs_a_strategy_and_writes_table_plot_and_json(tmp_path: Path) -> None:
    result = invoke(
        "--instance",
        "10",
        "--strategy",
        "linkage",
        "--seed",
        "1",
        "--max-calls",
        "5000",
        "--out",
        str(tmp_path),
    )
    assert result.exit_code == 0, result.output
    assert "1.0000" in result.output
    assert (tmp_path / "blackbox_linkage.png").exists()
    summary = json.loads((tmp_path / "blackbox_linkage.json").read_text())
    assert summary[0]["best_fitness"] == 1.0 and summary[0]["calls"] <= 5000
    # the stop reason is a word: on the left of its column, like its header
    header = next(line for line in result.output.splitlines() if line.startswith("┃") and " stop " in line)
    row = next(line for line in result.output.splitlines() if line.startswith("│ 10 │"))
    assert header.split("┃")[-2].startswith(" stop ") and row.split("│")[-2].startswith(" target ")


def test_cli_compare_writes_the_comparison(tmp_path: Path) -> None:
    result = invoke("--strategy", "compare", "--max-calls", "600", "--out", str(tmp_path))
    assert result.exit_code == 0, result.output
    rows = json.loads((tmp_path / "compare.json").read_text())
    assert {(r["instance"], r["parents_by"]) for r in rows} == {
        (a, key) for a in INSTANCES for key in ("fitness", "ones")
    }
    assert (tmp_path / "compare.png").exists()


def test_cli_resume_warm_starts_from_the_checkpoint(tmp_path: Path) -> None:
    first = invoke("--instance", "5", "--strategy", "umda", "--max-calls", "300", "--out", str(tmp_path))
    assert first.exit_code == 0, first.output
    checkpoint = blackbox_cli.checkpoint_path(tmp_path, 5, "umda")
    with np.load(checkpoint, allow_pickle=False) as data:
        assert int(data["calls"]) == 300
        saved_fitness = float(data["best_fitness"])
    second = invoke(
        "--instance", "5", "--strategy", "umda", "--max-calls", "600", "--out", str(tmp_path), "--resume"
    )
    assert second.exit_code == 0, second.output
    summary = json.loads((tmp_path / "blackbox_umda.json").read_text())[0]
    assert summary["calls"] == 600
    assert summary["best_fitness"] >= saved_fitness


def test_cli_ctrl_c_prints_best_so_far_and_saves_a_checkpoint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def interrupted_strategy(
        name: str,
        instance: int,
        stop: StopRule,
        seed: int,
        loci: int,
        run: Run,
        initial: np.ndarray | None,
    ) -> None:
        run.evaluate(np.ones((3, loci), dtype=bool))
        raise KeyboardInterrupt

    monkeypatch.setattr(blackbox_cli, "run_strategy", interrupted_strategy)
    result = invoke("--instance", "2", "--out", str(tmp_path))
    assert result.exit_code == 130
    assert "interrupted" in result.output and "best so far 1.0000" in result.output
    assert "Traceback" not in result.output
    assert blackbox_cli.checkpoint_path(tmp_path, 2, "linkage").exists()


def test_cli_ctrl_c_during_the_comparison_prints_the_finished_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_compare = compare_parent_selection

    def interrupted_compare(instances: list[int], **kwargs: object) -> None:
        rows = real_compare(instances[:1], seed=0, max_calls=200)
        kwargs["on_row"](rows[0])  # type: ignore[operator]
        raise KeyboardInterrupt

    monkeypatch.setattr(blackbox_cli, "compare_parent_selection", interrupted_compare)
    result = invoke("--strategy", "compare", "--out", str(tmp_path))
    assert result.exit_code == 130
    assert "interrupted" in result.output and "1 of 8 runs done" in result.output
    assert "Traceback" not in result.output


def test_cli_resume_with_a_spent_checkpoint_and_no_finished_result_or_a_broken_checkpoint_is_a_usage_error(
    tmp_path: Path,
) -> None:
    first = umda_run(tmp_path, 200)
    assert first.exit_code == 0, first.output
    checkpoint = blackbox_cli.checkpoint_path(tmp_path, 2, "umda")
    finished = blackbox_cli.finished_path(tmp_path, 2, "umda")
    written = finished.read_text()
    finished.unlink()
    again = umda_run(tmp_path, 200, "--resume")  # its last generation run again from its resume point
    assert again.exit_code == 0, again.output
    assert finished.read_text() == written
    finished.unlink()  # and the checkpoint as written before resume points and finished results were kept
    with np.load(checkpoint, allow_pickle=False) as data:
        legacy = {name: data[name] for name in data.files if not name.startswith("resume_")}
    np.savez(checkpoint, **legacy)
    spent = umda_run(tmp_path, 200, "--resume")
    assert spent.exit_code == 2
    assert spent.output.strip().splitlines() == [
        f"Error: the checkpoint {checkpoint} already spent 200 calls (--max-calls 200) and there is no "
        f"finished result {finished}; raise --max-calls to continue it, or start over with --force in "
        "place of --resume"
    ]
    checkpoint.write_bytes(b"not an npz file")
    broken = umda_run(tmp_path, 500, "--resume")
    assert broken.exit_code == 2 and f"checkpoint {checkpoint} is not an .npz archive" in broken.output
    assert "Traceback" not in spent.output + broken.output
    assert "start over with --force in place of --resume" in broken.output
    assert umda_run(tmp_path, 500, "--force").exit_code == 0  # what the line says to do


def test_cli_resume_with_a_checkpoint_of_another_length_is_refused_and_kept(
    tmp_path: Path,
) -> None:
    first = umda_run(tmp_path, 200)
    assert first.exit_code == 0, first.output
    checkpoint = blackbox_cli.checkpoint_path(tmp_path, 2, "umda")
    saved = checkpoint.read_bytes()
    other = invoke(
        "--instance",
        "2",
        "--strategy",
        "umda",
        "--max-calls",
        "400",
        "--loci",
        "500",
        "--out",
        str(tmp_path),
        "--resume",
    )
    assert other.exit_code == 2, other.output
    lines = other.output.strip().splitlines()
    assert len(lines) == 1 and "1000 loci, not --loci 500" in lines[0], lines
    assert checkpoint.read_bytes() == saved


def test_cli_compare_stops_each_run_at_the_target(tmp_path: Path) -> None:
    args = ("--strategy", "compare", "--instance", "1", "--target", "0.3", "--max-calls", "600")
    result = invoke(*args, "--out", str(tmp_path))
    assert result.exit_code == 0, result.output
    rows = json.loads((tmp_path / "compare.json").read_text())
    assert [r["stop_reason"] for r in rows] == ["target", "target"]
    assert all(r["calls"] < 600 and r["best_fitness"] >= 0.3 for r in rows)


def test_cli_compare_table_says_why_each_run_stopped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def quick_stagnation(instances: list[int], **kwargs: Any) -> list[Any]:
        return compare_parent_selection(instances, **{**kwargs, "stagnation": 3})  # instead of 50

    monkeypatch.setattr(blackbox_cli, "compare_parent_selection", quick_stagnation)
    args = ("--strategy", "compare", "--instance", "10", "--seed", "4", "--loci", "30", "--max-calls", "3000")
    result = invoke(*args, "--out", str(tmp_path))
    assert result.exit_code == 0, result.output
    header = next(line for line in result.output.splitlines() if "parents by" in line)
    assert header.split("┃")[-2].strip() == "stop"
    rows = [line for line in result.output.splitlines() if line.startswith("│ 10 ")]
    reasons = [row.split("│")[-2].strip() for row in rows]
    assert reasons == [r["stop_reason"] for r in json.loads((tmp_path / "compare.json").read_text())]
    assert reasons[0] == "stagnation"


def test_cli_compare_refuses_resume(tmp_path: Path) -> None:
    result = invoke("--strategy", "compare", "--resume", "--out", str(tmp_path))
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        "Error: --resume does not apply to --strategy compare, which keeps no checkpoint"
    ]


def test_cli_table_names_the_target_its_calls_column_counts_to(tmp_path: Path) -> None:
    args = ("--instance", "2", "--strategy", "ga", "--target", "0.55", "--max-calls", "3000")
    result = invoke(*args, "--out", str(tmp_path))
    assert result.exit_code == 0, result.output
    assert "calls@0.55" in result.output and "calls@1.0" not in result.output


def test_a_genome_shorter_than_the_strands_is_refused() -> None:
    with pytest.raises(ValueError, match="at least one locus per strand"):
        make_problem(5)(np.ones(4, dtype=bool))
    assert make_problem(5)(np.ones(5, dtype=bool)) == 1.0


LAB_RUNS: dict[str, Callable[[Run, np.random.Generator], EvolutionResult]] = {
    "linkage": lambda run, rng: linkage_hill_climber(run, 40, LinkageClimberConfig(), rng),
    "one-plus-lambda": lambda run, rng: one_plus_lambda(run, 40, OnePlusLambdaConfig(offspring=8), rng),
    "mu-plus-lambda": lambda run, rng: mu_plus_lambda(run, 40, MuLambdaConfig(mu=10, lam=40), rng),
    "mu-comma-lambda": lambda run, rng: mu_comma_lambda(run, 40, MuLambdaConfig(mu=10, lam=40), rng),
    "ga": lambda run, rng: genetic_algorithm(run, 40, GAConfig(population=100, elitism=2), rng),
    "islands": lambda run, rng: island_model(
        run,
        40,
        IslandConfig(islands=4, ga=GAConfig(population=25, elitism=1), migration_interval=10),
        rng,
    ),
    "hill-climb": lambda run, rng: hill_climber(run, 40, HillClimberConfig(neighbours=8), rng),
    "cga": lambda run, rng: compact_ga(run, 40, CompactGAConfig(virtual_population=None), rng),
    "umda": lambda run, rng: umda(run, 40, UMDAConfig(samples=100, selected=30), rng),
}


@pytest.mark.parametrize("name", sorted(LAB_RUNS))
def test_each_lab_strategy_is_the_toolkit_strategy_its_description_names(
    name: str,
) -> None:
    stop = StopRule(max_calls=1_500)
    lab = run_strategy(name, 5, stop, seed=7, loci=40)
    toolkit = LAB_RUNS[name](Run(make_problem(5).evaluate_population, stop), np.random.default_rng(7))
    assert lab.summary() == toolkit.summary() and lab.history_mean == toolkit.history_mean
    other_seed = run_strategy(name, 5, stop, seed=8, loci=40)
    assert other_seed.history_mean != lab.history_mean


def test_the_comparison_runs_the_ga_it_is_given() -> None:
    config = GAConfig(population=10, elitism=1)
    rows = compare_parent_selection(instances=(2,), max_calls=100, stagnation=50, loci=20, config=config)
    assert [row.population for row in rows] == [10, 10]
    assert all(np.diff(row.result.history_calls).tolist() == [9] * 10 for row in rows)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--seed", "-1"), "--seed"),
        (("--target", "1.5"), "--target"),
        (("--target", "nan"), "--target"),
    ],
)
def test_cli_out_of_range_seed_or_target_is_a_one_line_error(
    args: tuple[str, ...], message: str, tmp_path: Path
) -> None:
    result = invoke("--instance", "1", "--max-calls", "10", *args, "--out", str(tmp_path))
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"Error: {message}"), lines


def test_cli_keeps_one_checkpoint_per_instance_and_strategy(tmp_path: Path) -> None:
    for instance, strategy in (("2", "umda"), ("5", "umda"), ("2", "cga")):
        args = (
            "--instance",
            instance,
            "--strategy",
            strategy,
            "--max-calls",
            "100",
            "--loci",
            "40",
        )
        assert invoke(*args, "--out", str(tmp_path)).exit_code == 0
    assert sorted(path.name for path in tmp_path.glob("*.npz")) == [
        "checkpoint_a2_cga.npz",
        "checkpoint_a2_umda.npz",
        "checkpoint_a5_umda.npz",
    ]


def test_cli_without_resume_refuses_the_checkpoint_of_its_run_and_force_starts_afresh(
    tmp_path: Path,
) -> None:
    args = ("--instance", "2", "--strategy", "umda", "--max-calls", "200", "--loci", "40")
    first = invoke(*args, "--out", str(tmp_path))
    assert first.exit_code == 0, first.output
    checkpoint = blackbox_cli.checkpoint_path(tmp_path, 2, "umda")
    written = {path.name: path.read_bytes() for path in tmp_path.iterdir()}
    again = invoke(*args, "--out", str(tmp_path))
    assert again.exit_code == 2
    assert again.output.strip().splitlines() == [
        f"Error: {checkpoint} exists; pass --resume to continue it or --force to start over"
    ]
    assert {path.name: path.read_bytes() for path in tmp_path.iterdir()} == written  # before any work
    forced = invoke(*args, "--out", str(tmp_path), "--force")
    assert forced.exit_code == 0, forced.output
    summary = json.loads((tmp_path / "blackbox_umda.json").read_text())
    assert summary == json.loads(written["blackbox_umda.json"]) and summary[0]["seed"] == 0


def test_cli_without_resume_names_the_first_of_several_checkpoints_of_its_run(tmp_path: Path) -> None:
    args = ("--strategy", "umda", "--max-calls", "100", "--loci", "40", "--out", str(tmp_path))
    assert invoke(*args).exit_code == 0  # every instance
    again = invoke(*args)
    assert again.exit_code == 2
    assert again.output.strip().splitlines() == [
        f"Error: {blackbox_cli.checkpoint_path(tmp_path, 1, 'umda')} and 3 other checkpoints of "
        "--strategy umda exist; pass --resume to continue them or --force to start over"
    ]
    assert invoke(*args, "--instance", "5").exit_code == 2  # one of them
    assert invoke("--strategy", "cga", *args[2:]).exit_code == 0  # another strategy's runs


def test_cli_refuses_resume_with_force_in_one_line(tmp_path: Path) -> None:
    result = umda_run(tmp_path, 100, "--resume", "--force")
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        "Error: --resume continues the run in --out and --force starts it over: pass one of them"
    ]
    assert not list(tmp_path.iterdir())


def test_cli_resume_refuses_a_checkpoint_shorter_than_the_genome(
    tmp_path: Path,
) -> None:
    args = ("--instance", "2", "--strategy", "umda", "--out", str(tmp_path))
    assert invoke(*args, "--max-calls", "100", "--loci", "40").exit_code == 0
    result = invoke(*args, "--max-calls", "200", "--loci", "60", "--resume")
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        (
            f"Error: the checkpoint {blackbox_cli.checkpoint_path(tmp_path, 2, 'umda')} holds a genome of 40 "
            "loci, not --loci 60; resume with --loci 40, or start afresh with --force in place of --resume"
        )
    ]
    assert invoke(*args, "--max-calls", "200", "--loci", "60", "--force").exit_code == 0


@pytest.mark.parametrize(
    "fields",
    [
        {"calls": np.int64(-1)},
        {"calls": np.float64(10.0)},
        {"calls": np.array([1, 2])},
        {"best_genome": np.ones((2, 5), dtype=np.uint8)},
    ],
)
def test_a_checkpoint_with_impossible_calls_or_genome_is_unreadable(
    tmp_path: Path, fields: dict[str, Any]
) -> None:
    path = tmp_path / "checkpoint.npz"
    saved = {
        "best_genome": np.ones(5, dtype=np.uint8),
        "calls": np.int64(10),
        "strategy": np.array("ga"),
    }
    np.savez(path, **{**saved, **fields})
    with pytest.raises(blackbox_cli.UsageProblem, match="unreadable checkpoint"):
        blackbox_cli.load_checkpoint(path, "ga")


def test_a_checkpoint_of_another_strategy_is_not_resumed(tmp_path: Path) -> None:
    path = tmp_path / "checkpoint.npz"
    np.savez(
        path,
        best_genome=np.ones(5, dtype=np.uint8),
        calls=np.int64(10),
        strategy=np.array("ga"),
    )
    assert blackbox_cli.load_checkpoint(path, "umda") is None
    genome, calls = blackbox_cli.load_checkpoint(path, "ga")  # type: ignore[misc]
    assert genome.tolist() == [True] * 5 and calls == 10


def test_cli_saves_a_checkpoint_every_few_seconds_during_a_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    saved: list[int] = []
    monkeypatch.setattr(blackbox_cli, "CHECKPOINT_SECONDS", -1.0)  # every batch is "a while later"
    monkeypatch.setattr(
        blackbox_cli,
        "save_checkpoint",
        lambda path, run, strategy, seed: saved.append(run.calls),
    )
    result = invoke(
        "--instance", "2", "--strategy", "umda", "--max-calls", "300", "--loci", "40", "--out", str(tmp_path)
    )
    assert result.exit_code == 0, result.output
    assert saved == [
        100,
        200,
        300,
        300,
    ]  # after each batch of 100 samples, then at the end


def table_row(output: str, instance: int) -> list[str]:
    row = next(line for line in output.splitlines() if line.startswith(f"│ {instance} "))
    return [cell.strip() for cell in row.split("│")[1:-1]]


def test_cli_table_shows_the_run_s_figures_in_their_columns(tmp_path: Path) -> None:
    args = ("--instance", "2", "--strategy", "ga", "--target", "0.55", "--max-calls", "3000", "--loci", "40")
    result = invoke(*args, "--out", str(tmp_path))
    assert result.exit_code == 0, result.output
    (summary,) = json.loads((tmp_path / "blackbox_ga.json").read_text())
    assert (
        summary["calls_to_target"] != summary["calls_to_best"]
        or summary["best_generation"] != summary["generations"]
    )
    assert table_row(result.output, 2) == [
        "2",
        f"{summary['best_fitness']:.4f}",
        f"{summary['calls_to_best']:,}",
        f"{summary['calls_to_target']:,}",
        str(summary["best_generation"]),
        str(summary["generations"]),
        f"{summary['calls']:,}",
        summary["stop_reason"],
    ]


def test_cli_default_budgets_are_100000_calls_a_run_and_30000_in_the_comparison(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    budgets: list[int | None] = []

    def strategy(
        name: str,
        instance: int,
        stop: StopRule,
        seed: int,
        loci: int,
        run: Run,
        initial: object,
    ) -> Any:
        budgets.append(stop.max_calls)
        run.evaluate(np.ones((1, loci), dtype=bool))
        return run.result()

    def comparison(instances: list[int], **kwargs: Any) -> list[Any]:
        budgets.append(kwargs["max_calls"])
        assert (kwargs["seed"], kwargs["loci"]) == (3, 30)
        return compare_parent_selection(instances, seed=3, max_calls=20, loci=30, on_row=kwargs["on_row"])

    monkeypatch.setattr(blackbox_cli, "run_strategy", strategy)
    monkeypatch.setattr(blackbox_cli, "compare_parent_selection", comparison)
    assert invoke("--instance", "1", "--out", str(tmp_path)).exit_code == 0
    compare = ("--strategy", "compare", "--instance", "1", "--seed", "3", "--loci", "30")
    assert invoke(*compare, "--out", str(tmp_path)).exit_code == 0
    assert budgets == [100_000, 30_000]


# -- resuming a run over several instances ----------------------------------------------------------


SEVERAL = ("--strategy", "umda", "--max-calls", "200", "--loci", "40", "--seed", "3")
"""Every instance (1, 2, 5, 10) with a small budget: a run over several instances."""


class CountedStrategy:
    """Stands in for ``run_strategy``: records the instances it runs and, at ``interrupt``,
    raises KeyboardInterrupt (Ctrl-C) after ``calls_first`` evaluations, as a user would."""

    def __init__(self, interrupt: int | None = None, calls_first: int = 0) -> None:
        self.instances: list[int] = []
        self.interrupt = interrupt
        self.calls_first = calls_first

    def __call__(
        self,
        name: str,
        instance: int,
        stop: StopRule,
        seed: int,
        loci: int,
        run: Run,
        initial: np.ndarray | None,
    ) -> EvolutionResult:
        self.instances.append(instance)
        if instance == self.interrupt:
            if self.calls_first:
                run.evaluate(np.zeros((self.calls_first, loci), dtype=bool))
            raise KeyboardInterrupt
        return run_strategy(name, instance, stop, seed, loci, run=run, initial=initial)


def several_run(
    monkeypatch: pytest.MonkeyPatch, out: Path, strategy: CountedStrategy, *more: str
) -> tuple[typer.testing.Result, dict[str, dict[str, EvolutionResult]]]:
    """``blackbox SEVERAL --out OUT MORE`` with ``strategy`` in place of the lab's; its result and
    the panels it plotted (none when it wrote no plot)."""
    plotted: dict[str, dict[str, EvolutionResult]] = {}

    def plot(panels: dict[str, dict[str, EvolutionResult]], path: Path, *args: Any, **kwargs: Any) -> Path:
        plotted.update(panels)
        return plot_histories(panels, path, *args, **kwargs)

    monkeypatch.setattr(blackbox_cli, "run_strategy", strategy)
    monkeypatch.setattr(blackbox_cli, "plot_histories", plot)
    return invoke(*SEVERAL, "--out", str(out), *more), plotted


def records(panels: dict[str, dict[str, EvolutionResult]]) -> dict[str, Any]:
    """Every plotted result whole, histories included (NaN as text, so that equal means equal)."""
    return {panel: {name: r.to_record() for name, r in runs.items()} for panel, runs in panels.items()}


def instance_rows(output: str) -> dict[int, list[str]]:
    return {instance: table_row(output, instance) for instance in INSTANCES if f"│ {instance} " in output}


@pytest.fixture
def uninterrupted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[typer.testing.Result, list[dict[str, Any]], dict[str, Any]]:
    """The run over every instance, never interrupted: output, JSON summary and plotted results."""
    whole = tmp_path / "whole"
    result, plotted = several_run(monkeypatch, whole, CountedStrategy())
    assert result.exit_code == 0, result.output
    return result, json.loads((whole / "blackbox_umda.json").read_text()), records(plotted)


def test_an_interrupted_run_over_several_instances_resumes_to_the_uninterrupted_results(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    uninterrupted: tuple[typer.testing.Result, list[dict[str, Any]], dict[str, Any]],
) -> None:
    whole_output, whole_summary, whole_plotted = uninterrupted
    out = tmp_path / "resumed"
    stopped, _ = several_run(monkeypatch, out, CountedStrategy(interrupt=2))  # Ctrl-C as instance 2 starts
    assert stopped.exit_code == 130
    assert "a=2 had spent no calls yet" in " ".join(stopped.output.split())
    assert "(rerun with --resume)" in " ".join(stopped.output.split())
    strategy = CountedStrategy()
    resumed, plotted = several_run(monkeypatch, out, strategy, "--resume")
    assert resumed.exit_code == 0, resumed.output
    assert strategy.instances == [2, 5, 10]  # instance 1 had finished: it is not run again
    assert json.loads((out / "blackbox_umda.json").read_text()) == whole_summary
    assert records(plotted) == whole_plotted  # the plot's histories too
    assert instance_rows(resumed.output) == instance_rows(whole_output.output)


def test_resume_after_an_interrupt_mid_instance_reports_the_finished_ones_and_continues_it(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    uninterrupted: tuple[typer.testing.Result, list[dict[str, Any]], dict[str, Any]],
) -> None:
    _, whole_summary, whole_plotted = uninterrupted
    out = tmp_path / "resumed"
    stopped, _ = several_run(monkeypatch, out, CountedStrategy(interrupt=5, calls_first=30))
    assert stopped.exit_code == 130
    assert "after 30 calls; checkpoint in" in " ".join(stopped.output.split())
    strategy = CountedStrategy()
    resumed, plotted = several_run(monkeypatch, out, strategy, "--resume")
    assert resumed.exit_code == 0, resumed.output
    assert strategy.instances == [5, 10]
    summary = {row["instance"]: row for row in json.loads((out / "blackbox_umda.json").read_text())}
    expected = {row["instance"]: row for row in whole_summary}
    assert [summary[a] for a in (1, 2, 10)] == [expected[a] for a in (1, 2, 10)]
    assert summary[5]["calls"] == 200  # warm-started from its checkpoint's 30 calls, then to the budget
    assert [records(plotted)[f"instance {a}"] for a in (1, 2)] == [
        whole_plotted[f"instance {a}"] for a in (1, 2)
    ]


def test_force_starts_every_instance_over_and_leaves_no_finished_result_behind(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    uninterrupted: tuple[typer.testing.Result, list[dict[str, Any]], dict[str, Any]],
) -> None:
    _, whole_summary, _ = uninterrupted
    out = tmp_path / "whole"  # every instance finished there
    strategy = CountedStrategy(interrupt=2)
    forced, _ = several_run(monkeypatch, out, strategy, "--force")
    assert forced.exit_code == 130
    assert strategy.instances == [1, 2]  # instance 1 ran again
    # the later instances' results and checkpoints of the earlier run are gone: --resume runs them
    assert sorted(path.name for path in out.glob("*_umda.*") if "_a" in path.name) == [
        "checkpoint_a1_umda.npz",
        "finished_a1_umda.json",
    ]
    strategy = CountedStrategy()
    resumed, _ = several_run(monkeypatch, out, strategy, "--resume")
    assert resumed.exit_code == 0, resumed.output
    assert strategy.instances == [2, 5, 10]
    assert json.loads((out / "blackbox_umda.json").read_text()) == whole_summary


def test_resume_of_a_finished_run_reports_it_without_running_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = umda_run(tmp_path, 200)
    assert first.exit_code == 0, first.output
    written = (tmp_path / "blackbox_umda.json").read_text()
    strategy = CountedStrategy()
    monkeypatch.setattr(blackbox_cli, "run_strategy", strategy)
    again = umda_run(tmp_path, 200, "--resume")
    assert again.exit_code == 0, again.output
    assert strategy.instances == [] and "(finished before)" in again.output
    assert (tmp_path / "blackbox_umda.json").read_text() == written
    assert table_row(again.output, 2) == table_row(first.output, 2)


def test_resume_with_a_higher_budget_continues_a_finished_run_from_its_checkpoint(tmp_path: Path) -> None:
    assert umda_run(tmp_path, 200, "--loci", "40").exit_code == 0
    more = umda_run(tmp_path, 400, "--loci", "40", "--resume")
    assert more.exit_code == 0, more.output
    (summary,) = json.loads((tmp_path / "blackbox_umda.json").read_text())
    assert summary["calls"] == 400
    finished = json.loads(blackbox_cli.finished_path(tmp_path, 2, "umda").read_text())
    assert (finished["max_calls"], finished["result"]["calls"]) == (400, 400)  # the finished run now


def test_resume_refuses_in_one_line_a_spent_run_whose_finished_result_ran_with_another_seed(
    tmp_path: Path,
) -> None:
    assert umda_run(tmp_path, 200, "--loci", "40").exit_code == 0
    other = umda_run(tmp_path, 200, "--loci", "40", "--seed", "1", "--target", "0.5", "--resume")
    assert other.exit_code == 2
    checkpoint = blackbox_cli.checkpoint_path(tmp_path, 2, "umda")
    finished = blackbox_cli.finished_path(tmp_path, 2, "umda")
    assert other.output.strip().splitlines() == [
        f"Error: the checkpoint {checkpoint} already spent 200 calls (--max-calls 200) and its finished "
        f"result {finished} ran with --seed 0 (not 1), --target 1 (not 0.5); raise --max-calls to continue "
        "it, or start over with --force in place of --resume"
    ]


def _rewrite(path: Path, change: Callable[[dict[str, Any]], object]) -> None:
    record = json.loads(path.read_text())
    change(record)
    path.write_text(json.dumps(record))


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda path: path.write_text("{"), "is damaged (not JSON"),
        (lambda path: path.write_text("[]"), "must be a JSON object"),
        (lambda path: _rewrite(path, lambda r: r.update(seed="3")), "'seed' must be a whole number"),
        (
            lambda path: _rewrite(path, lambda r: r["result"].pop("history_mean")),
            "'history_mean' must be a list",
        ),
        (
            lambda path: _rewrite(path, lambda r: r.update(strategy="cga")),
            "a run of --strategy cga on instance 2",
        ),
        (
            lambda path: _rewrite(path, lambda r: r.update(instance=5)),
            "a run of --strategy umda on instance 5",
        ),
        (lambda path: _rewrite(path, lambda r: r.update(loci=41)), "with 40 loci, not the one its name says"),
    ],
)
def test_resume_refuses_a_damaged_or_misplaced_finished_result_in_one_line(
    tmp_path: Path, damage: Callable[[Path], object], message: str
) -> None:
    assert umda_run(tmp_path, 200, "--loci", "40").exit_code == 0
    finished = blackbox_cli.finished_path(tmp_path, 2, "umda")
    damage(finished)
    result = umda_run(tmp_path, 200, "--loci", "40", "--resume")
    assert result.exit_code == 2
    (line,) = result.output.strip().splitlines()
    assert line.startswith("Error: unreadable finished result") and str(finished) in line
    assert message in line and line.endswith("delete it or start over with --force in place of --resume")
    assert umda_run(tmp_path, 200, "--loci", "40", "--force").exit_code == 0


def test_resume_refuses_a_finished_result_of_another_length_without_a_checkpoint(tmp_path: Path) -> None:
    assert umda_run(tmp_path, 200, "--loci", "40").exit_code == 0
    blackbox_cli.checkpoint_path(tmp_path, 2, "umda").unlink()
    finished = blackbox_cli.finished_path(tmp_path, 2, "umda")
    saved = finished.read_bytes()
    result = umda_run(tmp_path, 200, "--loci", "60", "--resume")
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        f"Error: the finished result {finished} holds a genome of 40 loci, not --loci 60; resume with "
        "--loci 40, or start afresh with --force in place of --resume"
    ]
    assert finished.read_bytes() == saved


def test_cli_without_resume_refuses_a_finished_result_of_its_run_even_without_its_checkpoint(
    tmp_path: Path,
) -> None:
    assert umda_run(tmp_path, 200, "--loci", "40").exit_code == 0
    blackbox_cli.checkpoint_path(tmp_path, 2, "umda").unlink()
    again = umda_run(tmp_path, 200, "--loci", "40")
    assert again.exit_code == 2
    assert again.output.strip().splitlines() == [
        f"Error: {blackbox_cli.finished_path(tmp_path, 2, 'umda')} exists; pass --resume to continue it or "
        "--force to start over"
    ]


# -- the JSON record of a strategy holds every instance run in its folder ---------------------------


@pytest.mark.timeout(120)
def test_the_json_record_keeps_the_instances_of_earlier_runs_and_replaces_a_rerun_instance(
    tmp_path: Path,
) -> None:
    args = ("--strategy", "umda", "--max-calls", "200", "--loci", "40", "--out", str(tmp_path))
    record = tmp_path / "blackbox_umda.json"
    assert invoke(*args, "--instance", "5").exit_code == 0
    (five,) = json.loads(record.read_text())
    assert invoke(*args, "--instance", "2", "--seed", "1").exit_code == 0
    rows = json.loads(record.read_text())
    assert [row["instance"] for row in rows] == [2, 5]  # by instance, instance 5 kept as it was
    assert rows[1] == five and rows[0]["seed"] == 1
    assert invoke(*args, "--instance", "5", "--seed", "2", "--force").exit_code == 0
    rows = json.loads(record.read_text())
    assert [(row["instance"], row["seed"]) for row in rows] == [(2, 1), (5, 2)]  # the rerun replaced
    assert rows[1] != five
    alone = tmp_path / "alone"
    assert invoke(*args[:-1], str(alone), "--instance", "5", "--seed", "2").exit_code == 0
    assert json.loads((alone / "blackbox_umda.json").read_text()) == rows[1:]


@pytest.mark.timeout(120)
def test_the_plot_shows_every_instance_of_the_record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    args = ("--strategy", "umda", "--max-calls", "200", "--loci", "40", "--out", str(tmp_path))
    plotted: list[dict[str, dict[str, EvolutionResult]]] = []

    def plot(panels: dict[str, dict[str, EvolutionResult]], path: Path, *more: Any, **options: Any) -> Path:
        plotted.append(panels)
        return plot_histories(panels, path, *more, **options)

    monkeypatch.setattr(blackbox_cli, "plot_histories", plot)
    assert invoke(*args, "--instance", "5").exit_code == 0
    assert invoke(*args, "--instance", "2", "--seed", "1").exit_code == 0
    first, second = plotted
    assert list(second) == ["instance 2", "instance 5"]
    assert records({"5": second["instance 5"]}) == records({"5": first["instance 5"]})  # as it ran
    blackbox_cli.finished_path(tmp_path, 5, "umda").write_text("{")  # unreadable: left out of the plot
    assert invoke(*args, "--instance", "2", "--seed", "1", "--force").exit_code == 0
    assert list(plotted[-1]) == ["instance 2"]


@pytest.mark.timeout(60)
def test_a_damaged_json_record_is_refused_in_one_line_before_any_work(tmp_path: Path) -> None:
    record = tmp_path / "blackbox_umda.json"
    record.write_text('[{"instance": "two"}]')
    result = umda_run(tmp_path, 200, "--loci", "40")
    assert result.exit_code == 2
    (line,) = result.output.strip().splitlines()
    assert line.startswith(f"Error: unreadable record {record}") and "delete it" in line, line
    assert not blackbox_cli.checkpoint_path(tmp_path, 2, "umda").exists()
    assert record.read_text() == '[{"instance": "two"}]'


# -- an instance stopped part way resumes exactly --------------------------------------------------


class StopAfter:
    """Stands in for ``run_strategy``: the lab's strategy itself, stopped as by Ctrl-C as soon as
    its run has spent ``calls`` calls (in the middle of a generation)."""

    def __init__(self, calls: int) -> None:
        self.calls = calls

    def __call__(
        self,
        name: str,
        instance: int,
        stop: StopRule,
        seed: int,
        loci: int,
        run: Run,
        initial: np.ndarray | None,
    ) -> EvolutionResult:
        watch = run.on_progress

        def stop_after(current: Run) -> None:
            if watch is not None:
                watch(current)
            if current.calls >= self.calls:
                raise KeyboardInterrupt

        run.on_progress = stop_after
        return run_strategy(name, instance, stop, seed, loci, run=run, initial=initial)


def inside_generations(history_calls: list[int]) -> list[int]:
    """A call count inside each generation after the first: a stop there comes before its end."""
    return [(low + high + 1) // 2 for low, high in itertools.pairwise(history_calls)]


@pytest.mark.timeout(120)
@pytest.mark.parametrize("name", sorted(STRATEGIES))
def test_an_instance_stopped_twice_mid_generation_resumes_to_the_uninterrupted_result(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    args = ("--instance", "10", "--strategy", name, "--max-calls", "600", "--loci", "40", "--seed", "3")
    whole, out = tmp_path / "whole", tmp_path / "stopped"
    assert invoke(*args, "--out", str(whole)).exit_code == 0
    finished = json.loads(blackbox_cli.finished_path(whole, 10, name).read_text())
    stops = inside_generations(finished["result"]["history_calls"])
    assert len(stops) >= 2, stops  # stopped in an early generation, then in the last one
    for calls in (stops[0], stops[-1]):
        monkeypatch.setattr(blackbox_cli, "run_strategy", StopAfter(calls))
        stopped = invoke(*args, "--out", str(out), "--resume")
        assert stopped.exit_code == 130, stopped.output
        assert "checkpoint in" in " ".join(stopped.output.split())
    monkeypatch.setattr(blackbox_cli, "run_strategy", run_strategy)
    resumed = invoke(*args, "--out", str(out), "--resume")
    assert resumed.exit_code == 0, resumed.output
    assert json.loads(blackbox_cli.finished_path(out, 10, name).read_text()) == finished
    record = f"blackbox_{name}.json"
    assert json.loads((out / record).read_text()) == json.loads((whole / record).read_text())


@pytest.mark.timeout(60)
def test_a_finished_run_given_a_higher_budget_ends_as_an_uninterrupted_run_with_that_budget(
    tmp_path: Path,
) -> None:
    args = ("--instance", "5", "--strategy", "ga", "--loci", "40", "--seed", "2")
    more, whole = tmp_path / "more", tmp_path / "whole"
    assert invoke(*args, "--max-calls", "250", "--out", str(more)).exit_code == 0  # ends inside a generation
    assert invoke(*args, "--max-calls", "700", "--out", str(more), "--resume").exit_code == 0
    assert invoke(*args, "--max-calls", "700", "--out", str(whole)).exit_code == 0
    finished = [json.loads(blackbox_cli.finished_path(out, 5, "ga").read_text()) for out in (more, whole)]
    assert finished[0] == finished[1] and finished[0]["result"]["calls"] == 700


@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    ("damage", "message"),
    [
        ({"resume_history_mean": None}, "'history_mean' must hold one float64 value for each of 1 gen"),
        ({"resume_run": np.array("{")}, "its counters are not JSON"),
        ({"resume_strategy_p": np.full(39, 0.5)}, "the strategy's 'p' must be 40 of float64, not 39 of"),
    ],
)
def test_resume_refuses_a_damaged_resume_point_in_one_line(
    tmp_path: Path, damage: dict[str, np.ndarray | None], message: str
) -> None:
    assert umda_run(tmp_path, 200, "--loci", "40").exit_code == 0
    checkpoint = blackbox_cli.checkpoint_path(tmp_path, 2, "umda")
    with np.load(checkpoint, allow_pickle=False) as data:
        arrays = {name: data[name] for name in data.files}
    arrays.update(damage)
    np.savez(checkpoint, **{name: array for name, array in arrays.items() if array is not None})
    result = umda_run(tmp_path, 400, "--loci", "40", "--resume")
    assert result.exit_code == 2
    (line,) = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert line.startswith(f"Error: unreadable checkpoint {checkpoint}: {message}"), line
    assert line.endswith("delete it or start over with --force in place of --resume")
    assert "Traceback" not in result.output


@pytest.mark.parametrize(
    ("damage", "said"),
    [
        (lambda data: data[: len(data) // 2], "is damaged"),  # cut short: a truncated archive
        (lambda data: b"not an npz file", "is not an .npz archive"),
    ],
)
def test_a_damaged_checkpoint_is_named_once_in_its_line(
    tmp_path: Path, damage: Callable[[bytes], bytes], said: str
) -> None:
    assert umda_run(tmp_path, 200, "--loci", "40").exit_code == 0
    checkpoint = blackbox_cli.checkpoint_path(tmp_path, 2, "umda")
    checkpoint.write_bytes(damage(checkpoint.read_bytes()))
    result = umda_run(tmp_path, 400, "--loci", "40", "--resume")
    assert result.exit_code == 2
    (line,) = [line for line in result.output.splitlines() if line.strip()]
    assert line.startswith(f"Error: checkpoint {checkpoint} {said}"), (
        line
    )  # not "unreadable checkpoint: checkpoint"
    assert line.endswith("; delete it or start over with --force in place of --resume"), line
