"""The `match` and `tournament` commands, on a fresh typer app."""

from __future__ import annotations

from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from boardlab.ui import arena as arena_cli


@pytest.fixture
def app() -> typer.Typer:
    app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
    arena_cli.register(app)
    return app


def _invoke(app: typer.Typer, *args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["match", "random", "nosuch"], "unknown agent 'nosuch'"),
        (["match", "random", "greedy:depth=3"], "unknown option 'depth'"),
        (["match", "random", "greedy", "--game", "chess"], "unknown game 'chess'"),
        (["match", "random", "greedy", "--game", "quixo:size=9"], "size"),
        (["match", "random", "greedy", "--games", "0"], "--games must be at least 1"),
        (["match", "random", "greedy", "--workers", "0"], "--workers must be at least 1"),
        (["match", "random", "greedy", "--opening-plies", "-1"], "--opening-plies must be at least 0"),
        (["tournament", "random"], "at least 2 agent specs"),
        (["tournament", "random", "greedy", "--games-per-pair", "0"], "--games-per-pair must be at least 1"),
        (["tournament", "random", "greedy", "--demo"], "either --demo or agent specs"),
    ],
)
def test_bad_input_exits_2_with_one_line(
    app: typer.Typer, tmp_path: Path, args: list[str], message: str
) -> None:
    code, stdout, stderr = _invoke(app, *args, "--db", str(tmp_path / "a.sqlite"), "--out", str(tmp_path))
    assert code == 2
    assert stderr.startswith("Error: ") and message in stderr
    assert len(stderr.strip().splitlines()) == 1
    assert "Traceback" not in stdout + stderr


def test_out_that_is_a_file_exits_2(app: typer.Typer, tmp_path: Path) -> None:
    out = tmp_path / "taken"
    out.write_text("")
    code, _, stderr = _invoke(
        app, "match", "random", "random", "--db", str(tmp_path / "a.db"), "--out", str(out)
    )
    assert code == 2 and "is a file" in stderr


def test_corrupt_store_exits_2(app: typer.Typer, tmp_path: Path) -> None:
    db = tmp_path / "broken.sqlite"
    db.write_bytes(b"\x00garbage" * 500)
    code, _stdout, stderr = _invoke(app, "match", "random", "random", "-n", "2", "--db", str(db), "-j", "1")
    assert code == 2
    assert str(db) in stderr and "not a usable SQLite database" in stderr
    assert len(stderr.strip().splitlines()) == 1


def test_match_writes_tables_plots_and_resumes(app: typer.Typer, tmp_path: Path) -> None:
    db, out = tmp_path / "arena.sqlite", tmp_path / "out"
    args = [
        "match",
        "greedy",
        "random",
        "-n",
        "4",
        "--seed",
        "3",
        "-j",
        "1",
        "--db",
        str(db),
        "--out",
        str(out),
    ]
    code, stdout, _ = _invoke(app, *args)
    assert code == 0
    assert "Ratings (greedy vs random): 4 games" in stdout and "Results by colour" in stdout
    assert "4 new games, 4 stored" in stdout
    for name in (
        "score_matrix.png",
        "outcomes_by_side.png",
        "game_lengths.png",
        "ratings.png",
        "summary.json",
    ):
        assert (out / name).is_file()
    code, stdout, _ = _invoke(app, *args)
    assert code == 0 and "0 new games, 4 stored" in stdout


def test_demo_uses_the_available_demo_agents(
    app: typer.Typer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(arena_cli, "DEMO_SPECS", ("random", "greedy", "nosuch-agent"))
    monkeypatch.setattr(arena_cli, "DEMO_GAMES_PER_PAIR", 2)
    out = tmp_path / "demo"
    code, stdout, stderr = _invoke(
        app, "tournament", "--demo", "-j", "1", "--db", str(tmp_path / "a.sqlite"), "--out", str(out)
    )
    assert code == 0
    assert "skips nosuch-agent" in stderr
    assert "Ratings (demo): 2 games" in stdout
    assert (out / "ratings.png").is_file()
