"""The game store: an embedded SQLite database (WAL mode) holding every finished game.

Each game is one row keyed by ``(tournament_id, game_index)`` and written in its own
transaction, so a killed run loses at most the games being played, never a stored one, and
re-running a tournament skips what is already there. Nothing is pickled.

The ``games`` table is derived from :class:`~boardlab.arena.play.GameRecord`: one column per
field, encoded by the field's type (numbers and strings as they are, move lists as
space-separated notation, times and the outcome as JSON), plus a ``winner`` column kept for
SQL queries and written from the outcome, never read back. A store written by an older
schema is migrated when opened (see :data:`_MIGRATIONS`); a newer one is refused.
"""

from __future__ import annotations

import json
import math
import sqlite3
import urllib.parse
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any

from boardlab.arena.play import GameRecord, record_types
from boardlab.arena.schedule import ArenaError, TournamentConfig, specs_label
from boardlab.core.files import make_folders
from boardlab.core.spec import shorten
from boardlab.games import Outcome

APPLICATION = "boardlab-arena"
SCHEMA_VERSION = 4
"""1: the first store. 2: games keep their Outcome (``outcome``, JSON). 3: tournaments keep their
pairing (``round-robin`` or ``gauntlet``) and suite of openings (``openings``, JSON). 4: and their
time control (``time_control``, ``60+0.5``; empty: none)."""


MEMORY_STORE = ":memory:"
"""The path of a throw-away store, kept in memory while its connection is open."""


class StoreError(ArenaError):
    """A store file that cannot be opened, is corrupt, or is not a boardlab arena store."""


class StoreFullError(ArenaError):
    """A write the system refused (a full disk, an I/O error): the store keeps every game
    stored before it, and the same command resumes once the cause is fixed."""


_REFUSED_WRITES = (sqlite3.SQLITE_FULL, sqlite3.SQLITE_IOERR)


# --- the games table, derived from GameRecord -------------------------------------------------


def _same(value: Any) -> Any:
    return value


def _integer(value: Any) -> int:
    # SQLite keeps a text put in an INTEGER column as text: refuse it here, not in a summary
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{str(value)[:30]!r} is not a whole number")
    return value


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{str(value)[:30]!r} is not a text")
    return value


def _moves_text(moves: tuple[str, ...]) -> str:
    for move in moves:
        if not move or move != "".join(move.split()):
            raise ArenaError(f"cannot store the move {move!r}: a move's notation must be one word")
    return " ".join(moves)


def _moves_from_text(text: str) -> tuple[str, ...]:
    return tuple(_text(text).split())


def _json_text(values: tuple[float, ...]) -> str:
    return json.dumps(list(values))


def _tuple_from_json(text: str) -> tuple[float, ...]:
    """Stored seconds: a JSON list of finite numbers of at least 0, ValueError otherwise."""
    values = json.loads(_text(text))
    if not isinstance(values, list):
        raise ValueError("the move times are not a list")
    for value in values:
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value < math.inf:
            raise ValueError(f"a move time of {str(value)[:30]!r} is not a number of seconds")
    return tuple(float(v) for v in values)


def _specs_from_text(text: Any) -> list[str]:
    """A tournament's stored specs: a JSON list of texts, ValueError otherwise (the listings
    take their lengths and print them)."""
    specs = json.loads(_text(text))
    if not isinstance(specs, list) or not all(isinstance(spec, str) for spec in specs):
        raise ValueError("the specs are not a list of agent specs")
    return specs


def _openings_from_text(text: Any) -> list[list[str]]:
    """A tournament's stored suite: a JSON list of lists of moves, ValueError otherwise."""
    suite = json.loads(_text(text))
    if not isinstance(suite, list) or not all(
        isinstance(moves, list) and all(isinstance(move, str) for move in moves) for moves in suite
    ):
        raise ValueError("the openings are not a list of move lists")
    return suite


def _outcome_text(outcome: Outcome) -> str:
    return json.dumps(outcome.to_json(), separators=(",", ":"))


def _outcome_from_text(text: str) -> Outcome:
    return Outcome.from_json(json.loads(_text(text)))


