"""``boardlab export``: the stored games as JSON Lines, read back as the store holds them, or as
CSV, one row a game that says what the JSON Lines say."""

from __future__ import annotations

import csv
import dataclasses
import io
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from boardlab.arena import match
from boardlab.arena.play import GameRecord
from boardlab.arena.store import Store
from boardlab.ui.cli import app

runner = CliRunner()


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three tournaments: Tic-Tac-Toe (3 games), Nim (2, named "piles") and a Tic-Tac-Toe
    self-play game (which ratings leave out and export keeps)."""
    db = tmp_path_factory.mktemp("export") / "arena.sqlite"
    assert match("greedy", "random", 3, game="tictactoe", store=db, workers=0).played == 3
    assert match("greedy", "random", 2, game="nim", store=db, workers=0, name="piles").played == 2
    assert match("random", "random", 1, game="tictactoe", store=db, workers=0, seed=5).played == 1
    return db


def _stored(db: Path) -> list[GameRecord]:
    with Store(db, read_only=True) as opened:
        return [record for t in opened.tournaments() for record in opened.games(t["id"])]


def _read(text: str) -> list[GameRecord]:
    return [GameRecord.from_json(line) for line in text.splitlines()]


def test_every_stored_game_is_a_line_that_reads_back_as_stored(store: Path) -> None:
    before = store.read_bytes()
    result = runner.invoke(app, ["export", str(store)])
    assert result.exit_code == 0, result.output
    assert result.stderr == ""  # standard output holds the games and nothing else
    assert _read(result.stdout) == _stored(store) and len(_stored(store)) == 6
    first = json.loads(result.stdout.splitlines()[0])
    assert first["game"] == "tictactoe" and first["outcome"]["reason"] in ("rule", "ply_cap")
    assert [r.index for r in _read(result.stdout)] == [0, 1, 2, 0, 1, 0]  # tournaments in order
    assert store.read_bytes() == before  # read, never written


def test_game_and_tournament_choose_the_games(store: Path) -> None:
    ttt = runner.invoke(app, ["export", str(store), "--game", "tictactoe"])
    assert ttt.exit_code == 0, ttt.output
    assert [r.game for r in _read(ttt.stdout)] == ["tictactoe"] * 4
    assert {r.first_spec for r in _read(ttt.stdout)} == {"greedy", "random"}  # self-play kept
    named = runner.invoke(app, ["export", str(store), "--tournament", "piles"])
    assert named.exit_code == 0, named.output
    assert [(r.game, r.index) for r in _read(named.stdout)] == [("nim", 0), ("nim", 1)]
    by_id = runner.invoke(app, ["export", str(store), "--tournament", _read(named.stdout)[0].tournament_id])
    assert by_id.stdout == named.stdout


def test_out_writes_the_same_lines_into_a_file(store: Path, tmp_path: Path) -> None:
    target = tmp_path / "games.jsonl"
    result = runner.invoke(app, ["export", str(store), "--out", str(target)])
    assert result.exit_code == 0, result.output
    assert result.stdout == "" and result.stderr.strip() == f"wrote 6 games to {target}"
    assert target.read_text() == runner.invoke(app, ["export", str(store)]).stdout
    assert [p.name for p in tmp_path.iterdir()] == ["games.jsonl"]  # no temporary left


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["{tmp}/none.sqlite"], "no such store"),
        (["{store}", "--game", "chess"], "--game: unknown game 'chess'"),
        (
            ["{store}", "--game", "connect4"],
            "holds no games with these options; it holds: nim (piles), tictactoe",
        ),
        (["{store}", "--tournament", "nothing"], "holds no games with these options"),
        (["{store}", "--out", "{store}"], "is the store itself"),
        (["{store}", "--out", "{store}/games.jsonl"], "is a file, not a folder"),
        (["{store}", "--out", "{tmp}"], "--out"),
        (["{store}", "--format", "xml"], "--format is one of jsonl, csv, got 'xml'"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(store: Path, tmp_path: Path, args: list[str], message: str) -> None:
    before = store.read_bytes()
    args = [a.replace("{store}", str(store)).replace("{tmp}", str(tmp_path)) for a in args]
    result = runner.invoke(app, ["export", *args])
    assert result.exit_code == 2, result.output
    text = result.output.strip()
    assert message in text and len(text.splitlines()) == 1, text
    assert store.read_bytes() == before


def test_csv_is_a_row_a_game_that_says_what_the_json_lines_say(store: Path, tmp_path: Path) -> None:
    jsonl = runner.invoke(app, ["export", str(store)])
    target = tmp_path / "games.csv"
    result = runner.invoke(app, ["export", str(store), "--format", "csv", "--out", str(target)])
    assert result.exit_code == 0, result.output
    assert result.stderr.strip() == f"wrote 6 games to {target}"
    with target.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert target.read_text() == runner.invoke(app, ["export", str(store), "--format", "csv"]).stdout
    records = _read(jsonl.stdout)
    assert len(rows) == len(records) == 6
    with Store(store, read_only=True) as opened:
        names = {t["id"]: t["name"] for t in opened.tournaments()}
    assert names[records[3].tournament_id] == "piles"
    for row, record in zip(rows, records, strict=True):
        expected = {
            "tournament_id": record.tournament_id,
            "tournament": names[record.tournament_id],
            "index": str(record.index),
            "game": record.game,
            "first_spec": record.first_spec,
            "second_spec": record.second_spec,
            "first_score": {1.0: "1", 0.5: "0.5", 0.0: "0"}[record.outcome.score_for(0)],
            "reason": record.outcome.reason.value,
            "detail": record.outcome.detail,
            "plies": str(record.plies),
            "started": record.started,
            "finished": record.finished,
        }
        assert {key: row[key] for key in expected} == expected
        assert tuple(row["opening"].split()) == record.opening and tuple(row["moves"].split()) == record.moves


def test_a_csv_field_with_commas_quotes_and_line_breaks_reads_back_whole(tmp_path: Path) -> None:
    from boardlab.arena.export import games_csv

    record = _read(runner.invoke(app, ["export", str(_one_game_store(tmp_path))]).stdout)[0]
    odd = dataclasses.replace(record, first_spec='alphabeta:depth=3,time=0.5 "a"')
    text = games_csv([odd], {record.tournament_id: "class, quixo\nsecond line"})
    (row,) = csv.DictReader(io.StringIO(text, newline=""))
    assert (row["first_spec"], row["tournament"]) == (odd.first_spec, "class, quixo\nsecond line")


def _one_game_store(tmp_path: Path) -> Path:
    db = tmp_path / "one.sqlite"
    assert match("greedy", "random", 1, game="tictactoe", store=db, workers=0).played == 1
    return db
