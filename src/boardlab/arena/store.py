"""The game store: an embedded SQLite database (WAL mode) holding every finished game.

Each game is one row keyed by ``(tournament_id, game_index)`` and written in its own
transaction, so a killed run loses at most the games being played, never a stored one, and
re-running a tournament skips what is already there. Lists (moves, times, specs) are JSON
or space-separated text; nothing is pickled.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any

from boardlab.arena.play import GameRecord
from boardlab.arena.schedule import ArenaError, TournamentConfig

APPLICATION = "boardlab-arena"
SCHEMA_VERSION = 1

_SCHEMA = """
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

_GAME_COLUMNS = (
    "tournament_id, game_index, game, first_player, second_player, first_spec, second_spec, "
    "first_seed, second_seed, opening_index, opening, moves, winner, plies, move_times, started, finished"
)


class StoreError(ArenaError):
    """A store file that cannot be opened, is corrupt, or is not a boardlab arena store."""


class Store:
    """A connection to an arena store; ``":memory:"`` gives a throw-away one.

    Use as a context manager or call :meth:`close`. Raises :class:`StoreError` with the path
    and the reason when the file cannot be used.
    """

    def __init__(self, path: str | Path = ":memory:") -> None:
        self.path = str(path)
        self._conn = _connect(self.path)
        try:
            _check_or_create(self._conn, self.path)
        except BaseException:
            self._conn.close()
            raise

    def __enter__(self) -> Store:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        """Close the connection."""
        self._conn.close()

    @contextmanager
    def _query(self) -> Iterator[sqlite3.Connection]:
        try:
            with self._conn:
                yield self._conn
        except sqlite3.DatabaseError as err:
            raise StoreError(f"store {self.path}: {err}") from None

    def register_tournament(self, config: TournamentConfig) -> str:
        """Record a tournament (once; later calls keep the first name) and return its id."""
        with self._query() as conn:
            conn.execute(
                "INSERT OR IGNORE INTO tournaments (id, name, game, specs, seed, opening_plies, created)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    config.tournament_id,
                    config.label,
                    config.game,
                    json.dumps(list(config.specs)),
                    config.seed,
                    config.opening_plies,
                    datetime.now(UTC).isoformat(timespec="seconds"),
                ),
            )
        return config.tournament_id

    def add_game(self, record: GameRecord) -> bool:
        """Store a finished game in one transaction; False if that game was already stored."""
        row = (
            record.tournament_id,
            record.index,
            record.game,
            record.first_player,
            record.second_player,
            record.first_spec,
            record.second_spec,
            record.first_seed,
            record.second_seed,
            record.opening_index,
            " ".join(record.opening),
            " ".join(record.moves),
            record.winner,
            record.plies,
            json.dumps(list(record.move_times)),
            record.started,
            record.finished,
        )
        marks = ", ".join("?" * len(row))
        with self._query() as conn:
            cursor = conn.execute(f"INSERT OR IGNORE INTO games ({_GAME_COLUMNS}) VALUES ({marks})", row)
            return cursor.rowcount == 1

    def stored_indices(self, tournament_id: str) -> set[int]:
        """Indices of the stored games of a tournament."""
        with self._query() as conn:
            rows = conn.execute("SELECT game_index FROM games WHERE tournament_id = ?", (tournament_id,))
            return {index for (index,) in rows}

    def games(self, tournament_id: str, below: int | None = None) -> list[GameRecord]:
        """The stored games of a tournament in index order (only indices < ``below`` if given)."""
        limit = below if below is not None else 2**62
        with self._query() as conn:
            rows = conn.execute(
                f"SELECT {_GAME_COLUMNS} FROM games WHERE tournament_id = ? AND game_index < ?"
                " ORDER BY game_index",
                (tournament_id, limit),
            ).fetchall()
        return [_record(row) for row in rows]

    def tournaments(self) -> list[dict[str, Any]]:
        """Every stored tournament with its number of games, oldest first."""
        with self._query() as conn:
            rows = conn.execute(
                "SELECT t.id, t.name, t.game, t.specs, t.seed, t.opening_plies, t.created,"
                " (SELECT COUNT(*) FROM games g WHERE g.tournament_id = t.id)"
                " FROM tournaments t ORDER BY t.created, t.id"
            ).fetchall()
        keys = ("id", "name", "game", "specs", "seed", "opening_plies", "created", "games")
        out = [dict(zip(keys, row, strict=True)) for row in rows]
        for item in out:
            item["specs"] = json.loads(item["specs"])
        return out


def _connect(path: str) -> sqlite3.Connection:
    if path != ":memory:":
        file = Path(path)
        if file.is_dir():
            raise StoreError(f"store {path}: is a directory, expected a database file")
        try:
            file.parent.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise StoreError(f"store {path}: cannot create its folder ({err.strerror})") from None
    try:
        return sqlite3.connect(path, timeout=30.0)
    except sqlite3.Error as err:
        raise StoreError(f"store {path}: cannot open ({err})") from None


def _check_or_create(conn: sqlite3.Connection, path: str) -> None:
    try:
        check = conn.execute("PRAGMA quick_check").fetchone()[0]
        if check != "ok":
            raise StoreError(f"store {path}: database is corrupt ({check})")
        tables = {name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not tables:
            conn.execute("PRAGMA journal_mode=WAL")
            meta = (
                f"INSERT INTO arena_meta VALUES ('application', '{APPLICATION}');"
                f"INSERT INTO arena_meta VALUES ('schema_version', '{SCHEMA_VERSION}');"
            )
            conn.executescript("BEGIN;" + _SCHEMA + meta + "COMMIT;")
            return
        _check_meta(conn, path, tables)
        conn.execute("PRAGMA journal_mode=WAL")
    except sqlite3.DatabaseError as err:
        raise StoreError(f"store {path}: not a usable SQLite database ({err})") from None


def _check_meta(conn: sqlite3.Connection, path: str, tables: set[str]) -> None:
    if "arena_meta" not in tables:
        raise StoreError(f"store {path}: an SQLite file that is not a boardlab arena store")
    meta = dict(conn.execute("SELECT key, value FROM arena_meta").fetchall())
    if meta.get("application") != APPLICATION:
        raise StoreError(f"store {path}: an SQLite file that is not a boardlab arena store")
    if meta.get("schema_version") != str(SCHEMA_VERSION):
        raise StoreError(
            f"store {path}: schema version {meta.get('schema_version')} but this boardlab reads "
            f"version {SCHEMA_VERSION}"
        )
    missing = {"tournaments", "games"} - tables
    if missing:
        raise StoreError(f"store {path}: missing tables {', '.join(sorted(missing))}")


def _record(row: tuple[Any, ...]) -> GameRecord:
    (tid, index, game, first, second, first_spec, second_spec, first_seed, second_seed, opening_index,
     opening, moves, winner, plies, times, started, finished) = row  # fmt: skip
    return GameRecord(
        tournament_id=tid,
        index=index,
        game=game,
        first_player=first,
        second_player=second,
        first_spec=first_spec,
        second_spec=second_spec,
        first_seed=first_seed,
        second_seed=second_seed,
        opening_index=opening_index,
        opening=tuple(opening.split()),
        moves=tuple(moves.split()),
        winner=winner,
        plies=plies,
        move_times=tuple(json.loads(times)),
        started=started,
        finished=finished,
    )