_CODECS: dict[Any, tuple[str, Callable[[Any], Any], Callable[[Any], Any]]] = {
    int: ("INTEGER NOT NULL", _same, _integer),
    str: ("TEXT NOT NULL", _same, _text),
    tuple[str, ...]: ("TEXT NOT NULL", _moves_text, _moves_from_text),
    tuple[float, ...]: ("TEXT NOT NULL", _json_text, _tuple_from_json),
    Outcome: ("TEXT NOT NULL", _outcome_text, _outcome_from_text),
}
"""How a GameRecord field of each type is stored: SQL type, encoder, decoder."""

_COLUMN_NAMES = {"index": "game_index"}  # INDEX is an SQL keyword


@dataclass(frozen=True)
class _Column:
    field: str
    name: str
    sql: str
    encode: Callable[[Any], Any]
    decode: Callable[[Any], Any]


def _record_columns() -> tuple[_Column, ...]:
    columns = []
    for name, kind in record_types().items():
        if kind not in _CODECS:
            raise TypeError(f"GameRecord.{name}: the store has no codec for type {kind}")
        columns.append(_Column(name, _COLUMN_NAMES.get(name, name), *_CODECS[kind]))
    return tuple(columns)


_COLUMNS = _record_columns()

_DERIVED: tuple[tuple[str, str, Callable[[GameRecord], Any]], ...] = (
    ("winner", "INTEGER CHECK (winner IS NULL OR winner IN (0, 1))", lambda record: record.winner),
)
"""Columns written from a record for SQL users (name, SQL type, value), never read back."""

_GAMES_TABLE = (
    "CREATE TABLE games (\n    "
    + ",\n    ".join(
        [f"{c.name} {c.sql}" for c in _COLUMNS]
        + [f"{name} {sql}" for name, sql, _ in _DERIVED]
        + [
            "PRIMARY KEY (tournament_id, game_index)",
            "FOREIGN KEY (tournament_id) REFERENCES tournaments(id)",
        ]
    )
    + "\n);\n"
)
_GAME_COLUMNS = ", ".join(c.name for c in _COLUMNS)
_INSERT_GAME = (
    f"INSERT INTO games ({_GAME_COLUMNS}, {', '.join(name for name, _, _ in _DERIVED)})"
    f" VALUES ({', '.join('?' * (len(_COLUMNS) + len(_DERIVED)))})"
    # only a stored game is skipped (OR IGNORE would also drop a row breaking a constraint)
    " ON CONFLICT (tournament_id, game_index) DO NOTHING"
)

_SCHEMA = (
    """
CREATE TABLE arena_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE tournaments (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    game TEXT NOT NULL,
    specs TEXT NOT NULL,
    seed INTEGER NOT NULL,
    opening_plies INTEGER NOT NULL,
    created TEXT NOT NULL,
    pairing TEXT NOT NULL DEFAULT 'round-robin',
    openings TEXT NOT NULL DEFAULT '[]',
    time_control TEXT NOT NULL DEFAULT ''
);
"""
    + _GAMES_TABLE
)


_TOURNAMENT_COLUMNS = (
    "id",
    "name",
    "game",
    "specs",
    "seed",
    "opening_plies",
    "created",
    "pairing",
    "openings",
    "time_control",
)
"""The tournaments table's columns, as :meth:`Store.tournaments` names them."""


def _row(record: GameRecord) -> tuple[Any, ...]:
    values = [c.encode(getattr(record, c.field)) for c in _COLUMNS]
    return (*values, *(value(record) for _, _, value in _DERIVED))


