"""Fuzzing the files a user hands boardlab: models, checkpoints, Quixo tables and arena stores.

Each kind of file starts from a sound one (the models shipped in the package, checkpoints of
fresh runs, solved 3x3 tables, a small arena store). Hypothesis then damages it: truncation,
flipped bytes, junk appended, a field given a value of the wrong type, NaN or infinity, a
declared array size of terabytes, and files that are not regular files at all (a FIFO,
``/dev/zero``, a folder). A damaged file may still be sound by chance (a flipped byte in a JSON
weight); otherwise its loader must raise its own exception with a one-line message, never
something else, never hang, never allocate what the file declares. A sample goes through the
command line too: one ``Error:`` line and exit 2, no traceback. ``BOARDLAB_FUZZ_EXAMPLES`` sets
the examples per test (default 20).
"""

from __future__ import annotations

import io
import json
import os
import shutil
import sqlite3
import struct
import threading
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from reliability import count
from typer.testing import CliRunner

from boardlab.agents import neat_player, rules
from boardlab.agents.base import AgentSpecError, make_agent
from boardlab.agents.models import shipped_model_file
from boardlab.arena.schedule import TournamentConfig
from boardlab.arena.store import Store, StoreError
from boardlab.arena.summary import summarize
from boardlab.core.inputs import InputFileError
from boardlab.core.spec import one_line
from boardlab.games import parse_game
from boardlab.games.connect4.solver import Book, build_book
from boardlab.games.quixo import table as qt
from boardlab.games.quixo.solver import solve
from boardlab.models import nim_genome
from boardlab.models import table as tabular
from boardlab.models.evalnet import EvalNetError, load_evalnet
from boardlab.models.table import ModelFileError
from boardlab.train import method
from boardlab.train.eval_fit import Positions, self_play
from boardlab.train.run import resume_run
from boardlab.ui.cli import app

