"""One tournament however it is typed: its players' specs in one text, a store of an older
version's spellings resumed under its own key, a name given kept, a player added by a gauntlet."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
import typer
from arena_helpers import arena_app, invoke

from boardlab.arena import match
from boardlab.arena.play import play_game
from boardlab.arena.schedule import TournamentConfig, iter_schedule
from boardlab.arena.store import Store
from boardlab.arena.summary import pooled_games

MCTS_SPELLINGS = ("mcts:iters=20", "mcts:iters=20,c=1.4", "mcts:c=1.4,iters=20", "MCTS: iters=20")
"""One agent, written four ways (1.4 is MCTS's default c)."""


@pytest.fixture
def app() -> typer.Typer:
    return arena_app()


def _play(app: typer.Typer, db: Path, *args: str) -> tuple[str, str]:
    code, stdout, stderr = invoke(
        app, *args, "--game", "tictactoe", "-j", "1", "--db", str(db), "--out", str(db.parent / "out")
    )
    assert code == 0, stderr
    return stdout, stderr


def _as_an_older_version_stored(store: Store, specs: tuple[str, ...], games: int, **options: object) -> str:
    """Store a tournament of ``specs`` as a version that kept them as typed did: its specs, its
    key and its games' specs in the text given. Its key."""
    config = TournamentConfig(specs, games, game="tictactoe", **options)  # type: ignore[arg-type]
    object.__setattr__(config, "specs", tuple(specs))  # the text as typed, before it had one text
    with sqlite3.connect(store.path) as conn:  # keyed by that text, whatever is stored already
        conn.execute(
            "INSERT INTO tournaments (id, name, game, specs, seed, opening_plies, created)"
            " VALUES (?, ?, ?, ?, ?, ?, '2026-01-01T00:00:00+00:00')",
            (config.tournament_id, config.label, config.game, json.dumps(specs), config.seed, 2),
        )
    conn.close()
    for task in iter_schedule(config):
        store.add_game(play_game(task))
    return config.tournament_id


def test_the_specs_of_a_tournament_are_kept_in_one_text() -> None:
    configs = [TournamentConfig((spec, "Greedy"), 2, game="tictactoe") for spec in MCTS_SPELLINGS]
    assert {c.specs for c in configs} == {("mcts:iters=20", "greedy")}
    assert len({c.tournament_id for c in configs}) == 1
    assert configs[0].label == "mcts:iters=20 vs greedy"
    unknown = TournamentConfig(("nosuch-agent:x=1 ", "random"), 1)
    assert unknown.specs == ("nosuch-agent:x=1", "random")  # kept as written, refused when played


@pytest.mark.timeout(120)
def test_a_match_typed_another_way_resumes_and_its_games_count_once(
    app: typer.Typer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # short paths: the report's lines are not wrapped
    db = Path("arena.sqlite")
    outputs = [_play(app, db, "match", spec, "greedy", "-n", "4")[0] for spec in MCTS_SPELLINGS]
    assert "4 new games" in outputs[0] and all("0 new games, 4 stored" in o for o in outputs[1:])
    with Store(db) as store:
        [stored] = store.tournaments()
    assert stored["specs"] == ["mcts:iters=20", "greedy"] and stored["games"] == 4
    assert all(f"(tournament {stored['id']})" in o for o in outputs)
    _play(app, db, "tournament", "Greedy", "random", "MCTS: iters=20", "-n", "2")
    stdout, _ = _play(app, db, "tournament", "greedy", "random", "mcts:iters=20", "-n", "2")
    assert "0 new games, 6 stored" in stdout
    code, stdout, _ = invoke(app, "ratings", str(db))
    assert code == 0 and "Ratings (tictactoe): 10 games" in stdout


@pytest.mark.timeout(120)
def test_a_tournament_an_older_version_stored_as_typed_is_resumed_under_its_key(
    app: typer.Typer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not played again: the command finds it by what it is, goes on under its stored key, and
    the tables name the players in their one text."""
    monkeypatch.chdir(tmp_path)
    db = Path("arena.sqlite")
    with Store(db) as store:
        old = _as_an_older_version_stored(store, ("mcts:c=1.4,iters=20", "Greedy"), 4)
    assert old != TournamentConfig(("mcts:iters=20", "greedy"), 4, game="tictactoe").tournament_id
    stdout, _ = _play(app, db, "match", "mcts:iters=20", "greedy", "-n", "6")
    assert f"2 new games, 6 stored in {db} (tournament {old})" in stdout
    assert "mcts:iters=20 vs greedy" in stdout and "c=1.4" not in stdout and "Greedy" not in stdout
    with Store(db) as store:
        [stored] = store.tournaments()
        assert (stored["id"], stored["games"], stored["name"]) == (old, 6, "mcts:iters=20 vs greedy")
        assert [r.index for r in store.games(old)] == list(range(6))
    stdout, _ = _play(app, db, "match", "MCTS:iters=20", "greedy", "-n", "6")
    assert f"0 new games, 6 stored in {db} (tournament {old})" in stdout


def test_tournaments_an_older_version_stored_twice_count_each_game_once(tmp_path: Path) -> None:
    """An older version played one tournament again under another spelling: the same games,
    rated once; another seed is another tournament, rated apart."""
    with Store(tmp_path / "arena.sqlite") as store:
        for specs in (("mcts:iters=20", "greedy"), ("mcts:c=1.4,iters=20", "greedy")):
            _as_an_older_version_stored(store, specs, 2)
        _as_an_older_version_stored(store, ("MCTS: iters=20", "greedy"), 2, seed=1)
        assert len(store.tournaments()) == 3
        players, games = pooled_games(store, "tictactoe")
    assert players == ["mcts:iters=20", "greedy"] and len(games) == 4


@pytest.mark.timeout(120)
def test_a_name_given_on_resuming_renames_the_tournament_in_the_store(
    app: typer.Typer, tmp_path: Path
) -> None:
    db = tmp_path / "arena.sqlite"
    _play(app, db, "match", "greedy", "random", "-n", "2", "--name", "Classe 2ᵉ…")
    stdout, stderr = _play(app, db, "match", "greedy", "random", "-n", "2", "--name", "Renamed")
    with Store(db) as store:
        [stored] = store.tournaments()
    assert stderr.splitlines()[0] == f"renamed tournament {stored['id']} from 'Classe 2ᵉ…' to 'Renamed'"
    assert stored["name"] == "Renamed" and "Ratings (Renamed): 2 games" in stdout
    code, stdout, stderr = invoke(app, "ratings", str(db), "--tournament", "Renamed")
    assert code == 0 and "Ratings (tictactoe, Renamed): 2 games" in stdout, stderr
    stdout, stderr = _play(app, db, "match", "greedy", "random", "-n", "4")  # no --name: it keeps its name
    assert "Ratings (Renamed): 4 games" in stdout and "renamed" not in stderr
    code, stdout, _ = invoke(app, "tournaments", str(db), "--json")
    assert [t["name"] for t in json.loads(stdout)] == ["Renamed"]


@pytest.mark.timeout(120)
def test_a_player_joins_a_tournament_by_a_gauntlet_of_the_same_name(app: typer.Typer, tmp_path: Path) -> None:
    """The players are the tournament: a new one plays the others in a gauntlet named alike, and
    the ratings of the name pool both."""
    db = tmp_path / "arena.sqlite"
    _play(app, db, "tournament", "greedy", "random", "-n", "2", "--name", "cup")
    _play(
        app, db, "tournament", "mcts:iters=20", "greedy", "random", "--gauntlet", "-n", "2", "--name", "cup"
    )
    with sqlite3.connect(db) as conn:
        assert conn.execute(
            "SELECT COUNT(*), COUNT(DISTINCT id) FROM tournaments WHERE name = 'cup'"
        ).fetchone() == (2, 2)
    conn.close()
    code, stdout, stderr = invoke(app, "ratings", str(db), "--tournament", "cup")
    assert code == 0 and "Ratings (tictactoe, cup): 6 games" in stdout, stderr
    assert "Score matrix" in stdout  # the two tournaments' three players, not a gauntlet's table
    rows = [line.split("│")[2].strip() for line in stdout.splitlines() if line.startswith("│")]
    assert {"greedy", "random", "mcts:iters=20"} <= set(rows)


def test_python_s_match_resumes_a_tournament_typed_another_way(tmp_path: Path) -> None:
    db = tmp_path / "arena.sqlite"
    first = match("MCTS: iters=20", "Greedy", 2, game="tictactoe", store=db, workers=0)
    again = match("mcts:iters=20,c=1.4", "greedy", 2, game="tictactoe", store=db, workers=0)
    assert (first.played, again.played, again.already_stored) == (2, 0, 2)
    assert again.config.tournament_id == first.config.tournament_id