def _record(row: tuple[Any, ...], players: int | None = None) -> GameRecord:
    """The game of a stored row; ValueError if a value is out of its range (a player index
    that is not one of the tournament's ``players``, a negative count, an opening longer than
    the game), which the summaries would otherwise index with."""
    record = GameRecord(**{c.field: c.decode(value) for c, value in zip(_COLUMNS, row, strict=True)})
    for name in ("first_player", "second_player"):
        value = getattr(record, name)
        if value < 0 or (players is not None and value >= players):
            held = f" of the {players} players" if players is not None else ""
            raise ValueError(f"{name} {value} is not a player index{held}")
    for name in ("index", "opening_index", "plies"):
        if getattr(record, name) < 0:
            raise ValueError(f"{name} {getattr(record, name)} is negative")
    if len(record.opening) > len(record.moves) or record.moves[: len(record.opening)] != record.opening:
        raise ValueError("the opening is not the start of the moves")
    return record


# --- migrations -------------------------------------------------------------------------------
# Each step takes a store from version v to v + 1 inside the opening transaction. Steps are
# history: they spell out the schema of their time instead of reading today's GameRecord.


def _migrate_1_to_2(conn: sqlite3.Connection) -> None:
    # Schema 1 kept only the winner colour. It was written when Quixo was the only game, and
    # Quixo draws only at its ply cap (no rule draws a position, and a player always has a
    # move), so a stored draw was a capped game: Reason.PLY_CAP with the detail the new code
    # writes for it ("<cap> plies"; a capped game stops at exactly the cap, so cap = plies),
    # which is more honest than calling it a draw by the rules. A won game was won by the rules
    # (there was no resignation or forfeit); the rule's wording was not stored, so its detail
    # stays empty rather than guessed.
    conn.execute("ALTER TABLE games ADD COLUMN outcome TEXT")
    rows = conn.execute("SELECT rowid, winner, plies FROM games").fetchall()
    updates = []
    for rowid, winner, plies in rows:
        if winner is None:
            outcome = {"winner": None, "reason": "ply_cap", "detail": f"{plies} plies"}
        else:
            outcome = {"winner": winner, "reason": "rule", "detail": ""}
        updates.append((json.dumps(outcome, separators=(",", ":")), rowid))
    conn.executemany("UPDATE games SET outcome = ? WHERE rowid = ?", updates)


def _migrate_2_to_3(conn: sqlite3.Connection) -> None:
    # Schema 2 had round robins from random openings only; schema 3 also stores gauntlets and
    # suites of openings, and says which a tournament has.
    conn.execute("ALTER TABLE tournaments ADD COLUMN pairing TEXT NOT NULL DEFAULT 'round-robin'")
    conn.execute("ALTER TABLE tournaments ADD COLUMN openings TEXT NOT NULL DEFAULT '[]'")


def _migrate_3_to_4(conn: sqlite3.Connection) -> None:
    # Schema 3 had games without a clock only; schema 4 says which time control a tournament has.
    conn.execute("ALTER TABLE tournaments ADD COLUMN time_control TEXT NOT NULL DEFAULT ''")


_MIGRATIONS: dict[int, Callable[[sqlite3.Connection], None]] = {
    1: _migrate_1_to_2,
    2: _migrate_2_to_3,
    3: _migrate_3_to_4,
}
"""``version -> step`` to ``version + 1``; together they reach :data:`SCHEMA_VERSION`."""


# --- the store --------------------------------------------------------------------------------