EXAMPLES = int(os.environ.get("BOARDLAB_FUZZ_EXAMPLES", "20"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
MAX_MESSAGE = 600
HANG_SECONDS = 60
"""A loader still running after this long on a tiny file is taken for hung (a FIFO read)."""


@dataclass(frozen=True)
class Kind:
    """A kind of user file: where a sound one is, how it is read, what it raises when damaged."""

    name: str
    path: Path
    load: Callable[[Path], Any]
    error: type[Exception] = ModelFileError
    json: bool = False


# --- sound files ---------------------------------------------------------------------------------


def _shipped(name: str) -> Path:
    path = shipped_model_file(name)
    assert path is not None, name
    return path


def _checkpoint(folder: Path, name: str, spec: str) -> Kind:
    """A fresh run of trainer ``name`` saved to ``folder``, and its resume as the loader."""
    chosen = method(name)
    games = chosen.games(spec)
    run = chosen.start(games, chosen.settings(), 0)
    try:
        path = folder / name / chosen.checkpoint_file
        path.parent.mkdir(parents=True)
        run.save(path)
    finally:
        run.close()

    def load(candidate: Path) -> None:
        resume_run(chosen, candidate, games).close()

    return Kind(f"{name} checkpoint", path, load, json=path.suffix == ".json")


def _store(folder: Path) -> Path:
    """A store holding one tournament of two Tic-Tac-Toe games between random players."""
    from boardlab.arena.runner import run_tournament

    config = TournamentConfig(game="tictactoe", specs=("random", "random"), games_per_pair=2, seed=0)
    path = folder / "store.sqlite"
    with Store(path) as store:
        run_tournament(config, store, workers=0)
    return path


def _read_store(path: Path) -> None:
    with Store(path) as store:
        for tournament in store.tournaments():
            records = store.games(tournament["id"])
            summarize(tournament["specs"], records)


@pytest.fixture(scope="module")
def kinds(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Kind]:
    folder = tmp_path_factory.mktemp("sound-files")
    tables = folder / "tables"
    solve(3, tables, min_cubes=8)
    table = qt.table_path(tables, 3, 4, 4)
    found = [
        Kind(
            "tabular model",
            _shipped("tictactoe-qlearning.npz"),
            lambda p: tabular.load_model(p, method="qlearning"),
        ),
        Kind("NEAT model", _shipped(neat_player.SHIPPED_MODEL), neat_player.load_model, json=True),
        Kind("rules model", _shipped("quixo-rules.json"), rules.load_model, json=True),
        Kind("Nim GA model", _shipped("nim-ga.json"), nim_genome.load_model, json=True),
        Kind(
            "Quixo table",
            table,
            lambda p: qt.read_table_file(p, 3, 4, 4),
            error=qt.TablebaseFormatError,
        ),
        Kind("arena store", _store(folder), _read_store, error=StoreError),
        _checkpoint(folder, "qlearning", "tictactoe"),
        _checkpoint(folder, "ga", "nim"),
        _checkpoint(folder, "es", "quixo:size=3"),
        _checkpoint(folder, "neat", "quixo:size=3"),
        Kind("Connect Four book", _book(folder), Book.load, error=InputFileError),
        Kind("positions file", _positions(folder), Positions.load, error=InputFileError),
        Kind("value network", _shipped("quixo5-evalnet.safetensors"), load_evalnet, error=EvalNetError),
        _checkpoint(folder, "evalnet", "quixo"),
    ]
    return {kind.name: kind for kind in found}


def _book(folder: Path) -> Path:
    path = folder / "book.npz"
    build_book(5, 4, 3, path)
    return path


def _positions(folder: Path) -> Path:
    path = folder / "positions.npz"
    self_play(3, 2, seed=1, players=("alphabeta:depth=1", "greedy")).save(path)
    return path


KIND_NAMES = [
    "tabular model",
    "NEAT model",
    "rules model",
    "Nim GA model",
    "Quixo table",
    "arena store",
    "qlearning checkpoint",
    "ga checkpoint",
    "es checkpoint",
    "neat checkpoint",
    "Connect Four book",
    "positions file",
    "value network",
    "evalnet checkpoint",
]
JSON_KINDS = [
    "NEAT model",
    "rules model",
    "Nim GA model",
    "ga checkpoint",
    "es checkpoint",
    "neat checkpoint",
]


# --- the property -------------------------------------------------------------------------------


def _in_time(load: Callable[[], Any]) -> BaseException | None:
    """What ``load()`` raised (None if nothing), failing the test if it does not return."""
    outcome: list[BaseException | None] = []

    def target() -> None:
        try:
            load()
        except BaseException as error:  # reported below, whatever it is
            outcome.append(error)
        else:
            outcome.append(None)

    worker = threading.Thread(target=target, daemon=True)
    worker.start()
    worker.join(HANG_SECONDS)
    assert outcome, f"the loader did not return within {HANG_SECONDS} s"
    return outcome[0]


def _check(kind: Kind, path: Path, *, must_fail: bool) -> None:
    """The loader of ``kind`` accepts ``path`` (unless ``must_fail``) or raises its own error,
    with a one-line message."""
    count("corrupt files tried")
    error = _in_time(lambda: kind.load(path))
    if error is None:
        assert not must_fail, f"{kind.name}: a damaged file was accepted"
        return
    assert isinstance(error, kind.error), f"{kind.name}: {type(error).__name__}: {str(error)[:500]}"
    message = str(error)
    assert message and "\n" not in message, repr(message[:500])
    assert len(one_line(message)) <= MAX_MESSAGE, repr(message[:500])


def _scratch(kind: Kind, folder: Path, data: bytes) -> Path:
    target = folder / f"damaged{kind.path.suffix}"
    target.unlink(missing_ok=True)
    target.write_bytes(data)
    return target


# --- byte damage ---------------------------------------------------------------------------------

flips = st.lists(st.tuples(st.integers(0, 2**31), st.integers(1, 255)), min_size=1, max_size=4)


def _flipped(data: bytes, changes: list[tuple[int, int]]) -> bytes:
    out = bytearray(data)
    for where, mask in changes:
        out[where % len(out)] ^= mask
    return bytes(out)


@pytest.mark.parametrize("name", KIND_NAMES)
def test_flipped_bytes_are_refused_cleanly(name: str, kinds: dict[str, Kind], tmp_path: Path) -> None:
    kind = kinds[name]
    sound = kind.path.read_bytes()

    @FUZZ
    @given(changes=flips)
    @example(changes=[(3947, 128)])  # a damaged schema name that is not UTF-8
    def run(changes: list[tuple[int, int]]) -> None:
        _check(kind, _scratch(kind, tmp_path, _flipped(sound, changes)), must_fail=False)

    run()


@pytest.mark.parametrize("name", KIND_NAMES)
def test_truncated_or_extended_files_are_refused_cleanly(
    name: str, kinds: dict[str, Kind], tmp_path: Path
) -> None:
    kind = kinds[name]
    sound = kind.path.read_bytes()

    @FUZZ
    @given(cut=st.integers(0, len(sound) - 1), junk=st.binary(max_size=64), extend=st.booleans())
    def run(cut: int, junk: bytes, extend: bool) -> None:
        data = sound + junk if extend and junk else sound[:cut]
        # a cut file misses what it declares; junk after a sound file may be ignored (JSON refuses
        # it); SQLite takes an empty file for a new store and may not notice a cut one
        cut_file = not extend or not junk
        _check(kind, _scratch(kind, tmp_path, data), must_fail=cut_file and kind.error is not StoreError)

    run()


@pytest.mark.parametrize("name", KIND_NAMES)
def test_what_is_not_a_regular_file_is_refused_at_once(
    name: str, kinds: dict[str, Kind], tmp_path: Path
) -> None:
    kind = kinds[name]
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)  # nobody writes to it: reading it would block for ever
    folder = tmp_path / "folder"
    folder.mkdir()
    for path in (fifo, Path("/dev/zero"), folder):
        if kind.error is StoreError and path != folder:
            continue  # SQLite opens paths itself; the store refuses folders (other files: below)
        _check(kind, path, must_fail=True)


# --- field damage (JSON files, and the header of a tabular model) --------------------------------

JUNK_VALUES: list[Any] = ["x", "", None, [], {}, -1, 2**70, 1e308, -1e308, True, [1, "x"], {"a": None}]
NON_FINITE = ["NaN", "Infinity", "-Infinity"]


def _json_of(kind: Kind) -> dict[str, Any]:
    return json.loads(kind.path.read_text())  # type: ignore[no-any-return]


def _leaves(value: Any, path: tuple[Any, ...] = (), depth: int = 0) -> list[tuple[Any, ...]]:
    """Paths to every value down to ``depth`` 3 (lists: their first two items)."""
    found = [path] if path else []
    if depth >= 3:
        return found
    if isinstance(value, dict):
        for key, item in value.items():
            found += _leaves(item, (*path, key), depth + 1)
    elif isinstance(value, list):
        for index, item in enumerate(value[:2]):
            found += _leaves(item, (*path, index), depth + 1)
    return found


def _replaced(document: Any, path: tuple[Any, ...], value: Any) -> Any:
    document = json.loads(json.dumps(document))
    place = document
    for step in path[:-1]:
        place = place[step]
    place[path[-1]] = value
    return document


MARK = "__boardlab_fuzz_value__"


def _dumped(document: Any, raw: str | None) -> str:
    """The JSON text, with the mark replaced by ``raw`` (NaN and infinities, which JSON lacks)."""
    text = json.dumps(document)
    return text if raw is None else text.replace(json.dumps(MARK), raw)


@pytest.mark.parametrize("name", JSON_KINDS)
def test_fields_of_the_wrong_type_are_refused_cleanly(
    name: str, kinds: dict[str, Kind], tmp_path: Path
) -> None:
    kind = kinds[name]
    document = _json_of(kind)
    places = _leaves(document)

    @FUZZ
    @given(
        where=st.sampled_from(places),
        value=st.one_of(st.sampled_from(JUNK_VALUES), st.just(MARK)),
        raw=st.sampled_from(NON_FINITE),
        drop=st.booleans(),
    )
    def run(where: tuple[Any, ...], value: Any, raw: str, drop: bool) -> None:
        if drop and isinstance(where[-1], str):
            changed = json.loads(json.dumps(document))
            parent = changed
            for step in where[:-1]:
                parent = parent[step]
            del parent[where[-1]]
            text = json.dumps(changed)
        else:
            text = _dumped(_replaced(document, where, value), raw if value == MARK else None)
        # NaN and infinities are never accepted, wherever they are
        _check(kind, _scratch(kind, tmp_path, text.encode()), must_fail=value == MARK and not drop)

    run()


def test_deeply_nested_json_is_refused(kinds: dict[str, Kind], tmp_path: Path) -> None:
    for name in JSON_KINDS:
        kind = kinds[name]
        _check(kind, _scratch(kind, tmp_path, b"[" * 100_000 + b"]" * 100_000), must_fail=True)


# --- tabular models: values, header and declared sizes -----------------------------------------


def _npz_parts(path: Path) -> tuple[dict[str, Any], np.ndarray, np.ndarray]:
    with np.load(path, allow_pickle=False) as data:
        return json.loads(str(data["header"])), data["keys"], data["values"]


def _npz_bytes(header: dict[str, Any] | str, keys: np.ndarray, values: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    text = header if isinstance(header, str) else json.dumps(header)
    np.savez_compressed(buffer, header=np.array(text), keys=keys, values=values)
    return buffer.getvalue()


@pytest.mark.parametrize("name", ["tabular model", "qlearning checkpoint"])
def test_tabular_header_fields_of_the_wrong_type_are_refused(
    name: str, kinds: dict[str, Kind], tmp_path: Path
) -> None:
    kind = kinds[name]
    header, keys, values = _npz_parts(kind.path)
    places = [p for p in _leaves(header) if p[0] != "curve" or len(p) <= 2]

    @FUZZ
    @given(
        where=st.sampled_from(places),
        value=st.sampled_from([*JUNK_VALUES, MARK]),
        raw=st.sampled_from(NON_FINITE),
    )
    def run(where: tuple[Any, ...], value: Any, raw: str) -> None:
        text = _dumped(_replaced(header, where, value), raw if value == MARK else None)
        _check(kind, _scratch(kind, tmp_path, _npz_bytes(text, keys, values)), must_fail=value == MARK)

    run()


def test_tabular_models_with_bad_values_or_settings_are_refused(
    kinds: dict[str, Kind], tmp_path: Path
) -> None:
    kind = kinds["tabular model"]
    header, keys, values = _npz_parts(kind.path)

    @FUZZ
    @given(
        row=st.integers(0, len(values) - 1),
        column=st.integers(0, values.shape[1] - 1),
        bad=st.sampled_from([np.nan, np.inf, -np.inf]),
        field=st.sampled_from(["fill", "hyper", "width", "entries", "num_actions", "method"]),
        junk=st.sampled_from(["x", None, -5, 1e9, [], "NaN"]),
    )
    def run(row: int, column: int, bad: float, field: str, junk: Any) -> None:
        damaged = values.copy()
        damaged[row, column] = bad
        _check(kind, _scratch(kind, tmp_path, _npz_bytes(header, keys, damaged)), must_fail=True)
        missing = {k: v for k, v in header.items() if k != field}
        _check(kind, _scratch(kind, tmp_path, _npz_bytes(missing, keys, values)), must_fail=True)
        if (field, junk) != ("fill", -5):  # a fill of -5 is sound
            _check(
                kind,
                _scratch(kind, tmp_path, _npz_bytes({**header, field: junk}, keys, values)),
                must_fail=True,
            )
        reordered = keys.copy()
        reordered[[0, -1]] = reordered[[-1, 0]]
        _check(kind, _scratch(kind, tmp_path, _npz_bytes(header, reordered, values)), must_fail=True)

    run()


def _npy_header(dtype: str, shape: tuple[int, ...]) -> bytes:
    text = repr({"descr": dtype, "fortran_order": False, "shape": shape}).encode()
    text += b" " * (63 - (len(text) + 10) % 64) + b"\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(text)) + text


def _archive(members: dict[str, bytes], sizes: dict[str, int] | None = None) -> bytes:
    """A zip of ``members``; ``sizes`` overrides the uncompressed size a member's records declare."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    data = bytearray(buffer.getvalue())
    for name, size in (sizes or {}).items():
        encoded = name.encode()
        for signature, offset in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
            at = data.find(signature)
            while at >= 0:
                name_at = at + (30 if signature == b"PK\x03\x04" else 46)
                if data[name_at : name_at + len(encoded)] == encoded:
                    data[at + offset : at + offset + 4] = struct.pack("<I", size)
                at = data.find(signature, at + 4)
    return bytes(data)


def test_huge_declared_arrays_are_refused_from_their_headers(kinds: dict[str, Kind], tmp_path: Path) -> None:
    kind = kinds["tabular model"]
    header, keys, values = _npz_parts(kind.path)
    text = np.lib.format

    def member(array: np.ndarray) -> bytes:
        buffer = io.BytesIO()
        text.write_array(buffer, array)
        return buffer.getvalue()

    sound = {"header.npy": member(np.array(json.dumps(header))), "keys.npy": member(keys)}

    @FUZZ
    @given(
        rows=st.integers(2**31, 2**40),
        lie=st.sampled_from(["npy", "zip", "both"]),
        dtype=st.sampled_from(["<f4", "<f8", "<i8", "|O"]),
    )
    def run(rows: int, lie: str, dtype: str) -> None:
        body = _npy_header(dtype, (rows, values.shape[1])) + values.tobytes()[:4096]
        members = {**sound, "values.npy": body if lie != "zip" else member(values)}
        declared = {"values.npy": 2**32 - 1} if lie != "npy" else None
        # an array of up to 8 TiB is declared; nothing that size may be allocated
        _check(kind, _scratch(kind, tmp_path, _archive(members, declared)), must_fail=True)

    run()


# --- the store: values that are not what a game record holds -----------------------------------


def test_stored_games_with_bad_move_times_are_refused(kinds: dict[str, Kind], tmp_path: Path) -> None:
    kind = kinds["arena store"]

    @FUZZ
    @given(
        column=st.sampled_from(["move_times", "moves", "outcome", "plies", "opening"]),
        value=st.one_of(
            st.sampled_from(['["x", 1]', "[NaN]", "[-1]", '{"a": 1}', "nope", "[1e999]", "[true]"]),
            st.integers(min_value=-(2**63), max_value=2**63 - 1),  # what SQLite stores as INTEGER
            st.binary(max_size=8),
        ),
    )
    def run(column: str, value: Any) -> None:
        path = tmp_path / "store.sqlite"
        shutil.copyfile(kind.path, path)
        with sqlite3.connect(path) as conn:
            names = [row[1] for row in conn.execute("PRAGMA table_info(games)")]
            if column not in names:
                return
            conn.execute(f"UPDATE games SET {column} = ? WHERE game_index = 0", (value,))
        conn.close()
        _check(kind, path, must_fail=column == "move_times" and not isinstance(value, int))

    run()


# --- agents are refused when built --------------------------------------------------------------


def test_agents_with_bad_models_are_refused_when_built(kinds: dict[str, Kind], tmp_path: Path) -> None:
    header, keys, values = _npz_parts(kinds["tabular model"].path)
    bad_values = values.copy()
    bad_values[0, 0] = np.nan
    cases = {
        "qlearning": (_npz_bytes(header, keys, bad_values), "tictactoe", ".npz"),
        "neat": (b"{" * 10, "quixo", ".json"),
        "rules": (json.dumps({**_json_of(kinds["rules model"]), "weights": "x"}).encode(), "quixo", ".json"),
        "ga": (b"", "nim", ".json"),
    }
    for agent, (data, game, suffix) in cases.items():
        path = tmp_path / f"{agent}{suffix}"
        path.write_bytes(data)
        count("corrupt files tried")
        with pytest.raises(AgentSpecError) as caught:
            make_agent(f"{agent}:model={path}", 0, game=parse_game(game))
        assert "\n" not in str(caught.value)


# --- through the command line -------------------------------------------------------------------


def _cli_cases(kinds: dict[str, Kind], folder: Path) -> list[list[str]]:
    header, keys, values = _npz_parts(kinds["tabular model"].path)
    nan = folder / "nan.npz"
    nan.write_bytes(_npz_bytes(header, keys, values * np.nan))
    fifo = folder / "fifo"
    os.mkfifo(fifo)
    resume = folder / "run"
    resume.mkdir()
    q_header, q_keys, q_values = _npz_parts(kinds["qlearning checkpoint"].path)
    q_header["hyper"]["alpha"] = "0.3"  # a string where a number belongs
    (resume / "model.npz").write_bytes(_npz_bytes(q_header, q_keys, q_values))
    store = folder / "store.sqlite"
    shutil.copyfile(kinds["arena store"].path, store)
    with sqlite3.connect(store) as conn:
        conn.execute("UPDATE games SET move_times = ? WHERE game_index = 0", ('["x"]',))
    conn.close()
    db, out = str(folder / "a.sqlite"), str(folder / "out")
    return [
        [
            "match",
            f"qlearning:model={nan}",
            "random",
            "--game=tictactoe",
            "-n",
            "2",
            "-j",
            "1",
            f"--db={db}",
            f"--out={out}",
        ],
        [
            "tournament",
            f"qlearning:model={fifo}",
            "random",
            "random",
            "--game=tictactoe",
            "-n",
            "1",
            "-j",
            "1",
            f"--db={db}",
            f"--out={out}",
        ],
        ["play", f"--agent=neat:model={fifo}", "--game=quixo"],
        ["play", "--agent=neat:model=/dev/zero", "--game=quixo"],
        ["oracle", f"qlearning:model={nan}", "--game=tictactoe"],
        ["train", "qlearning", "--game=tictactoe", "--episodes=400", f"--out={resume}", "--resume"],
        [
            "match",
            "random",
            "random",
            "--game=tictactoe",
            "-n",
            "2",
            "-j",
            "1",
            "--seed=0",
            f"--db={store}",
            f"--out={out}",
        ],
    ]


def test_bad_files_on_the_command_line_are_one_line_errors(kinds: dict[str, Kind], tmp_path: Path) -> None:
    for args in _cli_cases(kinds, tmp_path):
        count("corrupt files tried")
        result = _in_time_cli(args)
        shown = " ".join(args)
        assert result.exit_code == 2, f"{shown}: exit {result.exit_code}\n{result.output[-2000:]}"
        assert "Traceback" not in result.output, shown
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("Error: "), f"{shown}: {result.stderr[:2000]!r}"


def _in_time_cli(args: list[str]) -> Any:
    results: list[Any] = []
    error = _in_time(lambda: results.append(CliRunner().invoke(app, args, input="quit\n")))
    assert error is None, error
    return results[0]


def test_the_shared_reader_refuses_what_is_not_a_regular_file(tmp_path: Path) -> None:
    from boardlab.core.inputs import read_bytes

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for path, words in ((fifo, "FIFO"), (Path("/dev/zero"), "device"), (tmp_path, "folder")):
        with pytest.raises(InputFileError, match=words):
            read_bytes(path, "model file", 1000)
    big = tmp_path / "big"
    big.write_bytes(b"x" * 1001)
    with pytest.raises(InputFileError, match="too large"):
        read_bytes(big, "model file", 1000)


def test_the_shared_reader_takes_a_file_of_exactly_its_size_limit(tmp_path: Path) -> None:
    from boardlab.core.inputs import read_bytes

    path = tmp_path / "exact"
    path.write_bytes(b"x" * 1000)
    assert read_bytes(path, "model file", 1000) == b"x" * 1000
    with pytest.raises(InputFileError, match=r"too large \(1,000 bytes; at most 999 accepted\)"):
        read_bytes(path, "model file", 999)  # told by its size, before anything is read


@pytest.mark.parametrize("depth", [1, 199, 200, 201, 400])
def test_json_is_refused_exactly_when_nested_deeper_than_the_limit(tmp_path: Path, depth: int) -> None:
    from boardlab.core.inputs import MAX_JSON_DEPTH, read_json

    path = tmp_path / "nested.json"
    path.write_text("[" * depth + "]" * depth)
    if depth <= MAX_JSON_DEPTH:
        assert read_json(path, "weights file", 10_000) == json.loads(path.read_text())
    else:
        with pytest.raises(InputFileError, match=f"nested deeper than {MAX_JSON_DEPTH}"):
            read_json(path, "weights file", 10_000)
    # brackets inside a string, after an escaped quote, are text: no nesting at all
    path.write_text(json.dumps({"note": '\\"' + "[" * (2 * depth)}))
    assert read_json(path, "weights file", 10_000) == {"note": '\\"' + "[" * (2 * depth)}


def test_json_saved_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    """Some editors start a UTF-8 file with U+FEFF, which is no part of the JSON."""
    from boardlab.core.inputs import read_json

    path = tmp_path / "weights.json"
    path.write_bytes('\ufeff{"weights": [1, 2]}'.encode())
    assert read_json(path, "weights file", 10_000) == {"weights": [1, 2]}


@given(st.floats(-2.0, 3.0, allow_nan=False), st.booleans())
def test_checked_numbers_and_arrays_keep_both_bounds(value: float, as_array: bool) -> None:
    from boardlab.core.inputs import check_array, finite_number

    inside = 0.0 <= value <= 1.0
    check: Callable[[], object] = (
        (lambda: check_array(np.array([0.5, value]), "w", low=0.0, high=1.0))
        if as_array
        else (lambda: finite_number(value, "w", low=0.0, high=1.0))
    )
    if inside:
        check()
    else:
        with pytest.raises(InputFileError, match="w "):
            check()
    for bound in (0.0, 1.0):
        assert finite_number(bound, "w", low=0.0, high=1.0) == bound
        check_array(np.array([bound]), "w", low=0.0, high=1.0)


def test_checked_fields_tell_a_bool_from_a_number() -> None:
    from boardlab.core.inputs import check_fields

    record = {"count": 3, "rate": 0.5, "flag": True}
    kinds = {"count": "int", "rate": "number", "flag": "bool"}
    assert check_fields(record, "header", kinds) == record
    for name, bad in (("count", True), ("rate", False), ("rate", float("nan")), ("flag", 1), ("count", 3.0)):
        with pytest.raises(InputFileError, match=f"header: '{name}' must be"):
            check_fields({**record, name: bad}, "header", kinds)
    with pytest.raises(InputFileError, match="header lacks 'rate'"):
        check_fields({"count": 3, "flag": True}, "header", kinds)
