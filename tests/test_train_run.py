"""The run protocol's driver on a toy method (stopped anywhere, resumed: the same run), and the
`boardlab train` command line derived from each method's settings dataclass."""

from __future__ import annotations

import dataclasses
import json
import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest
import typer
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console
from typer.testing import CliRunner

from boardlab.agents.base import AgentSpecError, make_agent
from boardlab.core.spec import format_value, options_of, with_article
from boardlab.games import parse_game
from boardlab.train import METHOD_MODULES, method
from boardlab.train.run import RUN_FILES, CheckpointWriteError, RunDefaults, train
from boardlab.ui import train as train_cli
from boardlab.ui.train import (
    Plan,
    UsageProblem,
    _bar_fields,
    _settings_summary,
    _write_failure,
    plan_command,
    register,
    run_plan,
)

# --- the driver ----------------------------------------------------------------------------------


class Counter(RunDefaults):
    """A toy method: each step adds up to ``chunk`` units; its state is the units and the sum of
    the squares of the steps' sizes, so that a step cut differently shows in the result."""

    curve_key: ClassVar[str] = "episode"
    curve_unit: ClassVar[str] = "units"
    checkpoint_seconds: ClassVar[float] = 0.0

    def __init__(self, chunk: int, state: dict[str, Any] | None = None) -> None:
        self.chunk = chunk
        self.state = state or {"units": 0, "squares": 0, "curve": []}
        self.params, self.seed = None, 0

    @property
    def progress(self) -> int:
        return int(self.state["units"])

    @property
    def curve(self) -> list[dict[str, Any]]:
        return self.state["curve"]  # type: ignore[no-any-return]

    def step(self, limit: int) -> None:
        size = min(self.chunk, limit)
        self.state["units"] += size
        self.state["squares"] += size * size

    def evaluate(self, opponents: Any, games: int) -> list[dict[str, Any]]:
        return [{"episode": self.progress, "opponent": "x", "games": games}]

    def save(self, path: Path) -> Path:
        path.write_text(json.dumps(self.state))
        return path


@settings(max_examples=60, deadline=None)
@given(
    chunk=st.integers(1, 9),
    every=st.integers(0, 12),
    total=st.integers(1, 60),
    stop_after=st.integers(0, 30),
)
def test_a_run_stopped_anywhere_and_resumed_equals_an_uninterrupted_one(
    tmp_path_factory: pytest.TempPathFactory, chunk: int, every: int, total: int, stop_after: int
) -> None:
    path = tmp_path_factory.mktemp("run") / "checkpoint.json"
    options = {"eval_every": every, "eval_games": 3}
    straight, steps = Counter(chunk), []
    assert train(straight, total, should_stop=lambda: steps.append(1) is not None, **options)
    calls = iter(range(10**6))
    first = Counter(chunk)
    stopped = not train(
        first, total, checkpoint=path, should_stop=lambda: next(calls) >= stop_after, **options
    )
    assert stopped == (stop_after < len(steps))
    resumed = Counter(chunk, json.loads(path.read_text()))
    assert train(resumed, total, checkpoint=path, **options)
    assert resumed.state == straight.state == json.loads(path.read_text())
    points = [r["episode"] for r in straight.curve]
    assert len(points) == len(set(points)), "a curve point recorded twice"
    wanted = {0, total} | (set(range(0, total + 1, every)) if every else set())
    assert set(points) == wanted


# --- the command line ----------------------------------------------------------------------------


def _app() -> typer.Typer:
    app = typer.Typer()

    @app.callback()
    def main() -> None:
        """Test app."""

    register(app)
    return app


def _train(*args: str) -> Any:
    return CliRunner().invoke(_app(), ["train", *args], terminal_width=240)


@pytest.mark.parametrize("kind", list(METHOD_MODULES))
def test_help_lists_every_hyper_parameter_flag_with_its_default(kind: str) -> None:
    result = _train(kind, "--help")
    assert result.exit_code == 0, result.output
    rows = [line for line in result.output.splitlines() if line.startswith("│ --")]
    for spec in options_of(method(kind).settings):
        flag = "--" + spec.name.replace("_", "-")
        (row,) = [r for r in rows if r.split()[1] == flag]
        assert format_value(spec.default) in row, row


def test_help_says_out_is_required() -> None:
    result = _train("--help")
    assert result.exit_code == 0, result.output
    assert "Usage: root train KIND --out DIR [OPTIONS]" in result.output
    text = re.sub(r"[│\s]+", " ", result.output)  # the help's rows, unwrapped
    assert "--out DIR Folder for the model, summary.json and the plots (required)." in text
    assert _train("qlearning").output.strip() == (
        "Error: --out DIR is required: the folder for the model, its summary and plots"
    )


SUGGESTING = [
    ("rules", "quixo:size=3"),  # a model of another board
    ("alphabeta:depth=1,eval=net", "quixo:size=4"),  # no network shipped
    ("alphabeta:depth=1,eval=net", "tictactoe"),  # nor the default players of evalnet
    ("mcrl", "connect4"),  # no model shipped
    ("neat", "quixo:size=4"),  # a model of another board
]
"""Agents refused on a game with a message that says which ``boardlab train`` command makes them
a model for it."""


@pytest.mark.timeout(300)
@pytest.mark.parametrize(("agent", "game"), SUGGESTING)
def test_the_train_command_an_agent_s_refusal_suggests_runs_as_written(
    agent: str, game: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(AgentSpecError) as refused:
        make_agent(agent, seed=0, game=parse_game(game))
    found = re.search(
        r"`boardlab (train [^`]*)` and (?:pass model|give eval=net:)=?DIR/([\w.]+)", str(refused.value)
    )
    assert found is not None, str(refused.value)
    command, model = found.groups()
    planned: list[Plan] = []
    monkeypatch.setattr(train_cli, "run_plan", lambda console, plan: planned.append(plan))
    try:
        result = CliRunner().invoke(_app(), shlex.split(command.replace("DIR", str(tmp_path / "run"))))
        assert result.exit_code == 0, result.output
        (plan,) = planned
        assert plan.method.model_file == model and f"--game {game} " in command
    finally:
        for plan in planned:
            plan.run.close()


def test_flags_and_hyper_strings_give_the_same_settings(tmp_path: Path) -> None:
    common = ["--game", "nim:piles=1-2", "--epochs", "1", "--eval-games", "0", "--final-games", "0"]
    by_flags = _train(
        "ga", *common, "--out", str(tmp_path / "a"), "--selection", "roulette", "--population=6"
    )
    by_hyper = _train(
        "ga", *common, "--out", str(tmp_path / "b"), "--hyper", "selection=roulette,population=6"
    )
    assert by_flags.exit_code == 0 and by_hyper.exit_code == 0, by_flags.output + by_hyper.output
    assert ": 1 epoch in " in by_flags.output, by_flags.output  # one epoch, not "1 epochs"
    a, b = (json.loads((tmp_path / n / "summary.json").read_text()) for n in "ab")
    assert (
        a["hyper"] == b["hyper"] and a["hyper"]["selection"] == "roulette" and a["hyper"]["population"] == 6
    )
    resumed = _train(
        "ga", *common[:2], "--epochs", "2", "--out", str(tmp_path / "a"), "--resume", "--population", "8"
    )
    assert resumed.exit_code == 2 and "--population 8 differs" in resumed.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--selection", "roulette", "--hyper", "selection=roulette"], "both as --selection and in --hyper"),
        (["--selection"], "--selection needs a value"),
        (["--population", "6", "--population", "7"], "given twice"),
        (["stray"], "unexpected argument"),
        (["--alpha", "0.1"], "ga has no --alpha"),
    ],
)
def test_bad_method_flags_are_one_line_errors(tmp_path: Path, args: list[str], message: str) -> None:
    result = _train("ga", "--out", str(tmp_path / "x"), *args)
    assert result.exit_code == 2
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and message in lines[0], result.output