class Store:
    """A connection to an arena store; ``MEMORY_STORE`` (``":memory:"``) gives a throw-away one.

    Use as a context manager or call :meth:`close`. Raises :class:`StoreError` with the path
    and the reason when the file cannot be used. A store of an older schema is migrated in
    one transaction when opened.

    ``read_only=True`` (commands that only read: ``ratings``, ``serve --db``) opens the file
    with SQLite's ``mode=ro`` and never writes it: an empty file reads as a store without
    games, and a store of an older schema is migrated in a copy held in memory.
    """

    def __init__(self, path: str | Path = MEMORY_STORE, *, read_only: bool = False) -> None:
        self.path = str(path)
        self.read_only = read_only and self.path != MEMORY_STORE
        self._conn = _connect(self.path, self.read_only)
        try:
            if self.read_only:
                self._conn = _check_read_only(self._conn, self.path)
            else:
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
        except sqlite3.OperationalError as err:
            code = getattr(err, "sqlite_errorcode", None)  # absent on errors raised by the module itself
            if code is not None and code & 0xFF in _REFUSED_WRITES:  # extended codes keep the primary below
                raise StoreFullError(
                    f"store {self.path}: {err}; every game stored before is kept, "
                    "and the same command resumes once there is room"
                ) from None
            raise StoreError(f"store {self.path}: {shorten(str(err), 160)}") from None
        except (sqlite3.DatabaseError, UnicodeDecodeError) as err:  # damaged names are not UTF-8
            raise StoreError(f"store {self.path}: {shorten(str(err), 160)}") from None

    def register(self, config: TournamentConfig) -> TournamentConfig:
        """Record a tournament, or find it stored (:meth:`find_tournament`: under its key, or
        under the key of an older version's spelling of its specs or game), and return it as it
        goes on: under the key the store holds it by, with the name given (stored from then on:
        the tournament is renamed) or else the one it has."""
        found = self.find_tournament(config)
        if found is None:
            self._insert(config)
            return config
        resumed = resumed_config(config, found)
        if found["name"] != resumed.label:  # renamed, or an older version's label of its specs
            with self._query() as conn:
                conn.execute("UPDATE tournaments SET name = ? WHERE id = ?", (resumed.label, found["id"]))
        return resumed

    def register_tournament(self, config: TournamentConfig) -> str:
        """Record a tournament (see :meth:`register`) and return the key it is stored by."""
        return self.register(config).tournament_id

    def _insert(self, config: TournamentConfig) -> None:
        with self._query() as conn:  # OR IGNORE: another process may have stored it meanwhile
            conn.execute(
                f"INSERT OR IGNORE INTO tournaments ({', '.join(_TOURNAMENT_COLUMNS)})"
                f" VALUES ({', '.join('?' * len(_TOURNAMENT_COLUMNS))})",
                (
                    config.tournament_id,
                    config.label,
                    config.game,
                    json.dumps(list(config.specs)),
                    config.seed,
                    config.opening_plies,
                    datetime.now(UTC).isoformat(timespec="seconds"),
                    config.pairing,
                    json.dumps([list(moves) for moves in config.openings], separators=(",", ":")),
                    config.time_control,
                ),
            )

    def find_tournament(self, config: TournamentConfig) -> dict[str, Any] | None:
        """The stored tournament that ``config`` is, as :meth:`tournaments` lists it (without its
        count of games), or None: the one stored under its key, else the oldest whose specs and
        game are ``config``'s written otherwise (an older version stored them as they were
        typed, ``MCTS: iters=50`` or ``quixo:size=5``, and keyed the tournament by that text)."""
        columns = ", ".join(_TOURNAMENT_COLUMNS)
        with self._query() as conn:
            row = conn.execute(
                f"SELECT {columns} FROM tournaments WHERE id = ?", (config.tournament_id,)
            ).fetchone()
            others = (
                conn.execute(
                    f"SELECT {columns} FROM tournaments WHERE seed = ? AND pairing = ?"
                    " ORDER BY created, rowid",
                    (config.seed, config.pairing),
                ).fetchall()
                if row is None
                else []
            )
        if row is not None:
            item = dict(zip(_TOURNAMENT_COLUMNS, row, strict=True))
            with suppress(StoreError):  # its games say what is wrong with it, if anything is
                item = self._listed(item)
            return item
        for other in others:
            try:
                item = self._listed(dict(zip(_TOURNAMENT_COLUMNS, other, strict=True)))
            except StoreError:
                continue  # a damaged tournament is no one's
            stored = stored_config(item)
            if stored is not None and stored.tournament_id == config.tournament_id:
                return item
        return None

    def add_game(self, record: GameRecord) -> bool:
        """Store a finished game in one transaction; False if that game was already stored."""
        row = _row(record)
        with self._query() as conn:
            return conn.execute(_INSERT_GAME, row).rowcount == 1

    def stored_indices(self, tournament_id: str) -> set[int]:
        """Indices of the stored games of a tournament."""
        with self._query() as conn:
            rows = conn.execute("SELECT game_index FROM games WHERE tournament_id = ?", (tournament_id,))
            return {index for (index,) in rows}

    def games(
        self,
        tournament_id: str,
        below: int | None = None,
        on_unreadable: Callable[[str], None] | None = None,
    ) -> list[GameRecord]:
        """The stored games of a tournament in index order (only indices < ``below`` if given).

        A game that cannot be read (a hand-edited value, text that is not UTF-8) is a StoreError
        naming it; with ``on_unreadable`` it is left out and the same line (the store, the game,
        its tournament and why) given to ``on_unreadable``, and the other games are read."""
        limit = below if below is not None else 2**62
        with self._query() as conn:
            try:
                rows: list[tuple[int, tuple[Any, ...] | Exception]] = [
                    (row[1], row)
                    for row in conn.execute(
                        f"SELECT {_GAME_COLUMNS} FROM games WHERE tournament_id = ? AND game_index < ?"
                        " ORDER BY game_index",
                        (tournament_id, limit),
                    )
                ]
            except (UnicodeDecodeError, sqlite3.OperationalError) as err:
                if not _undecodable(err):
                    raise  # which game it is is said below
                rows = _rows_one_by_one(conn, tournament_id, limit)
            specs = conn.execute(
                "SELECT specs, name FROM tournaments WHERE id = ?", (tournament_id,)
            ).fetchone()
        named = f" ({shorten(specs[1], 80)})" if specs is not None and isinstance(specs[1], str) else ""
        players = None
        try:
            listed = json.loads(specs[0]) if specs is not None and isinstance(specs[0], str) else None
            players = len(listed) if isinstance(listed, list) else None
        except ValueError:
            pass  # tournaments() names a tournament whose specs are unreadable
        records = []
        for index, row in rows:
            try:
                if isinstance(row, Exception):
                    raise row
                records.append(_record(row, players))
            except (ValueError, TypeError, KeyError, AttributeError) as err:
                game = f"game {index} of tournament {tournament_id}{named}"
                problem = f"store {self.path}: {game} is unreadable ({err})"
                if on_unreadable is None:
                    raise StoreError(problem) from None
                on_unreadable(problem)
        return records

    def tournaments(self) -> list[dict[str, Any]]:
        """Every stored tournament with its number of games, oldest first."""
        with self._query() as conn:
            rows = conn.execute(
                f"SELECT {', '.join('t.' + name for name in _TOURNAMENT_COLUMNS)},"
                " (SELECT COUNT(*) FROM games g WHERE g.tournament_id = t.id)"
                " FROM tournaments t ORDER BY t.created, t.rowid"
            ).fetchall()
        keys = (*_TOURNAMENT_COLUMNS, "games")
        return [self._listed(dict(zip(keys, row, strict=True))) for row in rows]

    def _listed(self, item: dict[str, Any]) -> dict[str, Any]:
        """A tournament's row with its specs, openings and time control read; StoreError naming
        it when they cannot be."""
        try:
            item["specs"] = _specs_from_text(item["specs"])
            item["openings"] = _openings_from_text(item["openings"])
            if not isinstance(item["time_control"], str):
                raise ValueError("the time control is not a text")
        except ValueError as err:  # JSONDecodeError is one
            raise StoreError(f"store {self.path}: tournament {item['id']} is unreadable ({err})") from None
        return item


