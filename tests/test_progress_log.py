"""Long work that a log file can follow: where the output is not a terminal, progress displays
write a plain line for each running task every few seconds, and on a terminal nothing but
rich's own bars."""

from __future__ import annotations

import io
import threading
import time
from pathlib import Path

import pytest
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
from typer.testing import CliRunner

from boardlab.core import console as console_module
from boardlab.core.console import LoggedProgress
from boardlab.ui.cli import app

COLUMNS = (
    TextColumn("[bold]{task.description}"),
    BarColumn(),
    MofNCompleteColumn(),
    TextColumn("best {task.fields[best]:.2f}"),
    TimeElapsedColumn(),
)


def _run(console: Console, steps: int, total: float | None = 10, hidden: bool = False) -> None:
    with LoggedProgress(*COLUMNS, console=console, log_every=0.02) as bar:
        task = bar.add_task("games", total=total, best=0.25)
        if hidden:
            bar.add_task("hidden", total=5, best=0.0, visible=False)
        for step in range(steps):
            bar.update(task, advance=1, best=step / 4)
            time.sleep(0.06)


def _progress_lines(output: str, label: str = "games") -> list[str]:
    return [line for line in output.splitlines() if line.startswith(f"{label}  ")]


def test_a_log_file_gets_a_plain_line_for_each_step_it_can_see() -> None:
    out = io.StringIO()
    _run(Console(file=out, width=80), steps=4)
    lines = _progress_lines(out.getvalue())
    assert len(lines) >= 3  # about one every 0.02 s of the 0.24 s the work took
    assert any(line.startswith("games  20%  2/10  best 0.25  0:00:0") for line in lines)
    assert all("━" not in line and "[bold]" not in line for line in lines)
    shares = [int(line.split()[1].rstrip("%")) for line in lines]
    assert shares == sorted(shares) and shares[-1] == 40  # never backwards, up to where it stopped
    assert out.getvalue().count("━") > 0  # rich's bars drawn once more at the end, as before


def test_a_terminal_gets_rich_bars_and_no_plain_lines() -> None:
    out = io.StringIO()
    _run(Console(file=out, width=80, force_terminal=True), steps=4)
    assert _progress_lines(out.getvalue()) == []
    assert "━" in out.getvalue()


def test_a_task_of_unknown_size_has_no_share_and_a_hidden_one_no_line() -> None:
    out = io.StringIO()
    _run(Console(file=out, width=80), steps=3, total=None, hidden=True)
    lines = _progress_lines(out.getvalue())
    assert lines and all("%" not in line for line in lines)
    assert not _progress_lines(out.getvalue(), "hidden")


def test_a_finished_task_is_not_logged_again_and_the_writer_stops_with_the_display() -> None:
    out = io.StringIO()
    with LoggedProgress(*COLUMNS, console=Console(file=out, width=80), log_every=0.02) as bar:
        task = bar.add_task("games", total=2, best=0.0)
        bar.update(task, completed=2)
        time.sleep(0.1)
    assert _progress_lines(out.getvalue()) == []
    assert not [t for t in threading.enumerate() if t.name == "progress-log"]


def test_a_disabled_display_writes_nothing() -> None:
    out = io.StringIO()
    with LoggedProgress(*COLUMNS, console=Console(file=out, width=80), log_every=0.01, disable=True) as bar:
        bar.add_task("games", total=10, best=0.0)
        time.sleep(0.05)
    assert out.getvalue() == ""


@pytest.mark.timeout(120)
def test_training_into_a_log_shows_its_progress_while_it_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(console_module, "LOG_EVERY", 0.01)
    args = ["train", "qlearning", "--game", "tictactoe", "--episodes", "3000", "--out", str(tmp_path / "q")]
    result = CliRunner().invoke(app, args, terminal_width=200)
    assert result.exit_code == 0, result.output
    lines = _progress_lines(result.output, "episodes")
    assert lines, result.output
    assert all("%" in line and "/3,000" in line for line in lines)