def test_every_method_s_checkpoint_and_model_tell_a_folder_holds_a_run() -> None:
    for kind in METHOD_MODULES:
        chosen = method(kind)
        assert {chosen.checkpoint_file, chosen.model_file} <= set(RUN_FILES), kind


def _run_folder(tmp_path: Path, files: dict[str, str]) -> Path:
    """A run folder holding ``files`` (name: text), as another run or a stray file leaves it."""
    out = tmp_path / "run"
    out.mkdir()
    for name, text in files.items():
        (out / name).write_text(text)
    return out


@pytest.mark.parametrize(
    ("kind", "files", "phrase"),
    [
        ("qlearning", {"summary.json": '{"method": "ga"}', "model.json": "{}"}, "holds a ga run"),
        ("mcrl", {"summary.json": '{"method": "qlearning"}', "model.npz": ""}, "holds a qlearning run"),
        ("mcrl", {"summary.json": '{"method": "alphazero"}', "model.npz": ""}, "holds an alphazero run"),
        ("ga", {"checkpoint.npz": ""}, "holds a run (checkpoint.npz)"),
        ("ga", {"summary.json": "not json"}, "holds a run (summary.json)"),
    ],
)
def test_a_folder_holding_another_run_is_refused_without_force(
    tmp_path: Path, kind: str, files: dict[str, str], phrase: str
) -> None:
    out = _run_folder(tmp_path, files)
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    result = _train(kind, "--out", str(out), "--episodes" if kind != "ga" else "--epochs", "1")
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert result.exit_code == 2 and len(lines) == 1 and phrase in lines[0], result.output
    assert "--force" in lines[0]
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def test_resume_and_force_together_are_refused(tmp_path: Path) -> None:
    result = _train("qlearning", "--out", str(tmp_path / "q"), "--resume", "--force", "--episodes", "80")
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert result.exit_code == 2 and len(lines) == 1, result.output
    assert "--resume" in lines[0] and "--force" in lines[0] and "one of them" in lines[0]
    assert not (tmp_path / "q").exists()


def test_resuming_a_finished_run_says_there_is_nothing_more_to_train(tmp_path: Path) -> None:
    out = tmp_path / "q"
    common = ["qlearning", "--out", str(out), "--eval-games", "0", "--final-games", "2"]
    assert _train(*common, "--episodes", "100").exit_code == 0
    for asked in ("100", "50"):
        result = _train(*common, "--episodes", asked, "--resume")
        assert result.exit_code == 0, result.output
        assert f"holds 100 episodes already (--episodes {asked}): nothing more to train" in result.output
        assert json.loads((out / "summary.json").read_text())["episodes"] == 100


def test_resuming_a_run_whose_hours_are_used_says_there_is_nothing_more_to_train(tmp_path: Path) -> None:
    out = tmp_path / "az"
    hyper = "blocks=0,channels=4,workers=1,eval_positions=0,versus_games=0"
    plan = plan_command("alphazero", _options(out, hyper=hyper), ["--hours", "0.001"])
    plan.run.state["train_seconds"] = 4.5  # type: ignore[attr-defined]
    plan.run.save(out / plan.method.checkpoint_file)
    plan.run.close()
    result = _train("alphazero", "--out", str(out), "--resume", "--final-games", "0")
    assert result.exit_code == 0, result.output
    text = re.sub(r"\s+", " ", result.output)
    assert (
        "holds a run that has used its --hours 0.001 (0.00125 h trained): nothing more to train; pass a "
        "larger --hours to train on; the final games, summary and plots are made again." in text
    ), result.output
    assert json.loads((out / "summary.json").read_text())["iterations"] == 0


@pytest.mark.parametrize(
    ("kind", "option", "flag", "why"),
    [
        ("alphazero", "eval_games", "--eval-games", "--versus-games"),
        ("alphazero", "eval_every", "--eval-every", "--elo-every"),
        ("evalnet", "eval_games", "--eval-games", "held-out losses"),
    ],
)
def test_an_option_a_method_does_not_apply_is_refused(
    tmp_path: Path, kind: str, option: str, flag: str, why: str
) -> None:
    with pytest.raises(UsageProblem) as refused:
        plan_command(kind, _options(tmp_path / "run", **{option: "5"}), [])
    assert str(refused.value).startswith(f"{kind} takes no {flag}: ") and why in str(refused.value)
    result = _train(kind, "--out", str(tmp_path / "cli"), flag, "0")
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert result.exit_code == 2 and lines == [f"Error: {refused.value}"], result.output
    assert not (tmp_path / "run").exists() and not (tmp_path / "cli").exists()


@pytest.mark.parametrize(
    ("asked", "versus", "played"), [(1000, 1, 2), (1000, 0, 2), (1000, 3, 3), (1, 10, 1), (0, 10, 0)]
)
def test_alphazero_plays_final_games_up_to_its_versus_games_and_both_colours(
    asked: int, versus: int, played: int
) -> None:
    """As training.md says: --final-games, at most --versus-games, but 2 (one with each colour)
    when --versus-games is below 2."""
    from boardlab.train.alphazero import final_game_count

    assert final_game_count(asked, versus) == played


@pytest.mark.parametrize("hours", ["0", "0.0", "-1"])
def test_alphazero_refuses_hours_that_are_not_positive(tmp_path: Path, hours: str) -> None:
    result = _train("alphazero", "--out", str(tmp_path / "az"), "--hours", hours)
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert result.exit_code == 2 and len(lines) == 1, result.output
    assert re.match(r"Error: alphazero: hours must be (more than|at least) 0, got", lines[0]), lines[0]
    assert not (tmp_path / "az").exists()


@pytest.mark.parametrize("kind", ["qlearning", "ga"])
def test_the_summary_lists_the_hyper_parameters_in_declared_order_after_a_resume(
    tmp_path: Path, kind: str
) -> None:
    out = tmp_path / kind
    count, game = ("--episodes", "tictactoe") if kind == "qlearning" else ("--epochs", "nim:piles=1-2")
    common = [kind, "--out", str(out), "--game", game, "--eval-games", "0", "--final-games", "0"]
    declared = [spec.name for spec in options_of(method(kind).settings)]
    for total, resume in (("2", []), ("4", ["--resume"])):
        result = _train(*common, count, total, *resume)
        assert result.exit_code == 0, result.output
        assert list(json.loads((out / "summary.json").read_text())["hyper"]) == declared


def test_train_model_trains_a_run_in_one_call_and_refuses_bad_input_before_any_work(tmp_path: Path) -> None:
    from boardlab.train import train_model
    from boardlab.train.run import TrainingError

    model = train_model("qlearning", tmp_path / "q", game="quixo:size=3", total=300, seed=2, alpha=0.5)
    assert model == tmp_path / "q" / "model.npz"
    trained = method("qlearning").resume(model, parse_game("quixo:size=3"))
    assert (trained.progress, trained.seed, trained.params.alpha) == (300, 2, 0.5)
    assert make_agent(f"qlearning:model={model}", game=parse_game("quixo:size=3")).spec.endswith("model.npz")
    for kind, hyper, message in (
        ("nosuch", {}, "unknown kind 'nosuch'"),
        ("qlearning", {"alpha": 2.0}, "alpha must be at most 1"),
        ("qlearning", {"colour": "red"}, "no hyper-parameter 'colour'"),
    ):
        with pytest.raises(TrainingError, match=message):
            train_model(kind, tmp_path / "refused", **hyper)
    assert not (tmp_path / "refused").exists()