def _rows_one_by_one(
    conn: sqlite3.Connection, tournament_id: str, limit: int
) -> list[tuple[int, tuple[Any, ...] | Exception]]:
    """The games' rows read one at a time, each one that cannot be (text that is not UTF-8) as
    a ValueError saying why: what :meth:`Store.games` falls back to when reading them at once
    fails."""
    indices = conn.execute(
        "SELECT game_index FROM games WHERE tournament_id = ? AND game_index < ? ORDER BY game_index",
        (tournament_id, limit),
    ).fetchall()
    rows: list[tuple[int, tuple[Any, ...] | Exception]] = []
    for (index,) in indices:
        try:
            row = conn.execute(
                f"SELECT {_GAME_COLUMNS} FROM games WHERE tournament_id = ? AND game_index = ?",
                (tournament_id, index),
            ).fetchone()
            rows.append((index, row))
        except (UnicodeDecodeError, sqlite3.OperationalError) as err:
            if not _undecodable(err):
                raise
            rows.append((index, ValueError(str(err))))
    return rows


def _undecodable(err: Exception) -> bool:
    """Whether ``err`` says a stored text is not UTF-8 (the sqlite3 module raises that itself,
    as an OperationalError without an SQLite error code), not that the query failed."""
    return isinstance(err, UnicodeDecodeError) or getattr(err, "sqlite_errorcode", None) is None


