"""The top-level CLI: listing agents, perft, bench, and clean failures on bad input."""

from __future__ import annotations

import inspect
import json
import os
import re
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from boardlab.agents import list_agents
from boardlab.core.spec import options_of
from boardlab.train import METHOD_MODULES
from boardlab.ui.cli import app

runner = CliRunner()
WIDE = {"COLUMNS": "200"}  # rich tables one row per line


def test_agents_lists_every_agent_with_its_option_names():
    result = runner.invoke(app, ["agents"], env=WIDE)
    assert result.exit_code == 0
    rows = {line.split()[1]: line for line in result.output.splitlines() if line.startswith("│ ")}
    for cls in list_agents():
        assert all(spec.name in rows[cls.name] for spec in options_of(cls.Settings)), rows[cls.name]
    assert "log2 of the transposition table size" not in result.output  # the help is per agent
    assert "boardlab agents NAME" in result.output


def test_agents_with_names_shows_each_option_its_default_and_what_it_accepts():
    result = runner.invoke(app, ["agents", "alphabeta", "mcts:iters=50"], env=WIDE)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    tt = next(line for line in lines if line.startswith("│ tt "))
    assert "20" in tt and "log2 of the transposition table size (10..30)" in tt
    assert any(line.startswith("│ iters ") for line in lines)  # the second agent, from its spec
    rollouts = next(line for line in lines if line.startswith("│ rollouts "))
    assert "random rollouts per new leaf (their mean is backed up) (1..10000)" in rollouts


def test_agents_and_games_refuse_an_unknown_name_or_a_bad_spec_before_printing():
    for args, message in (
        (["agents", "alphabeta", "nosuch"], "unknown agent 'nosuch'; known agents: alphabeta,"),
        (["agents", "alphabeta:depth=x"], "alphabeta: depth must be a whole number"),
        (["games", "go"], "unknown game 'go'; known games: connect4,"),
        (["games", "connect4:width=99"], "connect4: width must be at most"),
    ):
        result = runner.invoke(app, args)
        assert result.exit_code == 2 and result.output.startswith(f"Error: {message}"), result.output
        assert result.output.count("\n") == 1


def test_games_lists_every_game_and_with_a_name_its_options_and_evaluations():
    overview = runner.invoke(app, ["games"], env=WIDE)
    assert overview.exit_code == 0
    assert all(f"│ {name} " in overview.output for name in ("connect4", "nim", "quixo", "tictactoe"))
    assert "board side" not in overview.output  # the help is per game
    detail = runner.invoke(app, ["games", "quixo:size=4"], env=WIDE)
    assert detail.exit_code == 0 and "quixo: Quixo 4x4" in detail.output
    size = next(line for line in detail.output.splitlines() if line.startswith("│ size "))
    assert "5" in size and "board side [3|4|5]" in size
    assert "evaluations (first is the default): tuned, " in detail.output


def test_an_agent_or_a_game_without_options_says_so_rather_than_print_an_empty_table():
    for args in (["agents", "greedy"], ["games", "tictactoe"]):
        result = runner.invoke(app, args, env=WIDE)
        assert result.exit_code == 0, result.output
        rows = [line for line in result.output.splitlines() if line.startswith("│ ")]
        assert len(rows) == 1 and "no options" in rows[0], result.output


def test_perft_prints_the_published_counts():
    result = runner.invoke(app, ["perft", "--depth", "3"], terminal_width=200)
    assert result.exit_code == 0
    for count in ("44", "1,836", "76,596"):
        assert count in result.output


def test_perft_from_a_position_text():
    result = runner.invoke(app, ["perft", "--depth", "1", "--position", "O...X..../ X"], terminal_width=200)
    assert result.exit_code == 0
    # 3x3 with O on a corner and X in the middle: X may not take the corner, so 20 - 2 moves
    assert "18" in result.output


