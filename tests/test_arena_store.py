"""The SQLite game store: round trip, one row per game, and clear errors for unusable files."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

import pytest

from boardlab.arena.play import GameRecord
from boardlab.arena.schedule import TournamentConfig
from boardlab.arena.store import Store, StoreError, write_schema
from boardlab.games import Outcome, Reason

CONFIG = TournamentConfig(("random", "greedy"), 2, seed=4, name="store test")


def _outcome(winner: int | None) -> Outcome:
    if winner is None:
        return Outcome(None, Reason.PLY_CAP, "200 plies")
    return Outcome(winner, Reason.RULE, "a complete line")


def _record(index: int = 0, winner: int | None = 1) -> GameRecord:
    return GameRecord(
        tournament_id=CONFIG.tournament_id,
        index=index,
        game="quixo",
        first_player=0,
        second_player=1,
        first_spec="random",
        second_spec="greedy",
        first_seed=2**62 + 5,
        second_seed=17,
        opening_index=0,
        opening=("a1e1", "b1b5"),
        moves=("a1e1", "b1b5", "c1c5"),
        outcome=_outcome(winner),
        plies=3,
        move_times=(0.25,),
        started="2026-01-01T00:00:00.000+00:00",
        finished="2026-01-01T00:00:01.000+00:00",
    )


def test_records_round_trip_and_are_stored_once(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "arena.sqlite"
    with Store(path) as store:
        store.register_tournament(CONFIG)
        assert store.add_game(_record(0))
        assert store.add_game(_record(1, winner=None))
        assert not store.add_game(_record(0, winner=0))  # same key: ignored, not double counted
    with Store(path) as store:
        assert store.games(CONFIG.tournament_id) == [_record(0), _record(1, winner=None)]
        assert store.stored_indices(CONFIG.tournament_id) == {0, 1}
        assert store.games(CONFIG.tournament_id, below=1) == [_record(0)]
        [listed] = store.tournaments()
        assert (
            listed["name"] == "store test"
            and listed["games"] == 2
            and listed["specs"] == ["random", "greedy"]
        )


def test_store_uses_wal(tmp_path: Path) -> None:
    path = tmp_path / "arena.sqlite"
    Store(path).close()
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_a_store_that_another_command_creates_meanwhile_is_opened(tmp_path: Path) -> None:
    # two commands given the same new --db: the other one is creating the tables while this one
    # sees an empty file (it holds the write lock, and commits a moment later)
    path = tmp_path / "arena.sqlite"
    other = sqlite3.connect(path, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")

    def create() -> None:
        time.sleep(0.3)
        write_schema(other)
        other.commit()

    creator = threading.Thread(target=create)
    creator.start()
    try:
        with Store(path) as store:
            store.register_tournament(CONFIG)
            assert store.add_game(_record(0))
    finally:
        creator.join()
        other.close()
    with Store(path) as store:
        assert store.games(CONFIG.tournament_id) == [_record(0)]


def test_garbage_file_is_rejected(tmp_path: Path) -> None:
    path = tmp_path / "arena.sqlite"
    path.write_bytes(b"this is not a database at all" * 200)
    with pytest.raises(StoreError, match="not a usable SQLite database"):
        Store(path)


@pytest.mark.parametrize("read_only", [False, True])
def test_a_damaged_schema_is_refused_in_one_line(tmp_path: Path, read_only: bool) -> None:
    # SQLite quotes the damaged table's statement, line breaks and all
    path = tmp_path / "arena.sqlite"
    Store(path).close()
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA writable_schema=ON")
        conn.execute("UPDATE sqlite_master SET sql = replace(sql, 'opening', '[opening') WHERE name='games'")
    with pytest.raises(StoreError, match="not a usable SQLite database") as refused:
        Store(path, read_only=read_only)
    assert "\n" not in str(refused.value) and "NOT NULL, [opening TEXT" in str(refused.value)


def test_foreign_database_is_rejected(tmp_path: Path) -> None:
    path = tmp_path / "other.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE people (name TEXT)")
    with pytest.raises(StoreError, match="not a boardlab arena store"):
        Store(path)


def test_truncated_store_is_rejected(tmp_path: Path) -> None:
    path = tmp_path / "arena.sqlite"
    with Store(path) as store:
        store.register_tournament(CONFIG)
        for i in range(50):
            store.add_game(_record(i))
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2] + b"\xff" * 100)
    with pytest.raises(StoreError), Store(path) as store:
        store.games(CONFIG.tournament_id)


def test_directory_is_rejected(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="directory"):
        Store(tmp_path)


def test_tournaments_registered_in_the_same_second_are_listed_in_registration_order(tmp_path: Path) -> None:
    configs = [TournamentConfig(("random", "greedy"), 2, seed=seed, name=f"t{seed}") for seed in range(6)]
    with Store(tmp_path / "arena.sqlite") as store:
        for config in configs:  # well within one second; their ids are in no particular order
            store.register_tournament(config)
        listed = store.tournaments()
    assert len({t["created"] for t in listed}) < len(configs)  # some at least share their second
    assert [t["name"] for t in listed] == [c.label for c in configs]
    assert [t["id"] for t in listed] != sorted(c.tournament_id for c in configs)


def test_text_that_is_not_utf8_is_a_store_error(tmp_path: Path) -> None:
    # the sqlite3 module raises this OperationalError itself, with no SQLite error code
    path = tmp_path / "arena.sqlite"
    with Store(path) as store:
        store.register_tournament(CONFIG)
        store.add_game(_record(0))
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE games SET moves = CAST(X'61ff62' AS TEXT)")
    with pytest.raises(StoreError, match="decode"), Store(path) as store:
        store.games(CONFIG.tournament_id)


@pytest.mark.parametrize(
    ("column", "value", "message"),
    [
        ("first_player", 7, "first_player 7 is not a player index of the 2 players"),
        ("second_player", -1, "second_player -1 is not a player index"),
        ("plies", -3, "plies -3 is negative"),
        ("opening", "h8h1", "the opening is not the start of the moves"),
    ],
)
def test_stored_values_out_of_range_are_a_store_error(
    tmp_path: Path, column: str, value: object, message: str
) -> None:
    """Values a summary indexes with are checked when read, naming the game and its tournament."""
    path = tmp_path / "arena.sqlite"
    with Store(path) as store:
        store.register_tournament(CONFIG)
        store.add_game(_record(0))
    with sqlite3.connect(path) as conn:
        conn.execute(f"UPDATE games SET {column} = ?", (value,))
    conn.close()
    with pytest.raises(StoreError, match=message) as caught, Store(path) as store:
        store.games(CONFIG.tournament_id)
    assert f"game 0 of tournament {CONFIG.tournament_id} (store test)" in str(caught.value)


def test_tournaments_are_listed_oldest_first(tmp_path: Path) -> None:
    path = tmp_path / "arena.sqlite"
    configs = [TournamentConfig(("random", "greedy"), 2, seed=seed, name=f"t{seed}") for seed in (1, 2, 3)]
    with Store(path) as store:
        for config in configs:
            store.register_tournament(config)
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE tournaments SET created = '2000-01-01T00:00:00+00:00' WHERE name = 't3'")
        conn.execute("UPDATE tournaments SET created = '2099-01-01T00:00:00+00:00' WHERE name = 't1'")
    conn.close()
    with Store(path) as store:
        assert [item["name"] for item in store.tournaments()] == ["t3", "t2", "t1"]


def test_a_tournament_registered_again_takes_the_name_given_and_keeps_it_unless_renamed(
    tmp_path: Path,
) -> None:
    """The name given is the tournament's from then on; registered without one, it keeps the
    name it has, and the run goes on under it."""
    with Store(tmp_path / "arena.sqlite") as store:
        store.register_tournament(CONFIG)
        renamed = TournamentConfig(CONFIG.specs, 5, seed=CONFIG.seed, name="another name")
        assert store.register_tournament(renamed) == CONFIG.tournament_id
        assert [t["name"] for t in store.tournaments()] == ["another name"]
        unnamed = TournamentConfig(CONFIG.specs, 7, seed=CONFIG.seed)
        assert store.register(unnamed).label == "another name"
        assert [t["name"] for t in store.tournaments()] == ["another name"]


def test_each_tournament_counts_its_own_games(tmp_path: Path) -> None:
    other = TournamentConfig(("random", "greedy"), 2, seed=5, name="other")
    with Store(tmp_path / "arena.sqlite") as store:
        store.register_tournament(CONFIG)
        store.register_tournament(other)
        for index in range(3):
            store.add_game(_record(index))
        assert [(t["name"], t["games"]) for t in store.tournaments()] == [("store test", 3), ("other", 0)]


@pytest.mark.parametrize(
    ("column", "value"),
    [
        ("openings", "[['a1'"),
        ("openings", b'[["a1"]]'),
        ("specs", b"[]"),
        ("openings", "5"),
        ("openings", '{"a1": 1}'),
        ("openings", '[["a1", 5]]'),
        ("specs", "5"),
        ("specs", '["random", null]'),
    ],
)
def test_a_tournament_with_unreadable_columns_is_a_store_error(
    tmp_path: Path, column: str, value: object
) -> None:
    path = tmp_path / "arena.sqlite"
    with Store(path) as store:
        store.register_tournament(CONFIG)
    with sqlite3.connect(path) as conn:
        conn.execute(f"UPDATE tournaments SET {column} = ?", (value,))
    conn.close()
    with (
        pytest.raises(StoreError, match=f"tournament {CONFIG.tournament_id} is unreadable"),
        Store(path) as store,
    ):
        store.tournaments()


def _store_with_an_edited_game(path: Path, column: str, value: object) -> None:
    """Three games stored; the value of ``column`` of game 1 written over by hand."""
    with Store(path) as store:
        store.register_tournament(CONFIG)
        for index in range(3):
            store.add_game(_record(index))
    with sqlite3.connect(path) as conn:
        conn.execute(f"UPDATE games SET {column} = ? WHERE game_index = 1", (value,))
    conn.close()


@pytest.mark.parametrize(
    ("column", "value", "why"),
    [
        ("outcome", '{"winner": 0, "reason": "resign", "detail": ""}', "'resign' is not a valid Reason"),
        ("moves", b"a1e1 b1b5 \xff", "decode"),  # text that is not UTF-8 (SQLite keeps it as given)
    ],
)
def test_a_game_that_cannot_be_read_is_left_out_and_named_when_asked(
    tmp_path: Path, column: str, value: object, why: str
) -> None:
    """Readers go on with the other games; a resumed run (no on_unreadable) is refused."""
    path = tmp_path / "arena.sqlite"
    _store_with_an_edited_game(path, column, value)
    if isinstance(value, bytes):  # stored as a blob: made the text it does not decode to
        with sqlite3.connect(path) as conn:
            conn.execute("UPDATE games SET moves = CAST(moves AS TEXT) WHERE game_index = 1")
        conn.close()
    said: list[str] = []
    with Store(path, read_only=True) as store:
        assert [r.index for r in store.games(CONFIG.tournament_id, on_unreadable=said.append)] == [0, 2]
        with pytest.raises(StoreError, match="game 1 of tournament"):
            store.games(CONFIG.tournament_id)
    [line] = said
    assert line.startswith(
        f"store {path}: game 1 of tournament {CONFIG.tournament_id} (store test) is unreadable"
    )
    assert why in line and "\n" not in line


def test_a_tournament_typed_another_way_is_found_under_its_stored_key_and_renamed(tmp_path: Path) -> None:
    """An older version keyed a tournament by its specs as typed: the same tournament is found
    by what it is, goes on under that key, and is named as the command names it."""
    typed = TournamentConfig(("Random", "greedy: "), 2, seed=4, name="old")
    object.__setattr__(typed, "specs", ("Random", "greedy:"))  # as an older version kept them
    with Store(tmp_path / "arena.sqlite") as store:
        store.register_tournament(typed)
        assert store.tournaments()[0]["specs"] == ["Random", "greedy:"]
        resumed = store.register(TournamentConfig(("random", "greedy"), 6, seed=4, name="new"))
        assert resumed.tournament_id == typed.tournament_id != CONFIG.tournament_id
        assert (resumed.specs, resumed.games_per_pair, resumed.label) == (("random", "greedy"), 6, "new")
        assert [(t["id"], t["name"]) for t in store.tournaments()] == [(typed.tournament_id, "new")]
        other_seed = store.register(TournamentConfig(("random", "greedy"), 6, seed=5))
        assert other_seed.tournament_id != typed.tournament_id and len(store.tournaments()) == 2
