"""Store schema migrations: a schema 1 store opens, is migrated in one transaction and keeps
every game; a store newer than the code is refused; the record's columns derive from GameRecord."""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from pathlib import Path

import pytest

from boardlab.arena import store as store_module
from boardlab.arena.play import GameRecord
from boardlab.arena.schedule import GAUNTLET, TournamentConfig
from boardlab.arena.store import SCHEMA_VERSION, Store, StoreError
from boardlab.arena.summary import summarize
from boardlab.games import Outcome, Reason

# The schema of version 1, as store.py wrote it (do not edit: it is what old files hold).
V1_SCHEMA = """
CREATE TABLE arena_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE tournaments (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    game TEXT NOT NULL,
    specs TEXT NOT NULL,
    seed INTEGER NOT NULL,
    opening_plies INTEGER NOT NULL,
    created TEXT NOT NULL
);
CREATE TABLE games (
    tournament_id TEXT NOT NULL REFERENCES tournaments(id),
    game_index INTEGER NOT NULL,
    game TEXT NOT NULL,
    first_player INTEGER NOT NULL,
    second_player INTEGER NOT NULL,
    first_spec TEXT NOT NULL,
    second_spec TEXT NOT NULL,
    first_seed INTEGER NOT NULL,
    second_seed INTEGER NOT NULL,
    opening_index INTEGER NOT NULL,
    opening TEXT NOT NULL,
    moves TEXT NOT NULL,
    winner INTEGER CHECK (winner IS NULL OR winner IN (0, 1)),
    plies INTEGER NOT NULL,
    move_times TEXT NOT NULL,
    started TEXT NOT NULL,
    finished TEXT NOT NULL,
    PRIMARY KEY (tournament_id, game_index)
);
"""
V1_COLUMNS = (
    "tournament_id, game_index, game, first_player, second_player, first_spec, second_spec, "
    "first_seed, second_seed, opening_index, opening, moves, winner, plies, move_times, started, finished"
)
V2_COLUMNS = {
    *(c.strip() for c in V1_COLUMNS.split(",")),
    "outcome",
}
TID = "0123456789abcdef"
# (index, first, second, winner, plies): a win for each colour and a game stopped at the ply cap
V1_GAMES = [(0, 0, 1, 0, 3), (1, 1, 0, 1, 4), (2, 0, 1, None, 200)]


def _moves(plies: int) -> tuple[str, ...]:
    return tuple(("a1e1", "b1b5")[i % 2] for i in range(plies))


def write_v1_store(path: Path, schema_version: str = "1") -> None:
    """A store as boardlab schema 1 wrote it, through raw SQL."""
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.executescript(
        "BEGIN;"
        + V1_SCHEMA
        + "INSERT INTO arena_meta VALUES ('application', 'boardlab-arena');"
        + f"INSERT INTO arena_meta VALUES ('schema_version', '{schema_version}');"
        + "COMMIT;"
    )
    with conn:
        conn.execute(
            "INSERT INTO tournaments VALUES (?, ?, ?, ?, ?, ?, ?)",
            (TID, "old", "quixo", json.dumps(["random", "greedy"]), 4, 2, "2025-12-31T00:00:00+00:00"),
        )
        for index, first, second, winner, plies in V1_GAMES:
            moves = _moves(plies)
            conn.execute(
                f"INSERT INTO games ({V1_COLUMNS}) VALUES ({', '.join('?' * 17)})",
                (
                    TID,
                    index,
                    "quixo",
                    first,
                    second,
                    ("random", "greedy")[first],
                    ("random", "greedy")[second],
                    2**62 + index,
                    index,
                    index // 2,
                    " ".join(moves[:2]),
                    " ".join(moves),
                    winner,
                    plies,
                    json.dumps([0.25] * (plies - 2)),
                    "2026-01-01T00:00:00.000+00:00",
                    "2026-01-01T00:00:01.000+00:00",
                ),
            )
    conn.close()


def _meta_and_columns(path: Path) -> tuple[str, set[str]]:
    with sqlite3.connect(path) as conn:
        version = conn.execute("SELECT value FROM arena_meta WHERE key = 'schema_version'").fetchone()[0]
        columns = {row[1] for row in conn.execute("PRAGMA table_info(games)")}
    return version, columns