def test_a_refused_command_leaves_no_empty_out_folder(tmp_path: Path) -> None:
    out = tmp_path / "new" / "q"
    result = _train("qlearning", "--out", str(out), "--episodes", "10", "--shaping", "zz")
    assert result.exit_code == 2 and "shaping" in result.output
    assert list(tmp_path.iterdir()) == []


NEAT_RECORD = {"generation": 0, "best": 0.5, "mean": 0.2, "species": {"1": 8}, "nodes": 2, "connections": 3}


@pytest.mark.parametrize(
    ("kind", "field", "bad"),
    [
        ("ga", "fitness", []),  # the plots take its max
        ("ga", "epoch", "3"),
        ("ga", "genes", {"mean": [0.1]}),
        ("ga", "fitness", [10**30] * 40),  # numpy would hold it as an object, which the plots refuse
        ("es", "weights", [0.5, "x"]),
        ("es", "best_child", "x"),
        ("neat", "species", {"x": 1}),  # the species plot sorts its ids as numbers
        ("neat", "best", None),
    ],
)
def test_a_checkpoint_whose_history_is_damaged_is_refused_when_resumed(
    tmp_path: Path, kind: str, field: str, bad: Any
) -> None:
    """The per-epoch history is read by the plots at the end of the training: a damaged record is
    refused by --resume, not met as a crash after the run has trained."""
    from boardlab.models.table import ModelFileError
    from boardlab.train.run import resume_run

    chosen = method(kind)
    games = chosen.games(chosen.default_game)
    tiny = {"es": {"games": 2, "workers": 1}}.get(kind, {})
    run = chosen.start(games, chosen.settings(**tiny), 0)
    path = tmp_path / chosen.checkpoint_file
    try:
        run.save(path)
    finally:
        run.close()
    data = json.loads(path.read_text())
    if kind == "neat":
        data["history"] = [{**NEAT_RECORD, "pool": 0}]
    data["history"][0][field] = bad
    path.write_text(json.dumps(data))
    with pytest.raises(ModelFileError, match=f"history record 0.*{field}|{field}.*history"):
        resume_run(chosen, path, games).close()


@pytest.mark.parametrize(
    ("field", "bad"),
    [
        ("episode", "x"),
        ("opponent", "DEL"),
        ("wins", None),
        ("games", "10"),
        ("draws", -1),
        ("losses", "DEL"),
    ],
)
def test_a_checkpoint_whose_curve_records_are_damaged_is_refused_when_resumed(
    tmp_path: Path, field: str, bad: Any
) -> None:
    """The shared plots read each curve record's episode, opponent and counts: a damaged one is
    refused by --resume, not met as a crash after the run has trained."""
    from boardlab.models.table import ModelFileError
    from boardlab.train.run import resume_run

    chosen = method("ga")
    games = chosen.games("nim")
    run = chosen.start(games, chosen.settings(), 0)
    run.curve.extend(run.evaluate(["random"], 2))
    path = run.save(tmp_path / chosen.checkpoint_file)
    data = json.loads(path.read_text())
    record = next(r for r in data["curve"] if "wins" in r)
    if bad == "DEL":
        del record[field]
    else:
        record[field] = bad
    path.write_text(json.dumps(data))
    with pytest.raises(ModelFileError, match="learning-curve record"):
        resume_run(chosen, path, games).close()


def _curve_point(episode: int, opponent: str, wins: int) -> dict[str, Any]:
    return {
        "episode": episode,
        "opponent": opponent,
        "games": 100,
        "wins": wins,
        "draws": 0,
        "losses": 100 - wins,
    }


def test_the_learning_curve_legends_hide_no_point_and_the_mistakes_have_headroom() -> None:
    from boardlab.train.plots import learning_curve_figure

    curve = [_curve_point(e, o, w) for e in (0, 100, 200) for o, w in (("random", 40), ("perfect", 0))]
    curve += [{"episode": e, "mistakes": m} for e, m in ((0, 200), (100, 190), (200, 180))]
    figure = learning_curve_figure(curve, "test")
    renderer = figure.canvas.get_renderer()  # type: ignore[attr-defined]
    figure.draw(renderer)
    *outcome_axes, mistakes = figure.axes
    for ax in outcome_axes:
        legend = ax.get_legend()
        assert legend is not None
        assert not legend.get_window_extent(renderer).overlaps(ax.get_window_extent(renderer))
    assert mistakes.get_ylim()[1] >= 1.5 * 200  # the highest point is not cut by the frame
    ticks = [t for t in mistakes.xaxis.get_majorticklocs() if 0 <= t <= 200]
    assert all(float(t).is_integer() for t in ticks)


def test_ga_epochs_are_whole_numbers_on_the_axis() -> None:
    from boardlab.train.plots import wins_figure

    history = [{"epoch": e, "fitness": [1, 2, 3], "games": 4} for e in range(4)]
    figure = wins_figure({"run": history}, "test")
    figure.draw(figure.canvas.get_renderer())  # type: ignore[attr-defined]
    (ax,) = figure.axes
    ticks = [t for t in ax.xaxis.get_majorticklocs() if 0 <= t <= 3]
    assert ticks and all(float(t).is_integer() for t in ticks)


def test_the_es_fitness_legend_hides_no_line_and_epochs_are_whole() -> None:
    from boardlab.train.plots import es_fitness_figure

    history = [{"epoch": 0, "parent_fitness": 0.9, "best_child": None, "games": 10}]
    history += [
        {
            "epoch": e,
            "parent_fitness": f,
            "best_child": 1.0,
            "mean_child": 0.85,
            "sigma": 0.5,
            "accepted": e == 1,
        }
        for e, f in ((1, 1.0), (2, 1.0), (3, 0.8))
    ]
    for record in history:
        record["games"] = 10
    figure = es_fitness_figure(history, "test")
    renderer = figure.canvas.get_renderer()  # type: ignore[attr-defined]
    figure.draw(renderer)
    ax = figure.axes[0]
    legends = [*figure.legends, *([ax.get_legend()] if ax.get_legend() else [])]
    assert len(legends) == 1
    labels = [t.get_text() for t in legends[0].get_texts()]
    assert labels[:2] == ["parent (scored again on each epoch's fresh games)", "best child"]
    assert "often lower on fresh games" in labels[-1]  # why the parent drops below its replacement
    assert not legends[0].get_window_extent(renderer).overlaps(ax.get_window_extent(renderer))
    box = legends[0].get_window_extent(renderer)
    assert box.x0 >= 0 and box.x1 <= figure.bbox.width
    ticks = [t for t in ax.xaxis.get_majorticklocs() if 0 <= t <= 3]
    assert ticks and all(float(t).is_integer() for t in ticks)


def _neat_history() -> list[dict[str, Any]]:
    return [
        {"generation": g, "best": b, "mean": m, "connections": c, "species": {"1": 8}}
        for g, b, m, c in ((0, 0.74, 0.59, 18), (1, 0.98, 0.83, 17), (2, 0.05, 0.02, 17))
    ]


