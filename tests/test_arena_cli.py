"""The `match` and `tournament` commands, on a fresh typer app."""

from __future__ import annotations

import dataclasses
import errno
import json
import os
import signal
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest
import typer
from arena_helpers import arena_app, invoke

from boardlab.arena import match
from boardlab.arena.schedule import ArenaError, TournamentConfig
from boardlab.arena.sprt import H1_ACCEPTED, Sprt
from boardlab.arena.store import Store
from boardlab.play.backend import LocalBackend
from boardlab.play.pool import WorkerPool
from boardlab.ui import arena as arena_cli


@pytest.fixture
def app() -> typer.Typer:
    return arena_app()


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
        (["tournament", "random", "greedy", "--games", "0"], "--games-per-pair must be at least 1"),
        (["tournament", "random", "greedy", "--demo"], "either --demo or agent specs"),
        (["tournament", "--demo", "--gauntlet"], "either --demo or --gauntlet"),
        (["match", "random", "greedy", "--move-timeout", "nan"], "--move-timeout must be a finite number"),
        (["match", "random", "greedy", "--move-timeout", "86401"], "--move-timeout must be at most 86400"),
        (["match", "random", "greedy", "--seed", str(2**63)], "--seed must be at most 9223372036854775807"),
        (["match", "random", "greedy", "--name", "a\nb"], "--name must be printable text"),
        (["match", "random", "greedy", "--name", "n" * 201], "at most 200 characters"),
        (["match", "perfect", "random"], "tables cover endgames only (boards with at most one blank cube)"),
        (
            ["match", "random", "greedy", "--sprt", "10,0"],
            "ELO0 must be below ELO1 (H0: A is ELO0 Elo stronger, H1: ELO1); did you mean --sprt 0,10?",
        ),
        (
            ["match", "random", "greedy", "--sprt", "5,5"],
            "--sprt 5,5: ELO0 must be below ELO1 (H0: A is ELO0 Elo stronger, H1: ELO1)",
        ),
        (["match", "random", "greedy", "--sprt", "10"], "--sprt takes two Elo differences as ELO0,ELO1"),
        (["match", "random", "greedy", "--sprt", "0,ten"], "--sprt takes two Elo differences as ELO0,ELO1"),
        (["match", "random", "greedy", "--sprt", "0,5,10"], "--sprt takes two Elo differences as ELO0,ELO1"),
        (["match", "random", "greedy", "--sprt", "0,nan"], "--sprt takes two finite Elo differences"),
        (["match", "random", "greedy", "--sprt", "0,5000"], "must be within ±2000"),
        (["match", "random", "greedy", "--sprt", "0,300", "--alpha", "0.5"], "--alpha must be in (0, 0.5)"),
        (["match", "random", "greedy", "--sprt", "0,300", "--beta", "0"], "--beta must be in (0, 0.5)"),
        (["match", "random", "greedy", "--sprt", "0,300", "--alpha", "nan"], "--alpha must be in (0, 0.5)"),
        (["match", "random", "greedy", "--alpha", "0.1"], "--alpha is an option of --sprt"),
        (["match", "random", "greedy", "--beta", "0.1"], "--beta is an option of --sprt"),
        (["match", "random", "greedy", "--trinomial"], "--trinomial is an option of --sprt"),
        (
            ["match", "random", "greedy", "--sprt", "0,10", "-n", "100"],
            "--games 100 is too few for --sprt 0,10 to decide: it can accept H1 only after 208 games",
        ),
        (
            ["match", "random", "greedy", "--sprt", "0,300", "-n", "5"],
            "--games 5 (6 in whole pairs) is too few for --sprt 0,300 to decide",
        ),
    ],
)
def test_bad_input_exits_2_with_one_line(
    app: typer.Typer, tmp_path: Path, args: list[str], message: str
) -> None:
    code, stdout, stderr = invoke(app, *args, "--db", str(tmp_path / "a.sqlite"), "--out", str(tmp_path))
    assert code == 2
    assert stderr.startswith("Error: ") and message in stderr
    assert len(stderr.strip().splitlines()) == 1
    assert "Traceback" not in stdout + stderr


def test_a_throw_away_store_says_no_game_is_kept(app: typer.Typer, tmp_path: Path) -> None:
    args = ["match", "random", "random", "-n", "2", "--game", "tictactoe", "-j", "1"]
    code, stdout, _ = invoke(app, *args, "--db", ":memory:", "--out", str(tmp_path / "m"))
    assert code == 0 and "2 new games, none kept (--db :memory:)" in stdout
    assert "stored in" not in stdout and not (tmp_path / ":memory:").exists()
    code, stdout, _ = invoke(app, *args[:4], "1", *args[5:], "--db", ":memory:", "--out", str(tmp_path / "m"))
    assert code == 0 and "1 new game, none kept" in stdout


def test_out_that_is_a_file_exits_2(app: typer.Typer, tmp_path: Path) -> None:
    out = tmp_path / "taken"
    out.write_text("")
    code, _, stderr = invoke(
        app, "match", "random", "random", "--db", str(tmp_path / "a.db"), "--out", str(out)
    )
    assert code == 2 and "is a file" in stderr


def test_corrupt_store_exits_2(app: typer.Typer, tmp_path: Path) -> None:
    db = tmp_path / "broken.sqlite"
    db.write_bytes(b"\x00garbage" * 500)
    code, _stdout, stderr = invoke(app, "match", "random", "random", "-n", "2", "--db", str(db), "-j", "1")
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
    code, stdout, _ = invoke(app, *args)
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
    code, stdout, _ = invoke(app, *args)
    assert code == 0 and "0 new games, 4 stored" in stdout
    # a smaller count reports the games of its own schedule, the first ones, and says so
    code, stdout, _ = invoke(app, *args, "-n", "2")
    assert code == 0 and "Ratings (greedy vs random): 2 games" in stdout
    assert f"0 new games, reporting the first 2 of 4 stored games in {db} (tournament " in stdout