def test_perft_honours_the_games_ply_cap():
    # the cap ends every game after one ply: the 20 games of one move are the leaves of depth 2
    result = runner.invoke(
        app, ["perft", "--game", "quixo:size=3,ply_cap=1", "--depth", "2"], terminal_width=200
    )
    assert result.exit_code == 0, result.output
    rows = [line.split("│")[1:3] for line in result.output.splitlines() if line.count("│") == 4]
    assert [(depth.strip(), leaves.strip()) for depth, leaves in rows] == [("1", "20"), ("2", "20")]


def test_perft_of_every_game_prints_its_published_counts():
    for game, depth, counts in (
        ("connect4", 8, ("2,401", "823,536", "5,673,234")),
        ("tictactoe", 9, ("15,120", "200,448", "127,872")),
        ("quixo:size=3", 2, ("20", "356")),
    ):
        result = runner.invoke(app, ["perft", "--game", game, "--depth", str(depth)], terminal_width=200)
        assert result.exit_code == 0, result.output
        for count in counts:
            assert count in result.output, (game, result.output)


def test_bench_of_another_game():
    result = runner.invoke(app, ["bench", "--quick", "--game", "connect4"], terminal_width=200)
    assert result.exit_code == 0, result.output
    assert (
        "Connect Four" in result.output
        and "2,401 leaves" in result.output
        and "eval threats" in result.output
    )


def test_bad_input_exits_2_with_one_line_and_no_traceback():
    for args in (
        ["perft", "--position", "XXXX"],
        ["perft", "--size", "7"],
        ["perft", "--game", "chess"],
        ["perft", "--game", "connect4", "--size", "4"],
        ["bench", "--game", "connect4", "--eval", "lines3"],
        ["match", "nosuch", "random"],
        ["tournament", "random", "alphabeta:depth=x"],
        ["play", "--agent", "nosuch"],
    ):
        result = runner.invoke(app, args, terminal_width=200)
        assert result.exit_code == 2, (args, result.output)
        assert "Traceback" not in result.output
        error_lines = [line for line in result.output.splitlines() if "Error" in line]
        assert error_lines, (args, result.output)


def test_bench_quick_reports_every_figure():
    result = runner.invoke(app, ["bench", "--quick"], terminal_width=200)
    assert result.exit_code == 0
    for figure in ("random playouts", "perft(4)", "alpha-beta depth 5", "MCTS"):
        assert figure in result.output


def test_solve_and_analyze_dispatch_to_connect4() -> None:
    runner = CliRunner()
    solved = runner.invoke(app, ["solve", "connect4", "4453355"])
    assert solved.exit_code == 0, solved.output
    assert "best moves" in solved.output
    analyzed = runner.invoke(app, ["analyze", "--game", "connect4", "4453355"])
    assert analyzed.exit_code == 0 and "best" in analyzed.output
    full = runner.invoke(app, ["solve", "connect4", "44444444"])
    assert full.exit_code == 2 and "ply 7: column 4 is full" in full.output


def test_a_float_option_that_is_not_a_number_says_so_before_its_range():
    for value in ("nan", "inf"):
        result = runner.invoke(app, ["serve", "--analysis-seconds", value, "--port", "1"])
        assert result.exit_code == 2
        assert f"--analysis-seconds must be a finite number, got {value}" in result.output, result.output
        assert "600" not in result.output
    result = runner.invoke(app, ["serve", "--analysis-seconds", "700"])
    assert result.exit_code == 2 and "600" in result.output


# loaded by the commands that compile game code, plot, train networks, serve or bridge: never by
# the CLI's start-up (numba alone costs about half a second, and brings scipy)
HEAVY_MODULES = (
    "numba",
    "scipy",
    "matplotlib",
    "torch",
    "fastapi",
    "uvicorn",
    "ray",
    "onnxruntime",
    "pyspiel",
)


def _fresh_python(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=60, env=env)


def test_the_cli_starts_without_the_heavy_modules():
    code = f"import sys, boardlab.ui.cli; print(sorted(m for m in {HEAVY_MODULES!r} if m in sys.modules))"
    result = _fresh_python("-c", code)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