def _legends_clear_of_axes(figure: Any) -> None:
    renderer = figure.canvas.get_renderer()
    figure.draw(renderer)
    ax = figure.axes[0]
    legends = [*figure.legends, *([ax.get_legend()] if ax.get_legend() else [])]
    assert legends
    for legend in legends:
        assert not legend.get_window_extent(renderer).overlaps(ax.get_window_extent(renderer))


def test_the_neat_plots_keep_their_legends_off_the_data_and_count_in_whole_numbers() -> None:
    from boardlab.train.plots import neat_fitness_figure, species_figure

    fitness, species = neat_fitness_figure(_neat_history(), "test"), species_figure(_neat_history(), "test")
    for figure in (fitness, species):
        _legends_clear_of_axes(figure)
        ticks = [t for t in figure.axes[0].xaxis.get_majorticklocs() if 1 <= t <= 3]
        assert ticks and all(float(t).is_integer() for t in ticks)
    connections = [t for t in fitness.axes[1].yaxis.get_majorticklocs() if 17 <= t <= 18]
    assert all(float(t).is_integer() for t in connections)


def test_the_final_table_puts_opponents_left_and_counts_right() -> None:
    from rich.console import Console

    from boardlab.ui.train import final_table

    final = {"random": {"games": 1000, "wins": 462, "draws": 133, "losses": 405}}
    final["alphabeta:depth=2"] = {"games": 1000, "wins": 0, "draws": 215, "losses": 785}
    console = Console(record=True, width=80)
    console.print(final_table("test", final))
    rows = [line for line in console.export_text().splitlines() if "random" in line]
    assert rows and rows[0].startswith("│ random ")  # not "│            random │"
    assert "1,000" in rows[0] and rows[0].rstrip().endswith("405 │")


# --- evaluation games ----------------------------------------------------------------------------


def test_tally_counts_the_learners_wins_draws_and_losses() -> None:
    from boardlab.train.run import GameResult, tally

    results = [
        GameResult("x", learner, winner, 5)
        for learner, winner in [(0, 0), (1, 1), (0, None), (0, 1), (1, 0), (1, 0)]
    ]
    assert tally(results) == {"wins": 2, "draws": 1, "losses": 3, "games": 6}


class FirstMove:
    """A policy that takes the first legal move."""

    def __init__(self, game: Any) -> None:
        self.game = game

    def choose_action(self, a: int, b: int, rng: Any) -> int:
        kernel = self.game.kernel
        moves = np.empty(kernel.num_actions, dtype=np.int64)
        kernel.gen_moves(kernel.ctx, np.int64(a), np.int64(b), moves)
        return int(moves[0])


def test_evaluation_games_alternate_the_learners_seat() -> None:
    from boardlab.games import parse_game
    from boardlab.train.run import play_games

    game = parse_game("nim:piles=4,k=1,misere=false")  # one object a move: the second player wins
    results = play_games(FirstMove(game), "random", 4, seed=1)
    assert [(r.learner, r.winner, r.plies) for r in results] == [(0, 1, 4), (1, 1, 4)] * 2
    assert [r.score for r in results] == [-1, 1, -1, 1]


def test_every_step_is_checkpointed_when_the_run_saves_after_each(tmp_path: Path) -> None:
    path = tmp_path / "checkpoint.json"
    run, seen = Counter(2), []
    assert train(
        run, 7, checkpoint=path, on_step=lambda r: seen.append(json.loads(path.read_text())["units"])
    )
    assert seen == [0, 2, 4, 6, 7, 7]


def test_a_negative_seed_and_a_list_of_the_wrong_length_are_refused() -> None:
    from boardlab.models.table import ModelFileError
    from boardlab.train.run import check_history, check_state

    with pytest.raises(ModelFileError, match="seed"):
        check_state({"seed": -1}, "x", {"seed": "int"})
    history = [{"epoch": 1, "means": [1.0, 2.0, 3.0]}]
    with pytest.raises(ModelFileError, match="means"):
        check_history(history, "x", {"epoch": "int", "means": "numbers"}, sizes={"means": 2})


class Unsaveable(Counter):
    def save(self, path: Path) -> Path:
        raise OSError(28, "No space left on device")


@pytest.mark.parametrize(("units", "kept"), [(0, None), (4, 4)])
def test_a_failed_checkpoint_names_the_progress_the_last_one_holds(
    tmp_path: Path, units: int, kept: int | None
) -> None:
    from boardlab.train.run import CheckpointWriteError

    run = Unsaveable(2, {"units": units, "squares": 0, "curve": [{"episode": units}]})
    with pytest.raises(CheckpointWriteError) as error:
        train(run, 8, checkpoint=tmp_path / "checkpoint.json")
    assert error.value.kept == kept  # a resumed run starts from the checkpoint it was read from


class _Counted(RunDefaults):
    progress = 3


class _Clocked(RunDefaults):
    progress = 3

    def clock_share(self) -> float:
        return 0.6


def test_the_bar_fills_with_the_count_or_with_the_clock_of_a_run_bound_by_time() -> None:
    assert _bar_fields(_Counted(), 10) == {"completed": 3, "count": "3/10"}  # type: ignore[arg-type]
    assert _bar_fields(_Counted(), 2) == {"completed": 2, "count": "3/2"}  # type: ignore[arg-type]  # resumed past
    # AlphaZero's --epochs default is a cap far away: its hours decide, and only its count is shown
    assert _bar_fields(_Clocked(), 1_000_000) == {"completed": 600_000.0, "count": "3"}  # type: ignore[arg-type]
    assert _bar_fields(_Clocked(), 4)["completed"] == 3  # type: ignore[arg-type]  # whichever is further


# --- what the plots draw: the data asked for ------------------------------------------------------