def test_a_gauntlet_plays_the_first_agent_against_each_other_one_and_resumes(
    app: typer.Typer, tmp_path: Path
) -> None:
    db, out = tmp_path / "arena.sqlite", tmp_path / "out"
    specs = ["greedy", "random", "alphabeta:depth=1"]
    args = ["tournament", *specs, "--gauntlet", "-n", "4", "--game", "tictactoe", "-j", "1"]
    code, stdout, stderr = invoke(app, *args, "--db", str(db), "--out", str(out))
    assert code == 0, stderr
    assert "Ratings (greedy vs each of random, alphabeta:depth=1): 8 games" in stdout
    assert "8 new games, 8 stored" in stdout
    assert "greedy against each" in stdout and "Score matrix" not in stdout
    # the plot is still written: the first agent's row and column, the opponents never meeting
    assert (out / "score_matrix.png").is_file()
    summary = json.loads((out / "summary.json").read_text())
    assert [player["spec"] for player in summary["players"]] == specs
    met_in_summary = [[games > 0 for games in row] for row in summary["games_matrix"]]
    assert met_in_summary == [[False, True, True], [True, False, False], [True, False, False]]
    with sqlite3.connect(db) as conn:
        met = set(conn.execute("SELECT DISTINCT first_spec, second_spec FROM games"))
        pairing = conn.execute("SELECT pairing FROM tournaments").fetchall()
    conn.close()
    assert met == {(a, b) for other in specs[1:] for a, b in (("greedy", other), (other, "greedy"))}
    assert pairing == [("gauntlet",)]
    code, stdout, _ = invoke(app, *args, "-n", "5", "--db", str(db), "--out", str(out))
    assert code == 0 and "2 new games, 10 stored" in stdout
    # rated again from the store: by its name, the gauntlet's table; pooled with other games, the matrix
    _play(app, db, "match", "random", "alphabeta:depth=1", "-n", "2", "--game", "tictactoe")
    name = "greedy vs each of random, alphabeta:depth=1"
    code, stdout, _ = invoke(app, "ratings", str(db), "--tournament", name)
    assert code == 0 and "greedy against each" in stdout and "Score matrix" not in stdout
    code, stdout, _ = invoke(app, "ratings", str(db))
    assert code == 0 and "greedy against each" not in stdout and "Score matrix" in stdout


@pytest.mark.parametrize("count", ["--games", "--games-per-pair", "-n"])
def test_a_tournament_counts_its_games_per_pair_as_match_counts_its_games(
    app: typer.Typer, tmp_path: Path, count: str
) -> None:
    args = [
        "tournament",
        "greedy",
        "random",
        "alphabeta:depth=1",
        count,
        "2",
        "--game",
        "tictactoe",
        "-j",
        "1",
    ]
    code, stdout, stderr = invoke(
        app, *args, "--db", str(tmp_path / "a.sqlite"), "--out", str(tmp_path / "t")
    )
    assert code == 0, stderr
    assert "6 new games, 6 stored" in stdout  # three pairs, two games each


def test_a_suite_of_openings_is_read_by_the_rules_and_bad_ones_exit_2(
    app: typer.Typer, tmp_path: Path, planned: list[Planned]
) -> None:
    suite = tmp_path / "suite.txt"
    suite.write_text("# the centre, then each reply\n4 1\n4, 4\n")
    assert invoke(app, "match", "random", "greedy", "--game", "connect4", "--openings", str(suite))[0] == 0
    [(config, _, _)] = planned
    assert config.openings == (("4", "1"), ("4", "4")) and config.opening_plies == 0
    (tmp_path / "bad.txt").write_text("4 4\n4 9\n")
    for args, message in (
        (["--openings", str(tmp_path / "bad.txt")], "bad.txt line 2: move 2 (9): cannot read move '9'"),
        (["--openings", str(tmp_path / "none.txt")], "none.txt does not exist"),
        (["--openings", str(tmp_path)], "is a folder"),
        (["--openings", str(suite), "--opening-plies", "2"], "give either --openings or --opening-plies"),
        (["--openings", str(suite), "--opening-plies", "0"], "give either --openings or --opening-plies"),
    ):
        code, _, stderr = invoke(app, "tournament", "random", "greedy", "--game", "connect4", *args)
        assert code == 2 and stderr.startswith("Error: ") and message in stderr, stderr
        assert len(stderr.strip().splitlines()) == 1
    assert len(planned) == 1


def test_openings_writes_a_suite_that_match_plays(app: typer.Typer, tmp_path: Path) -> None:
    suite = tmp_path / "c4.txt"
    code, _, stderr = invoke(app, "openings", "--game", "connect4", "--plies", "1", "--out", str(suite))
    assert code == 0 and "wrote 4 openings" in stderr
    assert suite.read_text() == "# connect4: 4 distinct openings of 1 ply\n1\n2\n3\n4\n"
    db = tmp_path / "arena.sqlite"
    args = ["match", "greedy", "random", "--game", "connect4", "--openings", str(suite), "-n", "8", "-j", "1"]
    code, stdout, stderr = invoke(app, *args, "--db", str(db), "--out", str(tmp_path / "out"))
    assert code == 0 and "8 new games" in stdout, stderr
    with sqlite3.connect(db) as conn:
        openings = [row[0] for row in conn.execute("SELECT opening FROM games ORDER BY game_index")]
    conn.close()
    assert openings == [str(column) for column in (1, 1, 2, 2, 3, 3, 4, 4)]
    code, stdout, _ = invoke(app, "openings", "--game", "tictactoe", "--plies", "2")
    assert code == 0 and stdout.startswith("# tictactoe: 12 distinct openings of 2 plies\na1 b1\n")
    code, stdout, _ = invoke(app, "openings", "--game", "TicTacToe", "--plies", "1")
    assert code == 0 and stdout == "# tictactoe: 3 distinct openings of 1 ply\na1\nb1\nb2\n"  # as read back
    for args, message in (
        (["--plies", "0"], "opening plies must be in 1..1000"),
        (["--game", "chess"], "unknown game 'chess'"),
        (["--out", str(tmp_path)], ": it is a folder; expected a file"),
    ):
        code, _, stderr = invoke(app, "openings", *args)
        assert code == 2 and stderr.startswith("Error: ") and message in stderr, stderr
        assert len(stderr.strip().splitlines()) == 1