def test_a_v1_store_is_migrated_and_keeps_every_game(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    write_v1_store(path)
    with Store(path) as store:
        records = store.games(TID)
        assert [r.index for r in records] == [0, 1, 2]
        assert [r.outcome for r in records] == [
            Outcome(0, Reason.RULE, ""),
            Outcome(1, Reason.RULE, ""),
            Outcome(None, Reason.PLY_CAP, "200 plies"),
        ]
        assert [r.winner for r in records] == [0, 1, None]
        assert [r.winner_player for r in records] == [0, 0, None]
        old = records[2]
        assert old.moves == _moves(200) and old.opening == _moves(2) and old.plies == 200
        assert old.move_times == (0.25,) * 198 and old.first_seed == 2**62 + 2
        assert [(t["games"], t["pairing"]) for t in store.tournaments()] == [(3, "round-robin")]
        # the migrated store takes new games like a new one
        new = dataclasses.replace(old, index=3, outcome=Outcome(1, Reason.FORFEIT, "illegal move"))
        assert store.add_game(new)
        assert store.games(TID)[3] == new
    assert _meta_and_columns(path) == (str(SCHEMA_VERSION), V2_COLUMNS)
    with sqlite3.connect(path) as conn:
        winners = [w for (w,) in conn.execute("SELECT winner FROM games ORDER BY game_index")]
    assert winners == [0, 1, None, 1]  # the SQL column follows the outcome
    with Store(path) as store:  # opening again changes nothing
        assert [r.outcome.reason for r in store.games(TID)] == [
            Reason.RULE,
            Reason.RULE,
            Reason.PLY_CAP,
            Reason.FORFEIT,
        ]
        summary = summarize(("random", "greedy"), store.games(TID))
    assert summary.endings == (("rule", 2, 0), ("forfeit", 1, 0), ("ply_cap", 0, 1))


def test_a_new_store_has_the_columns_of_a_migrated_one(tmp_path: Path) -> None:
    Store(tmp_path / "new.sqlite").close()
    assert _meta_and_columns(tmp_path / "new.sqlite") == (str(SCHEMA_VERSION), V2_COLUMNS)


def test_a_failed_migration_leaves_the_store_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "old.sqlite"
    write_v1_store(path)

    def broken_step(conn: sqlite3.Connection) -> None:
        store_module._migrate_1_to_2(conn)
        raise RuntimeError("disk on fire")

    monkeypatch.setitem(store_module._MIGRATIONS, 1, broken_step)
    with pytest.raises(RuntimeError, match="disk on fire"):
        Store(path)
    version, columns = _meta_and_columns(path)
    assert version == "1" and "outcome" not in columns
    monkeypatch.undo()
    with Store(path) as store:
        assert len(store.games(TID)) == 3


@pytest.mark.parametrize("version", [str(SCHEMA_VERSION + 1), "99"])
def test_a_store_from_a_newer_boardlab_is_refused(tmp_path: Path, version: str) -> None:
    path = tmp_path / "future.sqlite"
    write_v1_store(path, schema_version=version)
    before = path.read_bytes()
    with pytest.raises(StoreError, match=rf"{path}: schema version {version} .*newer boardlab.*upgrade"):
        Store(path)
    assert path.read_bytes() == before


def test_an_unreadable_schema_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "odd.sqlite"
    write_v1_store(path, schema_version="one")
    with pytest.raises(StoreError, match="unreadable schema version 'one'"):
        Store(path)


def test_a_store_lacking_a_record_column_is_refused(tmp_path: Path) -> None:
    # what a GameRecord field added without a schema version and a migration would meet
    path = tmp_path / "short.sqlite"
    write_v1_store(path, schema_version=str(SCHEMA_VERSION))
    with pytest.raises(StoreError, match="lacks the columns outcome"):
        Store(path)


def write_v2_store(path: Path, schema_version: str = "2") -> None:
    """A store as boardlab schema 2 wrote it: schema 1 and its first step."""
    write_v1_store(path)
    with sqlite3.connect(path) as conn:
        store_module._migrate_1_to_2(conn)
        conn.execute("UPDATE arena_meta SET value = ? WHERE key = 'schema_version'", (schema_version,))
    conn.close()


def _tournament_columns(path: Path) -> list[str]:
    with sqlite3.connect(path) as conn:
        columns = [row[1] for row in conn.execute("PRAGMA table_info(tournaments)")]
    conn.close()
    return columns


def test_a_v2_store_reads_as_round_robins_and_takes_a_gauntlet(tmp_path: Path) -> None:
    path = tmp_path / "v2.sqlite"
    write_v2_store(path)
    before = path.read_bytes()
    with Store(path, read_only=True) as store:  # migrated in a copy: the file is not written
        assert [(t["id"], t["pairing"], t["openings"]) for t in store.tournaments()] == [
            (TID, "round-robin", [])
        ]
    assert path.read_bytes() == before and "pairing" not in _tournament_columns(path)
    gauntlet = TournamentConfig(("greedy", "random", "random"), 2, pairing=GAUNTLET)
    with Store(path) as store:
        store.register_tournament(gauntlet)
        listed = {t["id"]: t["pairing"] for t in store.tournaments()}
        assert len(store.games(TID)) == 3
    assert listed == {TID: "round-robin", gauntlet.tournament_id: "gauntlet"}
    assert _meta_and_columns(path)[0] == str(SCHEMA_VERSION)
    assert {"pairing", "openings"} <= set(_tournament_columns(path))


def test_a_v3_store_reads_without_clocks_and_takes_a_clocked_tournament(tmp_path: Path) -> None:
    path = tmp_path / "v3.sqlite"
    write_v2_store(path)
    with sqlite3.connect(path) as conn:
        store_module._migrate_2_to_3(conn)
        conn.execute("UPDATE arena_meta SET value = '3' WHERE key = 'schema_version'")
    conn.close()
    before = path.read_bytes()
    with Store(path, read_only=True) as store:
        assert [(t["id"], t["time_control"]) for t in store.tournaments()] == [(TID, "")]
    assert path.read_bytes() == before and "time_control" not in _tournament_columns(path)
    clocked = TournamentConfig(("greedy", "random"), 2, time_control="30+0.25")
    with Store(path) as store:
        store.register_tournament(clocked)
        listed = {t["id"]: t["time_control"] for t in store.tournaments()}
        assert len(store.games(TID)) == 3
    assert listed == {TID: "", clocked.tournament_id: "30+0.25"}
    assert _meta_and_columns(path)[0] == str(SCHEMA_VERSION) == "4"


@pytest.mark.parametrize("read_only", [False, True])
def test_a_store_lacking_the_pairing_column_is_refused(tmp_path: Path, read_only: bool) -> None:
    path = tmp_path / "short.sqlite"
    write_v2_store(path, schema_version=str(SCHEMA_VERSION))
    with pytest.raises(
        StoreError, match="its tournaments table lacks the columns pairing, openings, time_control"
    ):
        Store(path, read_only=read_only)


def test_record_json_round_trip_and_content() -> None:
    record = GameRecord(
        tournament_id=TID,
        index=5,
        game="quixo:size=4",
        first_player=1,
        second_player=0,
        first_spec="greedy",
        second_spec="random",
        first_seed=1,
        second_seed=2,
        opening_index=2,
        opening=("a1e1",),
        moves=("a1e1", "b1b5"),
        outcome=Outcome(None, Reason.REPETITION, "third time"),
        plies=2,
        move_times=(0.5,),
        started="s",
        finished="f",
    )
    assert GameRecord.from_json(record.to_json()) == record
    assert record.score_of(0) == record.score_of(1) == 0.5
    timed = dataclasses.replace(record, move_times=(9.0,), started="t", finished="g")
    assert timed.game_content() == record.game_content()
    assert record.outcome in record.game_content() and 0.5 not in record.game_content()
    with Store() as store:
        assert store.add_game(record) and not store.add_game(record)
        assert store.games(TID) == [record]
        with pytest.raises(ValueError, match="one word"):
            store.add_game(dataclasses.replace(record, index=6, moves=("a1 e1",)))


def test_a_read_only_store_migrates_a_copy_and_never_writes_the_file(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    write_v1_store(path)
    before = path.read_bytes()
    with Store(path, read_only=True) as store:
        assert [r.outcome.reason for r in store.games(TID)] == [Reason.RULE, Reason.RULE, Reason.PLY_CAP]
    assert path.read_bytes() == before
    empty = tmp_path / "empty.dat"
    empty.write_bytes(b"")
    with Store(empty, read_only=True) as store:  # an empty file: a store without games
        assert store.tournaments() == []
    assert empty.read_bytes() == b"" and not list(tmp_path.glob("empty.dat?*"))  # no journal either