# what each command line below loads, one command after another in a fresh interpreter: the
# heavy modules found in sys.modules after it ran
_LOADS = """
import contextlib, io, json, sys
from boardlab.ui.cli import app
found = {{}}
for args in {commands!r}:
    with contextlib.redirect_stdout(io.StringIO()):
        app(args, prog_name="boardlab", standalone_mode=False)
    found[" ".join(args)] = sorted(m for m in {heavy!r} if m in sys.modules)
print(json.dumps(found))
"""


def _heavy_modules_loaded_by(commands: list[list[str]]) -> dict[str, list[str]]:
    result = _fresh_python("-c", _LOADS.format(commands=commands, heavy=HEAVY_MODULES))
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.splitlines()[-1])


def test_listing_the_games_and_the_agents_compiles_nothing():
    # names, options and evaluations come from the game and agent classes; their kernels,
    # searches and models are imported by the commands that play
    commands = [["games"], ["agents"], ["games", "quixo"], ["agents", "alphabeta", "hybrid"]]
    assert _heavy_modules_loaded_by(commands) == {" ".join(args): [] for args in commands}


def test_the_help_of_every_command_loads_no_heavy_module():
    # `train KIND --help` lists the hyper-parameters of the KIND's method from its settings
    # dataclass, without the method's compiled code
    commands = [[name, "--help"] for name in typer.main.get_command(app).commands]
    commands += [["train", kind, "--help"] for kind in METHOD_MODULES]
    assert len(commands) > 15
    loaded = _heavy_modules_loaded_by(commands)
    assert loaded == {" ".join(args): [] for args in commands}


def test_python_dash_m_boardlab_is_the_boardlab_command():
    result = _fresh_python("-m", "boardlab", "games", "--bogus")
    assert result.returncode == 2
    assert result.stderr.strip() == "Error: No such option: --bogus (see: boardlab games --help)"


def test_the_command_list_shows_each_summary_as_one_flowing_paragraph():
    # a docstring's line breaks are for the source: in `boardlab --help` each command's summary
    # wraps at the terminal's width, not where the source line ended
    command = typer.main.get_command(app)
    listing = runner.invoke(app, ["--help"], env={"COLUMNS": "1000"}).output
    for name, sub in command.commands.items():
        summary = " ".join(inspect.cleandoc(sub.help or "").split("\n\n")[0].split())
        row = next(line for line in listing.splitlines() if line.startswith(f"│ {name} "))
        assert summary in row, (name, row)


@pytest.fixture(scope="module")
def helps() -> dict[str, str]:
    """The --help of the app and of each command (train's also with a KIND), one row a line."""
    commands = [[], *([name] for name in typer.main.get_command(app).commands), ["train", "alphazero"]]
    shown = {" ".join(args): runner.invoke(app, [*args, "--help"], env=WIDE) for args in commands}
    assert all(result.exit_code == 0 for result in shown.values())
    return {name: result.output for name, result in shown.items()}


def test_no_flag_is_shown_as_taking_a_value(helps: dict[str, str]) -> None:
    # typer's help would list `--help <bool>`, `--json <bool>`: as if the flag took a value
    for name, text in helps.items():
        assert "<bool>" not in text, name
        assert re.search(r"│ --help +Show this", text), name
    assert re.search(r"│ --json +print them as a JSON list", helps["tournaments"])
    assert re.search(r"│ --human-first +--human-second +move first", helps["play"])


def test_help_texts_show_no_restructuredtext_markup(helps: dict[str, str]) -> None:
    for name, text in helps.items():
        assert "``" not in text, name


def test_train_usage_names_the_kind_first_as_the_docs_write_it(helps: dict[str, str]) -> None:
    for name in ("train", "train alphazero"):
        assert "Usage: boardlab train KIND --out DIR [OPTIONS]" in helps[name], name


def test_play_help_says_which_side_the_human_takes_by_default(helps: dict[str, str]) -> None:
    assert "move first (X; the default) or second (O)" in _row(helps["play"], "--human-first")