def test_demo_uses_the_available_demo_agents(
    app: typer.Typer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(arena_cli, "DEMO_SPECS", ("random", "greedy", "nosuch-agent"))
    monkeypatch.setattr(arena_cli, "DEMO_GAMES_PER_PAIR", 2)
    out = tmp_path / "demo"
    code, stdout, stderr = invoke(
        app, "tournament", "--demo", "-j", "1", "--db", str(tmp_path / "a.sqlite"), "--out", str(out)
    )
    assert code == 0
    assert "skips nosuch-agent" in stderr
    assert "Ratings (demo): 2 games" in stdout
    assert (out / "ratings.png").is_file()


def _play(app: typer.Typer, db: Path, *args: str) -> None:
    code, _, stderr = invoke(app, *args, "--seed", "5", "-j", "1", "--db", str(db), "--out", str(db.parent))
    assert code == 0, stderr


def test_ratings_pools_the_tournaments_of_a_store(
    app: typer.Typer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two matches sharing a player are rated together, each spec one player; a tournament
    alone, and another game of the store, are rated apart; plots only with --out."""
    db = tmp_path / "arena.sqlite"
    _play(app, db, "match", "greedy", "random", "-n", "4", "--name", "first")
    _play(app, db, "match", "greedy", "alphabeta:depth=1", "-n", "2", "--name", "second")
    _play(app, db, "match", "greedy", "random", "-n", "2", "--game", "tictactoe")
    code, stdout, stderr = invoke(app, "ratings", str(db), "--game", "quixo", "--out", str(tmp_path / "r"))
    assert code == 0, stderr
    assert "Ratings (quixo): 6 games" in stdout and "tictactoe" not in stdout
    assert "Score matrix" in stdout  # three players
    rows = [line for line in stdout.splitlines() if "greedy" in line and "│" in line]
    assert rows and rows[0].split("│")[5].strip() == "6"  # greedy: one player, 6 games
    assert (tmp_path / "r" / "ratings.png").is_file() and (tmp_path / "r" / "summary.json").is_file()
    code, stdout, _ = invoke(app, "ratings", str(db), "--tournament", "second")
    assert code == 0 and "Ratings (quixo, second): 2 games" in stdout
    assert "Score matrix" not in stdout  # two players: the ratings table says it all
    code, stdout, _ = invoke(app, "ratings", str(db), "--out", str(tmp_path / "each"))
    assert code == 0 and "Ratings (quixo): 6 games" in stdout and "Ratings (tictactoe): 2 games" in stdout
    for game in ("quixo", "tictactoe"):
        assert (tmp_path / "each" / game / "ratings.png").is_file()
    monkeypatch.setattr(arena_cli, "MAX_MATRIX_PLAYERS", 2)
    code, stdout, _ = invoke(app, "ratings", str(db), "--game", "quixo")
    assert code == 0 and "Ratings (quixo): 6 games" in stdout and "Score matrix" not in stdout  # too wide


def test_tournaments_lists_what_a_store_holds(app: typer.Typer, tmp_path: Path) -> None:
    db = tmp_path / "arena.sqlite"
    suite = tmp_path / "suite.txt"
    suite.write_text("b2\na1\n")
    _play(app, db, "match", "greedy", "random", "-n", "2", "--name", "first", "--game", "tictactoe")
    _play(
        app,
        db,
        "tournament",
        "greedy",
        "random",
        "mcts:iters=10",
        "--gauntlet",
        "-n",
        "2",
        "--game",
        "tictactoe",
        "--openings",
        str(suite),
    )
    _play(app, db, "match", "greedy", "random", "-n", "2", "--game", "connect4", "--opening-plies", "1")
    code, stdout, stderr = invoke(app, "tournaments", str(db), "--json")
    assert code == 0, stderr
    listed = json.loads(stdout)
    assert [(t["name"], t["game"], t["pairing"], len(t["specs"]), t["games"]) for t in listed] == [
        ("first", "tictactoe", "round-robin", 2, 2),
        ("greedy vs each of random, mcts:iters=10", "tictactoe", "gauntlet", 3, 4),
        ("greedy vs random", "connect4", "round-robin", 2, 2),
    ]
    assert listed[1]["openings"] == [["b2"], ["a1"]] and listed[2]["opening_plies"] == 1
    code, stdout, _ = invoke(app, "tournaments", str(db), "--game", "tictactoe")
    rows = [line for line in stdout.splitlines() if line.startswith("│")]
    assert code == 0 and len(rows) == 2 and "connect4" not in stdout
    assert "a suite of 2" in rows[1] and "gauntlet" in rows[1] and "2 plies at random" in rows[0]
    code, _, stderr = invoke(app, "tournaments", str(db), "--game", "quixo")
    assert code == 2 and "holds no tournament of quixo; it holds: connect4 (greedy vs random)" in stderr
    with sqlite3.connect(db) as conn:  # as an older version stored a game spelt another way
        conn.execute("UPDATE tournaments SET game = 'tictactoe:' WHERE name = 'first'")
    conn.close()
    code, stdout, _ = invoke(app, "tournaments", str(db), "--game", "TicTacToe", "--json")
    assert code == 0 and [t["name"] for t in json.loads(stdout)] == [listed[0]["name"], listed[1]["name"]]


READING_COMMANDS = ["ratings", "export", "tournaments"]


@pytest.mark.parametrize("command", READING_COMMANDS)
def test_a_reading_command_takes_the_store_as_db_or_where_match_writes_it(
    app: typer.Typer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    """DB, --db and no store at all (results/arena.sqlite, match's default) read the same store."""
    monkeypatch.chdir(tmp_path)
    db = "results/arena.sqlite"
    assert match("greedy", "random", 2, game="tictactoe", store=Path(db), workers=0).played == 2
    code, stdout, stderr = invoke(app, command, db)
    assert code == 0 and stdout.strip(), stderr
    assert invoke(app, command, "--db", db) == (code, stdout, stderr)
    assert invoke(app, command, db, "--db", f"./{db}") == (code, stdout, stderr)
    assert invoke(app, command) == (code, stdout, stderr)


@pytest.mark.parametrize("command", READING_COMMANDS)
def test_a_reading_command_given_two_stores_exits_2_with_one_line(
    app: typer.Typer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    monkeypatch.chdir(tmp_path)
    first, second = Path("a.sqlite"), Path("b.sqlite")
    for db in (first, second):
        assert match("greedy", "random", 2, game="tictactoe", store=db, workers=0).played == 2
    code, stdout, stderr = invoke(app, command, str(first), "--db", str(second))
    assert code == 2 and not stdout
    assert stderr.strip().splitlines() == [
        f"Error: the store is given twice, as DB {first} and as --db {second}; give one of them"
    ]


@pytest.mark.parametrize("command", READING_COMMANDS)
def test_a_reading_command_without_a_store_where_match_writes_it_exits_2(
    app: typer.Typer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    monkeypatch.chdir(tmp_path)
    code, _, stderr = invoke(app, command)
    assert code == 2 and stderr.strip().splitlines() == [
        "Error: results/arena.sqlite: no such store (match and tournament write one with --db)"
    ]
    assert not (tmp_path / "results").exists()


def test_tournaments_of_a_missing_or_damaged_store_exit_2_with_one_line(
    app: typer.Typer, tmp_path: Path
) -> None:
    db = tmp_path / "arena.sqlite"
    code, _, stderr = invoke(app, "tournaments", str(db))
    assert code == 2 and stderr.startswith("Error: ") and "no such store" in stderr and not db.exists()
    assert match("greedy", "random", 2, game="tictactoe", store=db, workers=0).played == 2
    with sqlite3.connect(db) as conn:  # valid JSON, but not a suite
        conn.execute("UPDATE tournaments SET openings = '5'")
    conn.close()
    code, stdout, stderr = invoke(app, "tournaments", str(db))
    assert code == 2 and "is unreadable (the openings are not a list of move lists)" in stderr
    assert len(stderr.strip().splitlines()) == 1 and "Traceback" not in stdout + stderr


def test_openings_that_cannot_be_written_exit_2_with_one_line(
    app: typer.Typer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def full(path: object, text: str) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(arena_cli, "atomic_write_text", full)
    out = tmp_path / "suite.txt"
    code, stdout, stderr = invoke(app, "openings", "--game", "tictactoe", "--plies", "1", "--out", str(out))
    assert code == 2 and stderr.startswith("Error: --out ") and stderr.endswith(": No space left on device\n")
    assert stdout == ""


def test_a_game_written_another_way_resumes_and_rates_as_the_same_game(
    app: typer.Typer, tmp_path: Path
) -> None:
    db = tmp_path / "arena.sqlite"
    assert match("greedy", "random", 2, game="tictactoe", store=db, workers=0).played == 2
    again = match("greedy", "random", 2, game="TicTacToe", store=db, workers=0)  # the same tournament
    assert again.played == 0 and again.already_stored == 2
    with sqlite3.connect(db) as conn:  # as an older version stored a game spelt another way
        conn.execute("UPDATE tournaments SET game = 'tictactoe:'")
    assert match("random", "greedy", 2, game="tictactoe", store=db, workers=0).played == 2
    for args in ([], ["--game", "TicTacToe"]):
        code, stdout, stderr = invoke(app, "ratings", str(db), *args)
        assert code == 0 and "Ratings (tictactoe): 4 games" in stdout, stderr


@pytest.mark.parametrize(
    ("make", "args", "message"),
    [
        (None, [], "no such store"),
        ("folder", [], "not a regular file"),
        ("garbage", [], "not a usable SQLite database"),
        ("empty", [], "holds no games to rate"),
        ("match", ["--game", "connect4"], "holds no games to rate"),
        ("match", ["--tournament", "nosuch"], "holds no games to rate"),
        ("match", ["--game", "chess"], "--game: unknown game 'chess'"),
        (None, ["--game", "quixo:size=2"], "--game: quixo: size=2 is not accepted"),
    ],
)
def test_ratings_bad_input_exits_2_with_one_line(
    app: typer.Typer, tmp_path: Path, make: str | None, args: list[str], message: str
) -> None:
    db = tmp_path / "arena.sqlite"
    if make == "folder":
        db.mkdir()
    if make == "garbage":
        db.write_bytes(b"\x00garbage" * 500)
    elif make == "empty":
        db.write_bytes(b"")
    elif make == "match":
        _play(app, db, "match", "greedy", "random", "-n", "2")
    before = db.read_bytes() if db.is_file() else None
    code, stdout, stderr = invoke(app, "ratings", str(db), *args)
    assert code == 2 and stderr.startswith("Error: ") and message in stderr
    assert len(stderr.strip().splitlines()) == 1 and "Traceback" not in stdout + stderr
    assert (db.read_bytes() if db.is_file() else None) == before  # nothing written, nothing created


def test_a_store_that_is_an_output_file_is_refused(app: typer.Typer, tmp_path: Path) -> None:
    """--db naming summary.json or a plot of --out would be replaced by it: refused before any game."""
    out = tmp_path / "o"
    db = out / "summary.json"
    code, _, stderr = invoke(
        app, "match", "random", "greedy", "--game", "tictactoe", "-n", "2", "-j", "1",
        "--db", str(db), "--out", str(out),
    )  # fmt: skip
    assert code == 2 and "is one of the files written into --out" in stderr
    assert not db.exists()
    store = tmp_path / "sprt.png"  # written by match --sprt, removed by the others: never a store
    code, _, stderr = invoke(
        app, "match", "random", "greedy", "--game", "tictactoe", "-n", "2", "-j", "1",
        "--db", str(store), "--out", str(tmp_path),
    )  # fmt: skip
    assert code == 2 and "is one of the files written into --out" in stderr and not store.exists()
    store = tmp_path / "ratings.png"
    _play(
        app, tmp_path / "played" / "a.sqlite", "match", "greedy", "random", "-n", "2", "--game", "tictactoe"
    )
    (tmp_path / "played" / "a.sqlite").rename(store)
    before = store.read_bytes()
    code, _, stderr = invoke(app, "ratings", str(store), "--out", str(tmp_path / "." / ""))
    assert code == 2 and "is one of the files written into --out" in stderr
    assert store.read_bytes() == before


def test_a_store_with_a_player_out_of_range_is_refused_before_any_game(
    app: typer.Typer, tmp_path: Path
) -> None:
    db = tmp_path / "played" / "a.sqlite"
    _play(app, db, "match", "random", "greedy", "-n", "2", "--game", "tictactoe", "--name", "tn")
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE games SET first_player = 7")
    conn.close()
    code, _, stderr = invoke(
        app, "match", "random", "greedy", "--game", "tictactoe", "-n", "4", "--seed", "5", "-j", "1",
        "--name", "tn", "--db", str(db), "--out", str(tmp_path / "m"),
    )  # fmt: skip
    assert code == 2 and "first_player 7 is not a player index" in stderr and "(tn)" in stderr
    assert len(stderr.strip().splitlines()) == 1
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT COUNT(*) FROM games").fetchone() == (2,)  # no new game
    conn.close()


def test_a_refused_command_removes_only_the_empty_folders_it_created(
    app: typer.Typer, tmp_path: Path
) -> None:
    junk = tmp_path / "junk.dat"
    junk.write_bytes(b"junk" * 200)
    kept = tmp_path / "kept"
    kept.mkdir()
    for out in (tmp_path / "new" / "m", kept):
        code, _, stderr = invoke(app, "match", "random", "greedy", "--game", "tictactoe", "-n", "2",
                                  "--db", str(junk), "--out", str(out))  # fmt: skip
        assert code == 2 and "not a usable SQLite database" in stderr
    code, _, stderr = invoke(app, "ratings", str(junk), "--out", str(tmp_path / "r"))
    assert code == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["junk.dat", "kept"]


def test_memory_is_checked_for_the_local_workers_asked_or_all_cores(
    app: typer.Typer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[int] = []

    def short_of_memory(config: object, workers: int) -> None:
        asked.append(workers)
        raise ArenaError("not enough memory for these workers")

    monkeypatch.setattr(arena_cli, "check_memory", short_of_memory)
    monkeypatch.setattr(arena_cli, "default_workers", lambda: 5)
    base = ["match", "random", "greedy", "--game", "tictactoe", "-n", "2"]
    base += ["--db", str(tmp_path / "a.sqlite"), "--out", str(tmp_path / "o")]
    for extra in ([], ["-j", "3"]):
        code, _, stderr = invoke(app, *base, *extra)
        assert code == 2 and "not enough memory for these workers" in stderr
    assert asked == [5, 3]
    assert list(tmp_path.iterdir()) == []  # refused before any folder or store was made


def test_a_run_that_fails_exits_1_and_keeps_its_folders(
    app: typer.Typer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def failing(*args: object, **kwargs: object) -> None:
        raise ArenaError("a game failed")

    monkeypatch.setattr(arena_cli, "run_tournament", failing)
    db, out = tmp_path / "d" / "a.sqlite", tmp_path / "o"
    args = ["match", "random", "greedy", "--game", "tictactoe", "-n", "2", "-j", "1"]
    code, _, stderr = invoke(app, *args, "--db", str(db), "--out", str(out))
    assert code == 1 and stderr.strip() == "Error: a game failed"
    assert db.is_file() and out.is_dir()  # not refused input: what was made stays


Planned = tuple[TournamentConfig, Path, Path]


@pytest.fixture
def planned(monkeypatch: pytest.MonkeyPatch) -> list[Planned]:
    """What the commands would run (config, --db, --out), nothing being played."""
    runs: list[Planned] = []

    def record(config: TournamentConfig, db: Path, workers: int | None, out: Path, *rest: object) -> None:
        runs.append((config, db, out))

    monkeypatch.setattr(arena_cli, "run_and_report", record)
    return runs


def test_the_commands_defaults(app: typer.Typer, planned: list[Planned]) -> None:
    for args in (["match", "random", "greedy"], ["tournament", "random", "greedy"]):
        code, _, stderr = invoke(app, *args)
        assert code == 0, stderr
    (match_config, match_db, match_out), (tournament_config, tournament_db, tournament_out) = planned
    assert match_config == TournamentConfig(("random", "greedy"), 100, "quixo", 0, 2, "")
    assert tournament_config == TournamentConfig(("random", "greedy"), 20, "quixo", 0, 2, "")
    assert match_db == tournament_db == Path("results/arena.sqlite")
    assert (match_out, tournament_out) == (Path("results/match"), Path("results/tournament"))


def test_demo_defaults_give_way_to_the_options_given(
    app: typer.Typer, planned: list[Planned], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(arena_cli, "DEMO_SPECS", ("random", "greedy"))
    assert invoke(app, "tournament", "--demo")[0] == 0
    assert invoke(app, "tournament", "--demo", "-n", "3", "--name", "mine", "--out", "elsewhere")[0] == 0
    (default, default_out), (given, given_out) = ((c, o) for c, _, o in planned)
    assert (default.specs, default.games_per_pair, default.name) == (("random", "greedy"), 10, "demo")
    assert default_out == Path("results/demo")
    assert (given.games_per_pair, given.name, given_out) == (3, "mine", Path("elsewhere"))


def test_ratings_of_several_games_write_each_into_a_folder_of_its_own() -> None:
    out = Path("o")
    assert arena_cli._ratings_folder(out, "quixo:size=4", 1) == out
    assert arena_cli._ratings_folder(out, "quixo:size=4", 2) == out / "quixo-size4"
    assert arena_cli._ratings_folder(out, "nim:piles=1-2,k=1", 3) == out / "nim-piles1-2-k1"


def test_the_bounds_of_the_counts_are_accepted(app: typer.Typer, planned: list[Planned]) -> None:
    code, _, stderr = invoke(
        app,
        "match",
        "random",
        "greedy",
        "--opening-plies",
        "1000",
        "-n",
        str(10**9),
        "--move-timeout",
        "86400",
    )
    assert code == 0, stderr
    assert (planned[0][0].opening_plies, planned[0][0].games_per_pair) == (1000, 10**9)


def test_ratings_refuse_an_out_that_is_a_file_or_holds_the_store_in_a_game_s_folder(
    app: typer.Typer, tmp_path: Path
) -> None:
    played = tmp_path / "played" / "a.sqlite"
    _play(app, played, "match", "greedy", "random", "-n", "2", "--game", "tictactoe")
    _play(app, played, "match", "greedy", "random", "-n", "2", "--game", "nim")
    store = tmp_path / "r" / "tictactoe" / "summary.json"  # where ratings --out r writes tictactoe's summary
    store.parent.mkdir(parents=True)
    played.rename(store)
    before = store.read_bytes()
    code, _, stderr = invoke(app, "ratings", str(store), "--out", str(tmp_path / "r"))
    assert code == 2 and "is one of the files written into --out" in stderr
    assert store.read_bytes() == before
    taken = tmp_path / "taken"
    taken.write_text("")
    code, stdout, stderr = invoke(app, "ratings", str(store), "--out", str(taken))
    assert code == 2 and "is a file" in stderr and stdout == ""


@pytest.mark.parametrize("command", ["match", "ratings"])
def test_plots_that_cannot_be_written_exit_1_with_the_games_kept(
    app: typer.Typer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    def full_disk(*args: object) -> list[Path]:
        raise OSError(28, "No space left on device")

    db, out = tmp_path / "a.sqlite", tmp_path / "o"
    if command == "ratings":
        _play(app, db, "match", "greedy", "random", "-n", "2", "--game", "tictactoe")
    monkeypatch.setattr(arena_cli, "atomic_write_all", full_disk)
    if command == "ratings":
        code, _, stderr = invoke(app, "ratings", str(db), "--out", str(out))
    else:
        args = ["match", "greedy", "random", "-n", "2", "--game", "tictactoe", "-j", "1"]
        code, _, stderr = invoke(app, *args, "--db", str(db), "--out", str(out))
    assert code == 1
    assert (
        f"Error: cannot write the plots into {out}: No space left on device; the games are kept in {db}"
        in stderr
    )


def test_a_reused_out_folder_keeps_only_this_runs_outputs_and_everything_not_boardlabs(
    app: typer.Typer, tmp_path: Path
) -> None:
    db, out = tmp_path / "a.sqlite", tmp_path / "out"
    out.mkdir()
    kept = {"notes.txt": b"mine", "sprt.png.bak": b"mine", "old-summary.json": b"mine"}
    for name, data in {**kept, "sprt.png": b"an earlier sprt's", "summary.json": b"{}"}.items():
        (out / name).write_bytes(data)
    (out / "keep").mkdir()
    args = ["match", "greedy", "random", "-n", "2", "--game", "tictactoe", "-j", "1", "--db", str(db)]
    code, _, stderr = invoke(app, *args, "--out", str(out))
    assert code == 0, stderr
    written = {"score_matrix.png", "outcomes_by_side.png", "game_lengths.png", "ratings.png", "summary.json"}
    assert {p.name for p in out.iterdir()} == written | set(kept) | {"keep"}  # sprt.png is gone
    assert all((out / name).read_bytes() == data for name, data in kept.items())
    _play(app, db, "match", "greedy", "random", "-n", "2", "--game", "nim")
    code, _, stderr = invoke(app, "ratings", str(db), "--out", str(out))  # two games: a folder each
    assert code == 0, stderr
    assert {p.name for p in out.iterdir()} == set(kept) | {"keep", "tictactoe", "nim"}
    assert {p.name for p in (out / "nim").iterdir()} == written


def test_an_interrupt_while_plotting_leaves_the_folders_outputs_as_they_were(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from boardlab.arena import plots
    from boardlab.arena.summary import summarize
    from boardlab.core import files

    run = match("greedy", "random", 2, game="tictactoe", workers=0)
    summary = summarize(run.config.specs, run.records)
    out = tmp_path / "out"
    arena_cli._write_plots(summary, out, "a.sqlite", "")
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    other = summarize(run.config.specs, run.records[:1])  # other plots, were they written

    def interrupted(*args: Any) -> Any:
        raise KeyboardInterrupt

    with monkeypatch.context() as patched:  # Ctrl-C while the third plot is drawn
        patched.setattr(plots, "game_lengths_figure", interrupted)
        with pytest.raises(KeyboardInterrupt):
            arena_cli._write_plots(other, out, "a.sqlite", "")
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    real, calls = files._write_bytes, []

    def interrupted_at_the_third(handle: Any, data: bytes) -> None:
        calls.append(data)
        if len(calls) == 3:
            raise KeyboardInterrupt
        real(handle, data)

    monkeypatch.setattr(files, "_write_bytes", interrupted_at_the_third)  # Ctrl-C while writing
    with pytest.raises(KeyboardInterrupt):
        arena_cli._write_plots(other, out, "a.sqlite", "")
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before  # no temporary left either


def _stored_pair_scores(db: Path) -> list[float]:
    """The first agent's points in each complete game pair of the one match stored in ``db``."""
    with Store(db) as store:
        [stored] = store.tournaments()
        scores = {record.index: record.score_of(0) for record in store.games(stored["id"])}
    return [scores[i] + scores[i + 1] for i in sorted(scores) if i % 2 == 0 and i + 1 in scores]


def _tictactoe_match(first: str, second: str, tmp_path: Path) -> tuple[list[str], Path, Path]:
    """``match FIRST SECOND`` on Tic-Tac-Toe in one process, into a store and a folder of
    ``tmp_path``: the arguments, the store and the folder."""
    db, out = tmp_path / "arena.sqlite", tmp_path / "out"
    args = ["match", first, second, "--game", "tictactoe", "-j", "1", "--db", str(db), "--out", str(out)]
    return args, db, out


@pytest.mark.timeout(180)
def test_match_sprt_accepts_h1_early_as_the_stored_games_say_and_resumes(
    app: typer.Typer, tmp_path: Path
) -> None:
    common, db, out = _tictactoe_match("perfect", "random", tmp_path)
    assert invoke(app, *common, "-n", "6")[0] == 0  # a plain match first: its games count
    sprt = [*common, "--sprt", "0,200", "-n", "199"]
    code, stdout, stderr = invoke(app, *sprt)
    assert code == 0, stderr
    assert "at most 200 games, in whole pairs" in stderr and "resumed with 6 stored games" in stderr
    assert "SPRT (pentanomial; H0 Elo <= 0, H1 Elo >= 200, alpha 0.05, beta 0.05): H1 accepted" in stdout
    assert "Elo of perfect over random: " in stdout and "pairs scoring 0, ½, 1, 1½, 2 points: " in stdout
    result = json.loads((out / "summary.json").read_text())["sprt"]
    pairs = _stored_pair_scores(db)
    stored = Sprt(0, 200).pentanomial(pairs)  # what the stored games say, computed afresh
    assert result["decision"] == stored.decision == H1_ACCEPTED
    assert result["llr"] == pytest.approx(stored.llr) and result["observations"] == len(pairs)
    assert 6 < result["games"] == 2 * len(pairs) < result["max_games"] == 200  # stopped early
    assert f"{result['games'] - 6} new games, {result['games']} stored" in stdout
    assert str(out / "sprt.png") in stdout and (out / "sprt.png").read_bytes().startswith(b"\x89PNG")
    code, stdout, stderr = invoke(app, *sprt)  # decided: says so and plays nothing
    assert code == 0 and "already decided (H1 accepted), nothing to play" in stderr
    assert f"0 new games, {result['games']} stored" in stdout
    assert json.loads((out / "summary.json").read_text())["sprt"] == result


@pytest.mark.timeout(120)
def test_an_interrupted_sprt_says_where_it_stood_and_resumes(
    app: typer.Typer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = arena_cli.run_tournament

    def interrupted_after_four(*args: Any, **kwargs: Any) -> Any:  # as a Ctrl-C after 4 games
        return dataclasses.replace(real(*args, **kwargs, max_games=4), interrupted=True)

    monkeypatch.setattr(arena_cli, "run_tournament", interrupted_after_four)
    common, db, _ = _tictactoe_match("perfect", "random", tmp_path)
    code, _, stderr = invoke(app, *common, "--sprt", "0,200", "-n", "40")
    assert code == 130, stderr
    expected = Sprt(0, 200).pentanomial(_stored_pair_scores(db))
    standing = f"LLR {expected.llr:+.2f} [{expected.lower:+.2f}, {expected.upper:+.2f}]"
    assert f"Interrupted: 4 of at most 40 games are stored in {db}. The SPRT stood at {standing}." in (
        " ".join(stderr.split())
    )
    monkeypatch.setattr(arena_cli, "run_tournament", real)
    code, _, stderr = invoke(app, *common, "--sprt", "0,200", "-n", "40")
    assert code == 0 and f"resumed with 4 stored games: {standing}" in stderr


@pytest.mark.timeout(180)
@pytest.mark.parametrize(
    ("options", "decision", "games", "most"),
    [
        (["--sprt", "0,200"], "H0 accepted", 10, 10_000),  # every pair 1 point: no stronger, and soon
        (["--sprt", "-200,200", "-n", "7"], "inconclusive", 8, 8),  # level: all 7 games, in whole pairs
        (["--sprt", "-200,200", "-n", "7", "--trinomial"], "inconclusive", 7, 7),
    ],
)
def test_match_sprt_of_equal_agents_accepts_h0_or_ends_inconclusive(
    app: typer.Typer, tmp_path: Path, options: list[str], decision: str, games: int, most: int
) -> None:
    args, _, out = _tictactoe_match("perfect", "perfect", tmp_path)
    code, stdout, stderr = invoke(app, *args, *options)
    assert code == 0, stderr
    result = json.loads((out / "summary.json").read_text())["sprt"]
    assert (result["decision"], result["games"], result["max_games"]) == (decision, games, most)
    assert f"): {decision}" in stdout and f"{games} new games" in stdout
    assert result["sampling"] == ("trinomial" if "--trinomial" in options else "pentanomial")


def test_match_help_tells_the_sprt(app: typer.Typer) -> None:
    code, stdout, _ = invoke(app, "match", "--help")
    text = " ".join(stdout.replace("│", " ").split())
    assert code == 0 and "--sprt" in text and "rounded up to whole pairs" in text
    assert "stopped, not stored" in text and "--alpha" in text and "--trinomial" in text


@pytest.mark.timeout(120)
def test_a_player_file_changed_after_its_stored_games_is_warned_of_on_resume(
    app: typer.Typer, tmp_path: Path
) -> None:
    model = tmp_path / "rules.json"
    model.write_bytes((Path(arena_cli.__file__).parents[1] / "models" / "quixo-rules.json").read_bytes())
    args = [
        "match",
        f"rules:model={model}",
        "random",
        "-n",
        "2",
        "-j",
        "1",
        "--db",
        str(tmp_path / "a.sqlite"),
    ]
    args += ["--out", str(tmp_path / "out")]
    code, _, stderr = invoke(app, *args)
    assert code == 0 and "warning" not in stderr
    code, _, stderr = invoke(app, *args)  # resumed, unchanged: nothing to say
    assert code == 0 and "warning" not in stderr
    later = time.time() + 60
    os.utime(model, (later, later))  # edited after its games
    code, stdout, stderr = invoke(app, *args)
    assert code == 0 and "0 new games, 2 stored" in stdout
    assert f"warning: {model} changed after this tournament's 2 stored games ended" in " ".join(
        stderr.split()
    )


@pytest.mark.timeout(120)
def test_a_game_that_cannot_be_read_is_left_out_by_the_readers_and_named_once(
    app: typer.Typer, tmp_path: Path
) -> None:
    """ratings (with --verify or not) and export go on with the other games, naming it in one
    line on standard error; a run that would resume over it refuses the store before playing."""
    db = tmp_path / "arena.sqlite"
    _play(app, db, "match", "greedy", "random", "-n", "4", "--game", "tictactoe", "--name", "edited")
    with sqlite3.connect(db) as conn:
        conn.execute(
            'UPDATE games SET outcome = \'{"winner": 0, "reason": "resign", "detail": ""}\''
            " WHERE game_index = 2"
        )
        [tournament] = conn.execute("SELECT id FROM tournaments").fetchone()
    conn.close()
    said = (
        f"warning: store {db}: game 2 of tournament {tournament} (edited) is unreadable "
        "('resign' is not a valid Reason); left out"
    )
    for args in (["ratings"], ["ratings", "--verify"], ["export"]):
        code, stdout, stderr = invoke(app, *args, str(db))
        assert code == 0, stderr
        assert [line for line in stderr.splitlines() if "unreadable" in line] == [said]
    code, stdout, _ = invoke(app, "ratings", str(db))
    assert "Ratings (tictactoe): 3 games" in stdout
    code, stdout, _ = invoke(app, "export", str(db))
    assert [json.loads(line)["index"] for line in stdout.splitlines()] == [0, 1, 3]
    code, _, stderr = invoke(
        app, "match", "greedy", "random", "-n", "6", "--game", "tictactoe", "--seed", "5", "--db", str(db),
        "--out", str(tmp_path / "m"), "--name", "edited",
    )  # fmt: skip
    assert code == 2 and "game 2 of tournament" in stderr and "is unreadable" in stderr


def test_tournaments_of_an_empty_store_says_so_without_a_filter(
    app: typer.Typer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # a short path, said whole
    empty = Path("e.sqlite")
    empty.write_bytes(b"")
    code, _, stderr = invoke(app, "tournaments", str(empty))
    assert code == 2 and stderr.splitlines() == [f"Error: {empty} holds no tournament"]
    assert empty.read_bytes() == b""  # read, never written


def test_a_store_and_an_out_folder_of_the_same_path_are_refused_as_such(
    app: typer.Typer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # a short path, said whole
    same = Path("x.sqlite")
    message = (
        f"Error: --db and --out name the same path, {same}: the store is a file and --out the folder "
        "its plots and summary.json are written into; name another --out"
    )
    code, _, stderr = invoke(app, "match", "greedy", "random", "--game", "tictactoe", "-n", "2",
                              "--db", str(same), "--out", str(same))  # fmt: skip
    assert code == 2 and stderr.replace("\n", " ").strip() == message
    assert not same.exists()  # no folder made where the store was to be
    assert match("greedy", "random", 2, game="tictactoe", store=same, workers=0).played == 2
    for args in (["match", "greedy", "random", "--game", "tictactoe", "-n", "2", "--db"], ["ratings"]):
        code, _, stderr = invoke(app, *args, str(same), "--out", str(same))
        assert code == 2 and stderr.replace("\n", " ").strip() == message
    assert same.is_file()


@pytest.mark.timeout(120)
def test_an_odd_count_of_games_warns_that_an_opening_is_played_with_one_colour(
    app: typer.Typer, tmp_path: Path
) -> None:
    suite = tmp_path / "suite.txt"
    suite.write_text("b2\na1\n")
    stderr = _play_stderr(app, tmp_path, "match", "greedy", "random", "-n", "3", "--openings", str(suite))
    assert stderr.splitlines()[0] == (
        "warning: with 3 games, opening 2 of the suite is played with one colour only (each opening "
        "is played once with each colour: an even count plays every one with both)"
    )
    stderr = _play_stderr(app, tmp_path, "tournament", "greedy", "random", "mcts:iters=5", "-n", "5")
    assert stderr.startswith("warning: with 5 games a pair, the last opening is played with one colour only")
    for args in (["-n", "4", "--openings", str(suite)], ["-n", "3", "--opening-plies", "0"]):
        stderr = _play_stderr(app, tmp_path, "match", "greedy", "random", *args)
        assert "warning" not in stderr
    suite.write_text("b2\na1\nb2\n")
    stderr = _play_stderr(app, tmp_path, "match", "greedy", "random", "-n", "6", "--openings", str(suite))
    assert stderr.splitlines()[0] == (
        f"warning: {suite}: line 3 repeats line 1; a repeated opening is played again in its turn"
    )


def _play_stderr(app: typer.Typer, tmp_path: Path, *args: str) -> str:
    """Standard error of a command of Tic-Tac-Toe games that keeps none."""
    code, _, stderr = invoke(
        app, *args, "--game", "tictactoe", "-j", "1", "--db", ":memory:", "--out", str(tmp_path / "o")
    )
    assert code == 0, stderr
    return stderr


class _FirstWorkerKilled(LocalBackend):
    """The local backend, whose first worker process of each pool is killed as it starts."""

    def game_pool(self, *args: Any, **kwargs: Any) -> WorkerPool[Any, Any]:
        pool = super().game_pool(*args, **kwargs)
        pool._workers[0].process.kill()
        return pool


def test_a_worker_process_lost_before_play_is_said_in_one_line(
    app: typer.Typer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(arena_cli, "open_backend", lambda *args: _FirstWorkerKilled())
    args = ["match", "random", "greedy", "--game", "tictactoe", "-n", "2", "-j", "1"]
    code, out, err = invoke(app, *args, "--db", str(tmp_path / "a.sqlite"), "--out", str(tmp_path / "out"))
    assert code == 0, err
    assert "1 worker process lost and replaced\n" in err
    assert "2 new games" in out


def _invoked_through_ctrl_c(app: typer.Typer, *args: str) -> tuple[int, str, str]:
    """:func:`invoke`, failing the test (not stopping the session) if a KeyboardInterrupt escapes."""
    try:
        return invoke(app, *args)
    except KeyboardInterrupt:
        pytest.fail("a Ctrl-C escaped the command: only a bare 'Interrupted.' would be said")


@pytest.mark.timeout(120)
def test_ctrl_c_once_the_sprt_decided_says_every_game_it_needed_is_stored(
    app: typer.Typer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = arena_cli.run_tournament

    def interrupted_as_play_stops(*args: Any, **kwargs: Any) -> Any:  # a Ctrl-C while the pool closes
        return dataclasses.replace(real(*args, **kwargs), interrupted=True)

    monkeypatch.setattr(arena_cli, "run_tournament", interrupted_as_play_stops)
    common, db, _ = _tictactoe_match("perfect", "random", tmp_path)
    code, _, stderr = invoke(app, *common, "--sprt", "0,200")
    assert code == 130, stderr
    with Store(db) as store:
        (tournament,) = store.tournaments()
    said = " ".join(stderr.split())
    assert (
        f"Interrupted: all {tournament['games']} games the SPRT needed are stored in {db}; "
        "run the same command again to write the report"
    ) in said


def test_ctrl_c_while_the_report_is_written_says_every_game_is_stored(
    app: typer.Typer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def interrupted(*args: Any, **kwargs: Any) -> Any:
        raise KeyboardInterrupt  # as Ctrl-C while the plots are drawn

    monkeypatch.setattr(arena_cli, "_write_plots", interrupted)
    common, db, out = _tictactoe_match("greedy", "random", tmp_path)
    code, _, stderr = _invoked_through_ctrl_c(app, *common, "-n", "2")
    assert code == 130, stderr
    said = " ".join(stderr.split())
    assert (
        f"Interrupted: all 2 games are stored in {db}; run the same command again to write the report" in said
    )
    assert not (out / "summary.json").exists()


class _InterruptedWhileClosing(LocalBackend):
    """The local backend, a Ctrl-C arriving as it closes (as while a Ray instance shuts down)."""

    def close(self) -> None:
        signal.raise_signal(signal.SIGINT)
        super().close()


def test_ctrl_c_while_the_backend_closes_after_the_report_ends_the_command_normally(
    app: typer.Typer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(arena_cli, "open_backend", lambda *args: _InterruptedWhileClosing())
    common, _, out = _tictactoe_match("greedy", "random", tmp_path)
    code, stdout, stderr = _invoked_through_ctrl_c(app, *common, "-n", "2")
    assert code == 0, stderr
    assert "2 new games" in stdout and (out / "summary.json").is_file()