def stored_config(item: dict[str, Any]) -> TournamentConfig | None:
    """The tournament a stored one is (``item`` as :meth:`Store.tournaments` lists it), with one
    game a pair and its specs and game in their canonical text whatever text an older version
    stored; None when its columns make no tournament."""
    try:
        return TournamentConfig(
            tuple(item["specs"]),
            1,
            item["game"],
            item["seed"],
            item["opening_plies"],
            pairing=item["pairing"],
            openings=tuple(tuple(moves) for moves in item["openings"]),
            time_control=item["time_control"],
        )
    except (ArenaError, TypeError, ValueError):
        return None


def resumed_config(config: TournamentConfig, item: dict[str, Any]) -> TournamentConfig:
    """``config`` going on as the stored tournament ``item`` (the same one, see
    :meth:`Store.find_tournament`): under the key it is stored by, named as ``config`` names it,
    else as it is stored (a name given once is kept; the label an unnamed tournament got from its
    specs is no name)."""
    stored_id = item["id"] if item["id"] != config.tournament_id else config.stored_id
    name = config.name or _given_name(item, config)
    return replace(config, stored_id=stored_id, name=name)


def _given_name(item: dict[str, Any], config: TournamentConfig) -> str:
    """The stored tournament's name, or "" where it is the label of its specs (spelt as stored,
    or as ``config`` spells them): the name an unnamed tournament is stored under."""
    labels = {specs_label(config.specs, config.pairing)}
    if isinstance(item["specs"], list) and item["specs"]:
        labels.add(specs_label([str(spec).strip() for spec in item["specs"]], config.pairing))
    name = item["name"]
    return "" if not isinstance(name, str) or name in labels else name


def _connect(path: str, read_only: bool = False) -> sqlite3.Connection:
    if read_only:
        if Path(path).is_dir():
            raise StoreError(f"store {path}: is a directory, expected a database file")
        uri = "file:" + urllib.parse.quote(str(Path(path).absolute())) + "?mode=ro"
        try:
            return sqlite3.connect(uri, uri=True, timeout=30.0)
        except sqlite3.Error as err:
            raise StoreError(f"store {path}: cannot open ({err})") from None
    if path != MEMORY_STORE:
        file = Path(path)
        if file.is_dir():
            raise StoreError(f"store {path}: is a directory, expected a database file")
        try:
            make_folders(file.parent)
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
            found = " ".join(str(check).split())  # SQLite lists its findings a line each
            raise StoreError(f"store {path}: database is corrupt ({shorten(found, 160)})")
        tables = _tables(conn)
        if not tables and _create_schema(conn):
            conn.execute("PRAGMA journal_mode=WAL")
            return
        tables = tables or _tables(conn)  # another process created the store meanwhile
        version = _schema_version(conn, path, tables)
        missing = {"tournaments", "games"} - tables
        if missing:
            raise StoreError(f"store {path}: missing tables {', '.join(sorted(missing))}")
        if version < SCHEMA_VERSION:
            _migrate(conn, path)
        _check_columns(conn, path)
        conn.execute("PRAGMA journal_mode=WAL")
    except (sqlite3.DatabaseError, UnicodeDecodeError) as err:  # damaged names are not UTF-8
        raise StoreError(f"store {path}: not a usable SQLite database ({shorten(str(err), 160)})") from None