def _captured(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The figures the plot functions save, in order (nothing is written)."""
    from boardlab.train import plots

    figures: list[Any] = []
    monkeypatch.setattr(plots, "_save", lambda figure, path: figures.append(figure) or path)
    return figures


def _lines(ax: Any) -> dict[str, tuple[list[float], list[float]]]:
    return {line.get_label(): (list(line.get_xdata()), list(line.get_ydata())) for line in ax.get_lines()}


def _bars(ax: Any) -> dict[str, list[float]]:
    """Each labelled row of a stacked bar chart: its wins, draws and losses."""
    ticks = zip(ax.get_yticks(), ax.get_yticklabels(), strict=True)
    names = {round(tick): label.get_text() for tick, label in ticks}
    rows: dict[str, dict[str, float]] = {}
    for container in ax.containers:
        for bar in container:
            rows.setdefault(names[round(bar.get_y() + bar.get_height() / 2)], {})[container.get_label()] = (
                bar.get_width()
            )
    return {name: [row["wins"], row["draws"], row["losses"]] for name, row in rows.items()}


def _results() -> list[Any]:
    from boardlab.train.run import GameResult

    games = [("random", 0, 0, 5), ("random", 0, 1, 7), ("random", 1, None, 9), ("random", 1, 1, 6)]
    games += [("random", 1, 1, 6), ("greedy", 1, 0, 5), ("greedy", 0, 0, 3), ("greedy", 0, None, 9)]
    return [GameResult(*game) for game in games]


def _tally(results: list[Any], opponent: str, learner: int | None = None) -> list[float]:
    scores = [r.score for r in results if r.opponent == opponent and learner in (None, r.learner)]
    return [float(scores.count(s)) for s in (1, 0, -1)]


def test_the_outcome_bars_count_each_opponents_results(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from boardlab.train.plots import plot_outcomes, plot_outcomes_by_starter

    figures = _captured(monkeypatch)
    results = _results()
    plot_outcomes(results, tmp_path / "o.png", "test")
    plot_outcomes_by_starter(results, tmp_path / "s.png", "test")
    total, by_starter = (_bars(f.axes[0]) for f in figures)
    assert total == {f"vs {o}": _tally(results, o) for o in ("random", "greedy")}
    expected = {}
    for o in ("random", "greedy"):
        expected[f"vs {o}, learner first"] = _tally(results, o, 0)
        expected[f"vs {o}, {o} first"] = _tally(results, o, 1)
    assert by_starter == expected


def test_the_end_turns_count_wins_and_draws_at_each_ply(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from boardlab.train.plots import plot_end_turns

    figures = _captured(monkeypatch)
    results = _results()
    plot_end_turns(results, tmp_path / "e.png", "test")
    for ax, opponent in zip(figures[0].axes, ("random", "greedy"), strict=True):
        assert f"against {opponent}" in ax.get_title()
        drawn = {
            container.get_label(): {
                round(bar.get_x() + bar.get_width() / 2): bar.get_height() for bar in container
            }
            for container in ax.containers
        }
        games = [r for r in results if r.opponent == opponent]
        for label, score in (("wins", 1), ("draws", 0)):
            counted = {ply: drawn[label].get(ply, 0) for ply in range(1, 10)}
            assert counted == {p: sum(r.score == score and r.plies == p for r in games) for p in range(1, 10)}


def test_the_learning_curve_draws_each_opponents_shares_in_episode_order() -> None:
    from boardlab.train.plots import learning_curve_figure

    curve = [
        {"episode": 20, "opponent": "random", "games": 10, "wins": 6, "draws": 1, "losses": 3},
        {"episode": 10, "opponent": "greedy", "games": 4, "wins": 1, "draws": 0, "losses": 3},
        {"episode": 10, "opponent": "random", "games": 10, "wins": 5, "draws": 3, "losses": 2},
        {"episode": 20, "mistakes": 4},
        {"episode": 10, "mistakes": 9},
    ]
    figure = learning_curve_figure(curve, "test")
    random_ax, greedy_ax, mistakes_ax = figure.axes
    assert _lines(random_ax) == {
        "wins": ([10, 20], [0.5, 0.6]),
        "draws": ([10, 20], [0.3, 0.1]),
        "losses": ([10, 20], [0.2, 0.3]),
    }
    assert _lines(greedy_ax)["wins"] == ([10], [0.25]) and "greedy" in greedy_ax.get_title()
    (mistakes,) = _lines(mistakes_ax).values()
    assert mistakes == ([10, 20], [9, 4])


def test_a_curve_record_of_no_games_is_no_point_of_the_curve() -> None:
    """Older NEAT checkpoints hold a record of 0 games per opponent before the first champion."""
    from boardlab.train.plots import has_learning_curve, learning_curve_figure

    empty = {"episode": 0, "opponent": "random", "games": 0, "wins": 0, "draws": 0, "losses": 0}
    assert not has_learning_curve([empty])
    (ax,) = learning_curve_figure([empty, _curve_point(1, "random", 30)], "test").axes
    assert _lines(ax)["wins"] == ([1], [0.3])


def test_the_learning_curve_says_what_played_its_games() -> None:
    """AlphaZero's curve games are searches of eval_sims simulations, not greedy play."""
    from boardlab.train.plots import learning_curve_figure
    from boardlab.train.settings import AlphaZeroParams

    chosen = method("alphazero")
    run = chosen.start(chosen.games("tictactoe"), AlphaZeroParams(eval_sims=12), 0)
    assert run.curve_player == "search with 12 simulations"
    curve = [_curve_point(1, "random", 50), {"episode": 1, "mistakes": 3}]
    games_ax, mistakes_ax = learning_curve_figure(curve, "t", "iterations", run.curve_player).axes
    assert games_ax.get_title().startswith("search with 12 simulations against random (100 games")
    assert mistakes_ax.get_title().startswith("search with 12 simulations: moves that give away")
    assert "greedy" not in games_ax.get_title() + mistakes_ax.get_title()


def test_the_command_titles_the_learning_curve_with_the_method_s_player(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from boardlab.train import plots

    players: list[tuple[str, str]] = []
    monkeypatch.setattr(plots, "plot_learning_curve", lambda *args: players.append(args[4:]) or args[1])
    common = ["--epochs", "1", "--eval-games", "2", "--final-games", "0", "--population", "4"]
    result = _train("ga", "--game", "nim:piles=1-2", *common, "--out", str(tmp_path / "ga"))
    assert result.exit_code == 0, result.output
    assert players == [("the best genome", "")]  # one game: the title names it


def test_a_run_of_several_games_names_the_game_its_final_games_were_played_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    figures = _saved_figures(monkeypatch)
    out = tmp_path / "ga"
    common = ["--epochs", "1", "--eval-games", "2", "--final-games", "4", "--population", "4"]
    games = "nim:piles=1-2;nim:piles=1-2,misere=false"
    result = _train("ga", "--game", games, *common, "--against", "random", "--out", str(out))
    assert result.exit_code == 0, result.output
    assert "final games on nim:piles=1-2" in " ".join(result.output.split())
    assert json.loads((out / "summary.json").read_text())["played_on"] == "nim:piles=1-2"
    titles = {}
    for figure in figures:
        texts = [figure._suptitle, *(ax.title for ax in figure.axes)]
        titles[figure] = " ".join(t.get_text().replace("\n", " ") for t in texts if t is not None)
    shared = [t for t in titles.values() if "learning curve" in t or "outcomes" in t or "end turn" in t]
    assert len(shared) == 4
    assert all("on nim:piles=1-2 " in f"{t} " for t in shared), shared
    assert (
        "give away game-theoretic value (exact solver, both colours, every training game)" in shared[0]
    )  # not the title's "on nim:piles=1-2;"


def _ga_history(genes: int) -> list[dict[str, Any]]:
    rng = np.random.default_rng(genes)
    history = []
    for epoch in range(3):
        population = rng.uniform(0, 1, (4, genes)).round(4)
        history.append(
            {
                "epoch": epoch,
                "games": 10,
                "fitness": [1 + epoch, 3, 8 - epoch, 2],
                "reference": 9,
                "diversity": 0.5 - 0.1 * epoch,
                "accuracy": {"a": 0.5 + 0.2 * epoch, "b": 0.1},
                "population": population.tolist(),
                "genes": {
                    "mean": population.mean(axis=0).tolist(),
                    "min": population.min(axis=0).tolist(),
                    "max": population.max(axis=0).tolist(),
                },
            }
        )
    return history


def test_the_ga_wins_are_the_populations_the_best_genomes_and_the_optimal_players() -> None:
    from boardlab.train.plots import wins_figure

    history = _ga_history(2)
    wins, accuracy = wins_figure({"run": history}, "test").axes
    lines = _lines(wins)
    assert lines["run: population"] == ([0, 1, 2], pytest.approx([14 / 40, 14 / 40, 14 / 40]))
    assert lines["run: best genome"] == ([0, 1, 2], pytest.approx([0.8, 0.7, 0.6]))
    assert lines["run: optimal player on the same games"] == ([0, 1, 2], pytest.approx([0.9] * 3))
    assert _lines(accuracy)["run"] == ([0, 1, 2], pytest.approx([30.0, 40.0, 50.0]))


def test_the_ga_genome_plots_draw_the_genes_and_the_diversity(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from boardlab.models.nim_genome import gene_names
    from boardlab.train.plots import plot_genomes, plot_wins_vs_diversity

    figures = _captured(monkeypatch)
    target, rules = _ga_history(2), _ga_history(len(gene_names("rules")))
    plot_genomes({"run": target}, "target", tmp_path / "t.png", "test")
    plot_genomes({"run": rules}, "rules", tmp_path / "r.png", "test")
    plot_wins_vs_diversity({"run": target}, tmp_path / "w.png", "test")
    target_figure, rules_figure, versus = figures
    *gene_axes, diversity_ax = target_figure.axes
    for row, ax in enumerate(gene_axes):
        points = np.concatenate([c.get_offsets() for c in ax.collections])
        expected = [(r["epoch"], g[row]) for r in target for g in r["population"]]
        assert sorted(map(tuple, points.tolist())) == sorted(expected)
        assert _lines(ax)["mean"][1] == pytest.approx([r["genes"]["mean"][row] for r in target])
    (diversity,) = diversity_ax.get_lines()
    assert list(diversity.get_ydata()) == pytest.approx([0.5, 0.4, 0.3])
    (image,) = rules_figure.axes[0].get_images()
    assert np.allclose(image.get_array(), np.array([r["genes"]["mean"] for r in rules]).T)
    ax = versus.axes[0]
    (line,) = ax.get_lines()
    assert list(line.get_xdata()) == pytest.approx([0.5, 0.4, 0.3])
    assert list(line.get_ydata()) == pytest.approx([14 / 40] * 3)
    alphas = ax.collections[0].get_facecolors()[:, 3]
    assert list(alphas) == sorted(alphas) and alphas[0] < alphas[-1]  # darker = later


def test_the_es_plots_draw_the_fitness_the_steps_and_each_rules_weight(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from boardlab.agents import rules as rl
    from boardlab.train.plots import ES_PARENT, es_fitness_figure, write_es_plots

    weights = np.random.default_rng(0).uniform(0, 1, (4, rl.NUM_RULES)).round(4)
    history: list[dict[str, Any]] = [
        {"epoch": 0, "parent_fitness": 0.4, "fitness": 0.4, "best_child": None, "mean_child": None}
    ]
    history += [
        {"epoch": e, "parent_fitness": p, "fitness": f, "best_child": b, "mean_child": m, "accepted": e == 2}
        for e, p, f, b, m in (
            (1, 0.45, 0.45, 0.5, 0.3),
            (2, 0.42, 0.6, 0.7, 0.35),
            (3, 0.61, 0.61, 0.55, 0.5),
        )
    ]
    for record, row, sigma in zip(history, weights, (0.0, 0.5, 0.25, 0.125), strict=True):
        record.update(games=20, sigma=sigma, weights=row.tolist())
    figure = es_fitness_figure(history, "test")
    ax, sigma_ax = figure.axes
    lines = _lines(ax)
    assert lines[ES_PARENT] == ([0, 1, 2, 3], [0.4, 0.45, 0.42, 0.61])
    assert lines["best child"] == ([1, 2, 3], [0.5, 0.7, 0.55])
    assert lines["mean child"] == ([1, 2, 3], [0.3, 0.35, 0.5])
    (replaced,) = ax.collections
    assert replaced.get_offsets().tolist() == [[2, 0.7]]
    (steps,) = _lines(sigma_ax).values()
    assert steps == ([1, 2, 3], [0.5, 0.25, 0.125])
    figures = _captured(monkeypatch)
    paths = write_es_plots(tmp_path, history, "test", -4.0)
    assert [p.name for p in paths] == ["es_fitness.png", "es_weights.png"]
    linear, log = figures[1].axes
    for ax in (linear, log):
        lines = _lines(ax)
        for index, name in enumerate(rl.RULES):
            label = f"{name} (the bad rule)" if name == rl.BAD_RULE else name
            assert lines[label] == ([0, 1, 2, 3], pytest.approx(weights[:, index].tolist()))
    assert log.get_ylim()[0] <= 1e-4  # the log floor is on the axis


def test_the_neat_plots_draw_fitness_size_and_species_by_generation() -> None:
    from boardlab.train.plots import neat_fitness_figure, species_figure

    history = [
        {
            "generation": 0,
            "best": 0.7,
            "mean": 0.5,
            "connections": 18,
            "nodes": 2,
            "species": {"1": 6, "2": 2},
        },
        {
            "generation": 1,
            "best": 0.8,
            "mean": 0.6,
            "connections": 17,
            "nodes": 3,
            "species": {"2": 3, "10": 5},
        },
    ]
    fitness = neat_fitness_figure(history, "test")
    ax, size = fitness.axes
    assert _lines(ax) == {"best": ([1, 2], [0.7, 0.8]), "mean": ([1, 2], [0.5, 0.6])}
    assert _lines(size) == {"champion's connections": ([1, 2], [18, 17])}
    species = species_figure(history, "test")
    ax = species.axes[0]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["species 1", "species 2", "species 10"]
    tops = []
    for layer in ax.collections:  # each layer's upper edge: the members of it and the layers below
        vertices = np.concatenate([p.vertices for p in layer.get_paths()])
        tops.append([vertices[np.isclose(vertices[:, 0], g)][:, 1].max() for g in (1, 2)])
    assert tops == [[6, 0], [8, 3], [8, 8]]


LONG_TITLE = (
    "Nim GA (target genome, roulette selection) on nim:piles=1-3-5-7-9; nim:piles=1-3-5-7-9,misere=false; "
    "nim:piles=2-4-6,k=3"
)


def _saved_figures(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The figures written as PNG files, as they are when written."""
    from boardlab.core import files

    figures: list[Any] = []
    drawn = files.figure_bytes
    monkeypatch.setattr(
        files, "figure_bytes", lambda figure, **o: figures.append(figure) or drawn(figure, **o)
    )
    return figures


def _titles_inside(figure: Any) -> list[str]:
    """The titles of ``figure`` (its suptitle, its axes' titles), each checked to lie within the
    figure's width."""
    renderer = figure.canvas.get_renderer()
    figure.draw(renderer)
    titles = []
    for text in [figure._suptitle, *(ax.title for ax in figure.axes)]:
        if text is not None and text.get_text():
            box = text.get_window_extent(renderer)
            assert box.x0 >= 0 and box.x1 <= figure.bbox.width, text.get_text()
            titles.append(text.get_text())
    return titles


def test_every_training_plot_wraps_a_long_title_to_fit_the_figure(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from boardlab.agents import rules as rl
    from boardlab.train.alphazero import plot_training
    from boardlab.train.evalnet import plot_losses
    from boardlab.train.plots import write_es_plots, write_ga_plots, write_neat_plots, write_plots

    figures = _saved_figures(monkeypatch)
    write_plots(tmp_path, [_curve_point(0, "random", 3)], _results(), LONG_TITLE, "epochs", "the best genome")
    write_ga_plots(tmp_path, {"roulette selection": _ga_history(2)}, "target", LONG_TITLE)
    es = [{"epoch": 0, "parent_fitness": 0.4, "best_child": None, "mean_child": None, "accepted": False}]
    es += [{"epoch": 1, "parent_fitness": 0.5, "best_child": 0.6, "mean_child": 0.4, "accepted": True}]
    for record in es:
        record.update(games=20, sigma=0.5, fitness=0.5, weights=[0.5] * rl.NUM_RULES)
    write_es_plots(tmp_path, es, LONG_TITLE, -4.0)
    write_neat_plots(tmp_path, _neat_history(), LONG_TITLE)
    losses = {
        "held_out_log_loss": 0.6,
        "held_out_target_loss": 0.6,
        "train_loss": 0.5,
        "baseline_log_loss": 0.7,
    }
    plot_losses([{"epoch": 1, **losses}], tmp_path / "losses.png", LONG_TITLE, "tuned")
    history = [{"hours": h, "policy_loss": 2.0 - h, "value_loss": 0.5} for h in (0.05, 0.1)]
    plot_training({"history": history, "curve": []}, tmp_path, LONG_TITLE)
    assert len(figures) == 4 + 3 + 2 + 2 + 1 + 1
    for figure in figures:
        titles = _titles_inside(figure)
        assert any(t.replace("\n", " ").startswith(LONG_TITLE) for t in titles)


def test_every_shared_plot_is_written_for_a_single_result(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from boardlab.train.plots import write_plots
    from boardlab.train.run import GameResult

    _captured(monkeypatch)
    paths = write_plots(tmp_path, [_curve_point(0, "random", 3)], [GameResult("random", 0, 0, 5)], "test")
    assert [p.name for p in paths] == [
        "learning_curve.png",
        "outcomes.png",
        "outcomes_by_starter.png",
        "end_turns.png",
    ]


def test_no_learning_curve_is_drawn_without_games_or_mistakes_in_the_curve(tmp_path: Path) -> None:
    """evalnet's curve holds losses, no games: an empty learning_curve.png (axes and nothing
    else) is neither written nor listed among the plots."""
    from boardlab.train.plots import write_plots

    losses = [{"epoch": 1, "episode": 1, "opponent": "held-out", "loss": 0.6}]
    assert write_plots(tmp_path, losses, [], "evalnet on quixo") == []
    assert write_plots(tmp_path, [], [], "evalnet on quixo") == []
    assert list(tmp_path.iterdir()) == []
    mistakes = [{"episode": 0, "opponent": "perfect", "mistakes": 4}]
    assert [p.name for p in write_plots(tmp_path, mistakes, [], "q")] == ["learning_curve.png"]


# --- the command's checks, on plan_command directly ----------------------------------------------


def _options(out: Path, **given: Any) -> dict[str, Any]:
    """``boardlab train``'s own options as the command hands them over, defaults but ``given``."""
    options = {"out": out, "game": None, "episodes": None, "epochs": None, "resume": False, "force": False}
    options |= {"seed": None, "eval_every": None, "eval_games": None, "final_games": None}
    return options | {"against": "", "hyper": None} | given


def test_a_plan_with_the_defaults(tmp_path: Path) -> None:
    plan = plan_command(" QLearning ", _options(tmp_path / "q"), [])
    assert (plan.kind, plan.out, plan.total, plan.eval_every) == ("qlearning", tmp_path / "q", 30_000, 1_500)
    assert (plan.eval_games, plan.final_games, plan.run.seed) == (100, 1000, 0)
    assert plan.opponents == ["random", "perfect"]  # the method's own on tictactoe
    console = Console(record=True, width=120)
    console.print(_settings_summary(plan))
    assert re.search(r"│ seed +│ +0 │", console.export_text())
    short = plan_command("qlearning", _options(tmp_path / "s", episodes="10"), [])
    assert short.eval_every == 1  # 1/20 of the run, at least 1


def test_whole_number_options_are_read_within_their_range(tmp_path: Path) -> None:
    given = {"episodes": " 1_000 ", "eval_every": "7", "eval_games": "0", "final_games": "0"}
    plan = plan_command("qlearning", _options(tmp_path / "q", seed=str(2**63 - 1), **given), [])
    assert (plan.total, plan.eval_every, plan.eval_games, plan.final_games) == (1000, 7, 0, 0)
    assert plan.run.seed == 2**63 - 1
    with pytest.raises(
        UsageProblem, match=r"^--seed must be a whole number in 0\.\.9,223,372,036,854,775,807"
    ):
        plan_command("qlearning", _options(tmp_path / "q", seed=str(2**63)), [])
    for flag in ("eval_games", "final_games"):
        with pytest.raises(UsageProblem, match=r"must be a whole number in 0\.\.1,000,000, got '1000001'"):
            plan_command("qlearning", _options(tmp_path / "q", **{flag: "1000001"}), [])


def test_method_flags_with_dashes_and_against_problems_named_as_such(tmp_path: Path) -> None:
    plan = plan_command("qlearning", _options(tmp_path / "q"), ["--shaping-weight", "0.5", "--q-init=0.25"])
    assert (plan.run.params.shaping_weight, plan.run.params.q_init) == (0.5, 0.25)
    with pytest.raises(UsageProblem, match=r"^--against: "):
        plan_command("qlearning", _options(tmp_path / "a", against="random; nosuch"), [])
    assert plan_command("qlearning", _options(tmp_path / "b", against="greedy; random;"), []).opponents == [
        "greedy",
        "random",
    ]


def test_an_opponent_that_can_never_play_a_whole_game_is_refused_for_that(tmp_path: Path) -> None:
    """perfect plays only 5x5 Quixo's endgames, built or not: the refusal says so (and suggests
    hybrid), rather than asking for tables that would not make it play a whole game."""
    with pytest.raises(UsageProblem) as refused:
        plan_command("qlearning", _options(tmp_path / "q", game="quixo", against="perfect"), [])
    message = str(refused.value)
    assert message.startswith("--against: perfect plays only the positions") and "hybrid" in message
    assert "boardlab solve" not in message


def test_a_folder_holding_this_kind_of_run_asks_for_resume_or_force(tmp_path: Path) -> None:
    out = tmp_path / "q"
    plan_command("qlearning", _options(out), []).run.save(out / "model.npz")
    (out / "summary.json").write_text('{"method": "qlearning"}')
    with pytest.raises(UsageProblem, match=r"model\.npz exists; pass --resume to continue it or --force"):
        plan_command("qlearning", _options(out), [])
    assert plan_command("qlearning", _options(out, force=True, seed="4"), []).run.seed == 4


def test_a_resumed_run_keeps_its_settings_and_seed_unless_given_again(tmp_path: Path) -> None:
    out = tmp_path / "q"
    plan_command("qlearning", _options(out, seed="3"), ["--alpha", "0.3"]).run.save(out / "model.npz")
    resumed = plan_command("qlearning", _options(out, resume=True), []).run
    assert (resumed.params.alpha, resumed.seed) == (0.3, 3)
    again = plan_command("qlearning", _options(out, resume=True, seed="3"), ["--alpha", "0.3"]).run
    assert (again.params.alpha, again.seed) == (0.3, 3)
    with pytest.raises(UsageProblem, match=r"^--seed 4 differs from the run being resumed \(seed 3\)"):
        plan_command("qlearning", _options(out, resume=True, seed="4"), [])


@pytest.mark.parametrize(
    ("kind", "game", "other", "hyper"),
    [
        ("qlearning", "quixo:size=3", "tictactoe", None),
        ("alphazero", "connect4", "tictactoe", "blocks=0,channels=4,workers=1"),
        ("ga", "nim:piles=1-2;nim:piles=1-2,misere=false", "nim", "population=4"),
    ],
)
def test_a_resumed_run_takes_its_game_from_the_run_unless_given_another(
    tmp_path: Path, kind: str, game: str, other: str, hyper: str | None
) -> None:
    out = tmp_path / kind
    started = plan_command(kind, _options(out, game=game, hyper=hyper), [])
    try:
        started.run.save(out / started.method.checkpoint_file)
    finally:
        started.run.close()
    for named in (None, game):
        resumed = plan_command(kind, _options(out, resume=True, game=named), [])
        resumed.run.close()
        games = resumed.run.games if kind == "ga" else (resumed.run.game,)
        assert ";".join(g.spec for g in games) == game
    with pytest.raises(UsageProblem) as refused:
        plan_command(kind, _options(out, resume=True, game=other), [])
    assert str(refused.value) == (
        f"--game {other} differs from the run being resumed ({game}); a resumed run keeps its game: "
        "leave --game out"
    )


@pytest.mark.parametrize(
    ("kind", "files", "phrase"),
    [
        (
            "alphazero",
            {"summary.json": '{"method": "evalnet"}', "checkpoint.npz": ""},
            "holds an evalnet run, not an alphazero run (no checkpoint.safetensors); resume it with "
            "boardlab train evalnet",
        ),
        (
            "qlearning",
            {"summary.json": '{"method": "ga"}', "model.json": "{}"},
            "holds a ga run, not a qlearning run (no model.npz); resume it with boardlab train ga",
        ),
        (
            "neat",
            {"model.json": "{}"},
            "holds a run (model.json) but no checkpoint.json, which a neat run saves",
        ),
    ],
)
def test_resuming_a_folder_of_another_kind_of_run_names_that_kind(
    tmp_path: Path, kind: str, files: dict[str, str], phrase: str
) -> None:
    out = _run_folder(tmp_path, files)
    with pytest.raises(UsageProblem) as refused:
        plan_command(kind, _options(out, resume=True), [])
    assert str(refused.value).startswith("nothing to resume: --out ") and phrase in str(refused.value)


EVOLVED = {
    "ga": ("nim:piles=1-2", "population=4,games=1"),
    "es": ("quixo:size=3", "offspring=1,games=2,workers=1"),
    "neat": ("quixo", "population=4,games=1,workers=1"),
}


def _evolved_run(out: Path, kind: str, generations: int, summary: bool) -> None:
    """A ``kind`` run saved in ``out`` after ``generations`` steps, with its summary or not (a
    run stopped before its end has none)."""
    game, hyper = EVOLVED[kind]
    run = plan_command(kind, _options(out, game=game, hyper=hyper), []).run
    try:
        for _ in range(generations):
            run.step(1)
        run.save(out / method(kind).checkpoint_file)
    finally:
        run.close()
    if summary:
        (out / "summary.json").write_text(json.dumps({"method": kind}))


@pytest.mark.timeout(300)
@pytest.mark.parametrize("summary", [True, False])
@pytest.mark.parametrize(
    ("kind", "other"),
    [("ga", "es"), ("ga", "neat"), ("es", "neat"), ("es", "ga"), ("neat", "ga"), ("neat", "es")],
)
def test_resuming_in_the_folder_of_another_evolved_run_names_that_kind(
    tmp_path: Path, kind: str, other: str, summary: bool
) -> None:
    """ga, es and neat each write a model.json: the file another method's run left is named for
    what it is, whether or not the run wrote its summary."""
    out = tmp_path / other
    _evolved_run(out, other, 1, summary)
    with pytest.raises(UsageProblem) as refused:
        plan_command(kind, _options(out, resume=True), [])
    message = str(refused.value)
    assert message.startswith(f"nothing to resume: --out {out} holds {with_article(other)} run, not ")
    assert message.endswith(f"; resume it with boardlab train {other}, or name another folder")
    started = _train(kind, "--out", str(out), "--epochs", "1")
    assert started.exit_code == 2 and f"holds {with_article(other)} run" in started.output
    assert "--force" in started.output


def test_the_formats_that_tell_a_run_s_kind_are_those_its_files_declare() -> None:
    from boardlab.agents import neat_player, rules
    from boardlab.models import nim_genome
    from boardlab.train import neat_quixo
    from boardlab.ui.train import RUN_FILE_FORMATS

    declared = {nim_genome.FORMAT: "ga", rules.FORMAT: "es", neat_player.FORMAT: "neat"}
    assert {**declared, neat_quixo.CHECKPOINT_FORMAT: "neat"} == RUN_FILE_FORMATS


def test_a_resumed_run_takes_the_settings_that_do_not_change_its_result(tmp_path: Path) -> None:
    out = tmp_path / "es"
    start = plan_command("es", _options(out, hyper="offspring=2,games=2,workers=1"), []).run
    start.save(out / "model.json")
    start.close()
    resumed = plan_command("es", _options(out, resume=True), ["--workers", "2"]).run
    resumed.close()
    assert (resumed.params.workers, resumed.params.offspring, resumed.params.games) == (2, 2, 2)
    with pytest.raises(UsageProblem, match=r"^--offspring 3 differs from the run being resumed"):
        plan_command("es", _options(out, resume=True), ["--offspring", "3"])


@pytest.mark.parametrize(
    ("kept", "after"), [(None, "nothing of this run was saved"), (1200, "1,200 episodes")]
)
def test_a_checkpoint_that_cannot_be_written_is_one_line_and_exit_1(
    capsys: pytest.CaptureFixture[str], kept: int | None, after: str
) -> None:
    error = CheckpointWriteError(Path("run/model.npz"), OSError(28, "No space left on device"), kept)
    with pytest.raises(typer.Exit) as exit_:
        _write_failure(error, "episodes")
    assert exit_.value.exit_code == 1
    line = capsys.readouterr().err
    assert line.startswith("Error: cannot write run/model.npz: No space left on device; ") and after in line
    assert len(line.strip().splitlines()) == 1


@dataclass
class _ToyParams:
    chunk: int = 1


class _InterruptedWhilePreparing(Counter):
    """A run whose preparation meets a KeyboardInterrupt raised by code, not by a signal."""

    title = "toy"

    def __init__(self) -> None:
        super().__init__(1)
        self.params = _ToyParams()

    def prepare(self) -> None:
        raise KeyboardInterrupt


def test_an_interrupt_not_from_a_signal_still_stops_the_command_with_exit_130(tmp_path: Path) -> None:
    plan = Plan("qlearning", method("qlearning"), _InterruptedWhilePreparing(), tmp_path, 10, 1, 0, 0, [])
    console = Console(record=True, width=200)
    with pytest.raises(typer.Exit) as exit_:
        run_plan(console, plan)
    assert exit_.value.exit_code == 130
    assert "Interrupted before the first checkpoint; nothing to resume." in console.export_text()


def test_a_run_its_method_finds_unfit_for_the_folder_is_refused_before_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from boardlab.train.run import TrainingError
    from boardlab.ui import train as train_cli

    def unfit(run: object, out: Path) -> None:
        raise TrainingError(f"{out} cannot hold this run's data")

    chosen = dataclasses.replace(method("qlearning"), check_run=unfit)
    monkeypatch.setattr(train_cli, "method", lambda kind: chosen)
    with pytest.raises(UsageProblem, match="cannot hold this run's data"):
        plan_command("qlearning", _options(tmp_path / "q"), [])


def test_the_agents_know_the_evaluations_of_evalnet_s_default_players() -> None:
    """alpha-beta's refusal names `train evalnet` with plain players for a game that lacks the
    evaluations of the trainer's default players: the two lists must agree."""
    from boardlab.agents.alphabeta import EVALNET_DATA_EVALUATIONS
    from boardlab.train.evalnet import DEFAULT_AGAINST
    from boardlab.train.settings import EvalNetSettings

    specs = [*EvalNetSettings().player_specs, *DEFAULT_AGAINST]
    named = {match for spec in specs for match in re.findall(r"eval=(\w+)", spec)}
    assert named == EVALNET_DATA_EVALUATIONS
