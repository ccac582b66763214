"""The top-level CLI: listing agents, perft, bench, and clean failures on bad input."""

from __future__ import annotations

from typer.testing import CliRunner

from boardlab.cli import app

runner = CliRunner()


def test_agents_lists_every_agent_with_its_parameters():
    result = runner.invoke(app, ["agents"], terminal_width=200)
    assert result.exit_code == 0
    for name in ("random", "greedy", "alphabeta", "mcts", "hybrid", "course"):
        assert name in result.output
    assert "eval=lines3" in result.output


def test_perft_prints_the_published_counts():
    result = runner.invoke(app, ["perft", "--depth", "3"], terminal_width=200)
    assert result.exit_code == 0
    for count in ("44", "1,836", "76,596"):
        assert count in result.output


def test_perft_from_a_position_text():
    result = runner.invoke(app, ["perft", "--depth", "1", "--position", "O......../ X"], terminal_width=200)
    assert result.exit_code == 0
    # 3x3 with O on a corner: X may not take it, so 20 - 2 moves
    assert "18" in result.output


def test_bad_input_exits_2_with_one_line_and_no_traceback():
    for args in (
        ["perft", "--position", "XXXX"],
        ["perft", "--size", "7"],
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