def _create_schema(conn: sqlite3.Connection) -> bool:
    """Create the tables of an empty store under SQLite's write lock; False (nothing written) if
    another process (a second command given the same ``--db``) created them first."""
    conn.execute("BEGIN IMMEDIATE")  # the write lock: the check below and the creation are one step
    try:
        if _tables(conn):
            conn.rollback()
            return False
        write_schema(conn)
        conn.commit()
    except BaseException:
        conn.rollback()
        raise
    return True


def write_schema(conn: sqlite3.Connection) -> None:
    """The statements creating an empty store of :data:`SCHEMA_VERSION`, in the caller's transaction."""
    for statement in _SCHEMA.split(";"):
        if statement.strip():
            conn.execute(statement)
    conn.execute("INSERT INTO arena_meta VALUES ('application', ?)", (APPLICATION,))
    conn.execute("INSERT INTO arena_meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))


def _check_read_only(conn: sqlite3.Connection, path: str) -> sqlite3.Connection:
    """The checks of :func:`_check_or_create` on a read-only connection; the connection to read
    from: ``conn``, or a copy in memory where the schema had to be created or migrated."""
    try:
        check = conn.execute("PRAGMA quick_check").fetchone()[0]
        if check != "ok":
            found = " ".join(str(check).split())
            raise StoreError(f"store {path}: database is corrupt ({shorten(found, 160)})")
        tables = _tables(conn)
        if tables:
            version = _schema_version(conn, path, tables)
            missing = {"tournaments", "games"} - tables
            if missing:
                raise StoreError(f"store {path}: missing tables {', '.join(sorted(missing))}")
            if version == SCHEMA_VERSION:
                _check_columns(conn, path)
                return conn
        copy = sqlite3.connect(":memory:")
        try:
            conn.backup(copy)
            conn.close()
            _check_or_create(copy, path)
        except BaseException:
            copy.close()
            raise
        return copy
    except (sqlite3.DatabaseError, UnicodeDecodeError) as err:
        raise StoreError(f"store {path}: not a usable SQLite database ({shorten(str(err), 160)})") from None


def _tables(conn: sqlite3.Connection) -> set[str]:
    return {name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def _schema_version(conn: sqlite3.Connection, path: str, tables: set[str]) -> int:
    """The store's schema version; StoreError if it is not an arena store or is too new."""
    if "arena_meta" not in tables:
        raise StoreError(f"store {path}: an SQLite file that is not a boardlab arena store")
    meta = dict(conn.execute("SELECT key, value FROM arena_meta").fetchall())
    if meta.get("application") != APPLICATION:
        raise StoreError(f"store {path}: an SQLite file that is not a boardlab arena store")
    text = meta.get("schema_version")
    try:
        version = int(text)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        version = 0
    if version < 1:
        raise StoreError(f"store {path}: unreadable schema version {text!r}")
    if version > SCHEMA_VERSION:
        raise StoreError(
            f"store {path}: schema version {version} was written by a newer boardlab; this one reads "
            f"versions up to {SCHEMA_VERSION}: upgrade boardlab to open it"
        )
    return version


def _migrate(conn: sqlite3.Connection, path: str) -> None:
    """Bring the store to :data:`SCHEMA_VERSION` in one transaction (all steps or none)."""
    conn.execute("BEGIN IMMEDIATE")  # the write lock: another process may be migrating too
    try:
        version = _schema_version(conn, path, _tables(conn))  # read again under the lock
        while version < SCHEMA_VERSION:
            _MIGRATIONS[version](conn)
            version += 1
        conn.execute("UPDATE arena_meta SET value = ? WHERE key = 'schema_version'", (str(SCHEMA_VERSION),))
        conn.commit()
    except BaseException:
        conn.rollback()
        raise


def _check_columns(conn: sqlite3.Connection, path: str) -> None:
    # A GameRecord field added without a new schema version and its migration shows up here.
    needed = {"games": [c.name for c in _COLUMNS], "tournaments": list(_TOURNAMENT_COLUMNS)}
    for table, columns in needed.items():
        present = {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}
        lacking = [name for name in columns if name not in present]
        if lacking:
            raise StoreError(
                f"store {path}: its {table} table lacks the columns {', '.join(lacking)} of schema "
                f"version {SCHEMA_VERSION}"
            )