def test_options_shared_by_commands_read_alike_in_their_help(helps: dict[str, str]) -> None:
    commands = typer.main.get_command(app).commands
    for name in ("solve", "analyze", "oracle", "review"):  # one order of the two names everywhere
        assert [p.opts for p in commands[name].params if "--tables" in p.opts] == [["--tables", "--dir"]]
        assert "│ --tables,--dir " in helps[name], name
    for name in ("ratings", "export", "tournaments", "match", "tournament", "review", "serve"):
        assert re.search(r"│ --db +<path> ", helps[name]), name


def test_no_option_says_its_default_in_its_help_and_shows_it_again() -> None:
    for name, command in typer.main.get_command(app).commands.items():
        for param in command.params:
            shown = param.show_default is not False and param.default not in (None, "", False)
            assert not (shown and "default" in (getattr(param, "help", None) or "")), (name, param.name)


def test_version_prints_the_version_the_package_is_built_with() -> None:
    project = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())["project"]
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.output == f"boardlab {project['version']}\n"
    assert runner.invoke(app, ["--version", "games", "--bogus"]).output == result.output  # at once


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (["perft", "--depth", "0"], "--depth must be at least 1, got 0"),
        (["perft", "--depth", "13"], "--depth must be at most 12, got 13"),
        (["perft", "--depth", "1.5"], "--depth must be a whole number, got 1.5"),
        (["match", "a", "b", "--games", "1e30"], "--games must be a whole number, got 1e30"),
        (["match", "a", "b", "--move-timeout", "soon"], "--move-timeout must be a number, got soon"),
        (["serve", "--port", "70000"], "--port must be at most 65535, got 70000"),
    ],
)
def test_a_number_option_out_of_its_kind_or_range_says_so_in_the_commands_words(
    args: list[str], line: str
) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert result.stderr == f"Error: {line} (see: boardlab {args[0]} --help)\n"


def _row(output: str, name: str) -> str:
    return next(line for line in output.splitlines() if line.startswith(f"│ {name} "))


def test_agents_overview_names_the_games_each_agent_plays():
    result = runner.invoke(app, ["agents"], env=WIDE)
    assert result.exit_code == 0, result.output
    assert "│ quixo " in _row(result.output, "rules")
    assert "│ nim " in _row(result.output, "optimal")
    assert "│ all " in _row(result.output, "alphabeta")
    assert "│ - " in _row(result.output, "greedy")  # no options


def test_an_agent_in_full_is_titled_with_its_games():
    result = runner.invoke(app, ["agents", "rules", "mcts"], env=WIDE)
    assert result.exit_code == 0, result.output
    titles = [
        line.strip() for line in result.output.splitlines() if line.strip().startswith(("rules:", "mcts:"))
    ]
    assert len(titles) == 2
    assert titles[0].endswith("(quixo)") and titles[1].endswith("(every game)")


def test_games_overview_shows_each_title_and_evaluations():
    result = runner.invoke(app, ["games"], env=WIDE)
    assert result.exit_code == 0, result.output
    quixo = _row(result.output, "quixo")
    assert "Quixo 5x5" in quixo and "tuned, lines2" in quixo
    tictactoe = _row(result.output, "tictactoe")
    assert "Tic-Tac-Toe" in tictactoe and "│ - " in tictactoe and "lines" in tictactoe


def test_perft_compiles_before_its_clock_starts(monkeypatch: pytest.MonkeyPatch) -> None:
    """The first row's time is a count's, like the others': the compiled count has run once
    (compiling it, or loading it from numba's cache) before any row is timed."""
    from boardlab.games import perft as perft_module
    from boardlab.ui import cli

    events: list[str] = []
    counted = perft_module.perft

    def count(*args: object, **kwargs: object) -> int:
        events.append("count")
        return counted(*args, **kwargs)  # type: ignore[arg-type]

    clock = time.perf_counter
    monkeypatch.setattr(perft_module, "perft", count)
    monkeypatch.setattr(cli.time, "perf_counter", lambda: events.append("clock") or clock())
    result = runner.invoke(app, ["perft", "--game", "quixo:size=3", "--depth", "2"], terminal_width=200)
    assert result.exit_code == 0, result.output
    assert events.index("count") < events.index("clock")
