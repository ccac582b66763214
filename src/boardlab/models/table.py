"""Compact tables of learned values, and the model files that hold them.

A :class:`ValueTable` maps a 64-bit position key (the canonical, symmetry-reduced hash of
:func:`boardlab.games.base.build_canonical`) to a row of ``width`` float32 values: one value
per position for Monte Carlo value learning, one per action (in the canonical frame) for
Q-learning. It is two flat arrays, open addressing with linear probing: ``keys`` (int64,
:data:`EMPTY` marks a free slot) and ``values`` (float32, ``capacity x width``), so compiled
training loops read and write it directly; a third array, ``meta``, holds the count of used
slots. The table never fills beyond :data:`MAX_LOAD`; compiled code that may add entries
stops before that and lets Python :meth:`~ValueTable.grow` it.

A model file is a NumPy ``.npz`` (read with ``allow_pickle=False``) holding

- ``header``: a JSON text: format name and :data:`VERSION`, the game spec and kernel name,
  the number of actions, the method and its hyper-parameters, the seed, the episodes
  trained, the training random state and the learning curve;
- ``keys`` (int64, n) and ``values`` (float32, n x width): the used entries, sorted by key.

Files are written atomically (temporary file in the same directory, fsync, ``os.replace``)
and checked when read: anything that does not fit is refused with :class:`ModelFileError`
(unreadable or inconsistent file) or :class:`ModelMismatchError` (a sound file for another
game, method or version).
"""

from __future__ import annotations

import json
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit

from boardlab.core.files import atomic_write

FORMAT = "boardlab-tabular"
VERSION = 1
EMPTY = np.int64(0)
ZERO_KEY = np.int64(0x5DEECE66D2B7E151)
"""Stored instead of a key equal to EMPTY (the empty board hashes to 0): one more 64-bit
value shared by two positions, as likely as any other hash collision."""
MAX_LOAD = 0.5
MIN_CAPACITY = 1024
MAX_HEADER_CHARS = 10_000_000


class ModelFileError(ValueError):
    """A model file that cannot be used: unreadable, not a boardlab table, or inconsistent."""


class ModelMismatchError(ModelFileError):
    """A sound model file made for another game, method, version or action count."""


# --- compiled access ---------------------------------------------------------------------------


@njit(cache=True, inline="always")
def stored_key(key):  # type: ignore[no-untyped-def]
    """The key as stored (EMPTY marks a free slot)."""
    return ZERO_KEY if key == EMPTY else key


@njit(cache=True)
def find(keys, key):  # type: ignore[no-untyped-def]
    """The slot holding ``key``, or -1."""
    key = stored_key(key)
    mask = keys.shape[0] - 1
    slot = key & mask
    while True:
        k = keys[slot]
        if k == key:
            return slot
        if k == EMPTY:
            return -1
        slot = (slot + 1) & mask


@njit(cache=True)
def insert(keys, values, meta, key, fill):  # type: ignore[no-untyped-def]
    """The slot holding ``key``, adding it with every value ``fill`` if absent (the caller
    keeps the load below MAX_LOAD)."""
    key = stored_key(key)
    mask = keys.shape[0] - 1
    slot = key & mask
    while True:
        k = keys[slot]
        if k == key:
            return slot
        if k == EMPTY:
            keys[slot] = key
            for j in range(values.shape[1]):
                values[slot, j] = fill
            meta[0] += 1
            return slot
        slot = (slot + 1) & mask


@njit(cache=True)
def _rehash(old_keys, old_values, keys, values, meta):  # type: ignore[no-untyped-def]
    mask = keys.shape[0] - 1
    for i in range(old_keys.shape[0]):
        key = old_keys[i]
        if key == EMPTY:
            continue
        slot = key & mask
        while keys[slot] != EMPTY:
            slot = (slot + 1) & mask
        keys[slot] = key
        values[slot] = old_values[i]
        meta[0] += 1


# --- the table ---------------------------------------------------------------------------------


class ValueTable:
    """Position key -> ``width`` float32 values, in flat arrays (see the module docstring).

    ``fill`` is the value of every entry when a key is added (and of keys never seen).
    """

    def __init__(self, width: int, capacity: int = MIN_CAPACITY, fill: float = 0.0) -> None:
        if width < 1:
            raise ValueError(f"width must be at least 1, got {width}")
        capacity = max(MIN_CAPACITY, 1 << (max(capacity, 1) - 1).bit_length())
        self.width = width
        self.fill = float(fill)
        self.keys = np.zeros(capacity, dtype=np.int64)
        self.values = np.zeros((capacity, width), dtype=np.float32)
        self.meta = np.zeros(1, dtype=np.int64)

    def __len__(self) -> int:
        return int(self.meta[0])

    @property
    def capacity(self) -> int:
        """Slots in the arrays."""
        return int(self.keys.shape[0])

    @property
    def room(self) -> int:
        """Keys that may still be added before the table must grow."""
        return int(self.capacity * MAX_LOAD) - len(self)

    def grow(self, extra: int = 1) -> None:
        """Make room for at least ``extra`` more keys (doubling the arrays as needed)."""
        capacity = self.capacity
        while int(capacity * MAX_LOAD) - len(self) < extra:
            capacity *= 2
        if capacity == self.capacity:
            return
        old_keys, old_values = self.keys, self.values
        self.keys = np.zeros(capacity, dtype=np.int64)
        self.values = np.zeros((capacity, self.width), dtype=np.float32)
        self.meta = np.zeros(1, dtype=np.int64)
        _rehash(old_keys, old_values, self.keys, self.values, self.meta)

    def get(self, key: int) -> np.ndarray | None:
        """The values of ``key`` (a read-only copy), or None when it was never added."""
        slot = find(self.keys, np.int64(key))
        return None if slot < 0 else self.values[slot].copy()

    def set(self, key: int, values: Any) -> None:
        """Set the values of ``key`` (adding it if needed)."""
        self.grow(1)
        slot = insert(self.keys, self.values, self.meta, np.int64(key), np.float32(self.fill))
        self.values[slot] = values

    def items(self) -> tuple[np.ndarray, np.ndarray]:
        """``(keys, values)`` of the used entries sorted by stored key (keys as stored)."""
        used = np.flatnonzero(self.keys != EMPTY)
        order = used[np.argsort(self.keys[used], kind="stable")]
        return self.keys[order].copy(), self.values[order].copy()

    @classmethod
    def from_items(cls, keys: np.ndarray, values: np.ndarray, fill: float = 0.0) -> ValueTable:
        """A table holding stored keys and their value rows (as :meth:`items` gives them)."""
        table = cls(values.shape[1], capacity=int(len(keys) / MAX_LOAD) + 1, fill=fill)
        table.grow(len(keys))
        old_keys = np.zeros(max(len(keys), 1), dtype=np.int64)
        old_keys[: len(keys)] = keys
        old_values = np.zeros((max(len(keys), 1), values.shape[1]), dtype=np.float32)
        old_values[: len(keys)] = values
        _rehash(old_keys, old_values, table.keys, table.values, table.meta)
        return table

    def nbytes(self) -> int:
        """Bytes of the used entries (key and values)."""
        return len(self) * (8 + 4 * self.width)


# --- model files -------------------------------------------------------------------------------


@dataclass
class TableModel:
    """A learned table with what is needed to use it, check it and train it further.

    ``header`` holds the JSON-ready facts (see the module docstring): ``game`` (spec),
    ``kernel``, ``num_actions``, ``method``, ``hyper`` (hyper-parameters), ``seed``,
    ``episodes``, ``rng`` (training random state, as a decimal string), ``curve``
    (evaluation records) and anything a trainer adds.
    """

    table: ValueTable
    header: dict[str, Any] = field(default_factory=dict)

    @property
    def method(self) -> str:
        """``qlearning`` or ``mcrl``."""
        return str(self.header["method"])

    @property
    def game(self) -> str:
        """The spec of the game the table was learned on."""
        return str(self.header["game"])

    @property
    def episodes(self) -> int:
        """Episodes trained so far."""
        return int(self.header.get("episodes", 0))


def save_model(path: Path | str, model: TableModel) -> Path:
    """Write ``model`` to ``path`` atomically (see the module docstring)."""
    path = Path(path)
    keys, values = model.table.items()
    header = {
        **model.header,
        "format": FORMAT,
        "version": VERSION,
        "width": model.table.width,
        "fill": model.table.fill,
        "entries": len(keys),
    }
    text = json.dumps(header, sort_keys=True)
    atomic_write(
        path,
        lambda handle: np.savez_compressed(handle, header=np.array(text), keys=keys, values=values),
    )
    return path


def _check_archive(path: Path) -> None:
    """ModelFileError unless ``path`` is a file that starts like a zip archive (an .npz)."""
    try:
        with open(path, "rb") as handle:
            magic = handle.read(4)
    except FileNotFoundError:
        raise ModelFileError(f"model file {path} does not exist") from None
    except OSError as error:
        raise ModelFileError(f"cannot read model file {path} ({short_error(error)})") from None
    if magic != b"PK\x03\x04":
        raise ModelFileError(f"{path} is not a model file (not an .npz archive)")


def read_header(path: Path | str) -> dict[str, Any]:
    """The JSON header of a model file, checked for format and version (arrays not read)."""
    path = Path(path)
    _check_archive(path)
    try:
        with np.load(path, allow_pickle=False) as data:
            return _header_of(path, data)
    except ModelFileError:
        raise
    except FileNotFoundError:
        raise ModelFileError(f"model file {path} does not exist") from None
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as error:
        raise ModelFileError(f"{path} is not a readable model file ({short_error(error)})") from None


def load_model(
    path: Path | str,
    *,
    game: str | None = None,
    kernel: str | None = None,
    method: str | None = None,
    num_actions: int | None = None,
) -> TableModel:
    """Read a model file; ModelFileError if it is corrupt, ModelMismatchError if it does not
    match the ``game`` spec, ``kernel`` name, ``method`` or ``num_actions`` asked for."""
    path = Path(path)
    _check_archive(path)
    try:
        with np.load(path, allow_pickle=False) as data:
            header = _header_of(path, data)
            keys = data["keys"]
            values = data["values"]
    except ModelFileError:
        raise
    except FileNotFoundError:
        raise ModelFileError(f"model file {path} does not exist") from None
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as error:
        raise ModelFileError(f"{path} is not a readable model file ({short_error(error)})") from None
    expected = {"game": game, "kernel": kernel, "method": method, "num_actions": num_actions}
    for name, want in expected.items():
        if want is not None and header.get(name) != want:
            raise ModelMismatchError(f"{path} holds a {name} of {header.get(name)!r}, not {want!r}")
    _check_arrays(path, header, keys, values)
    table = ValueTable.from_items(keys, values, fill=float(header.get("fill", 0.0)))
    return TableModel(table, header)


def _header_of(path: Path, data: Any) -> dict[str, Any]:
    if "header" not in data.files:
        raise ModelFileError(f"{path} is not a boardlab model file (no header)")
    raw = data["header"]
    if raw.dtype.kind != "U" or raw.shape != () or len(str(raw)) > MAX_HEADER_CHARS:
        raise ModelFileError(f"{path}: the header is not a JSON text")
    try:
        header = json.loads(str(raw))
    except json.JSONDecodeError as error:
        raise ModelFileError(f"{path}: the header is not valid JSON ({error.msg})") from None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise ModelFileError(f"{path} is not a boardlab tabular model (format {FORMAT!r} expected)")
    if header.get("version") != VERSION:
        raise ModelMismatchError(
            f"{path} is a version {header.get('version')!r} model; this boardlab reads version {VERSION}"
        )
    for name, kind in (("game", str), ("kernel", str), ("method", str), ("num_actions", int), ("width", int)):
        if not isinstance(header.get(name), kind):
            raise ModelFileError(f"{path}: the header has no valid {name!r}")
    return header


def _check_arrays(path: Path, header: dict[str, Any], keys: np.ndarray, values: np.ndarray) -> None:
    width = header["width"]
    expected_width = 1 if header["method"] == "mcrl" else header["num_actions"]
    if width != expected_width:
        raise ModelFileError(f"{path}: a {header['method']} table has width {expected_width}, not {width}")
    if keys.dtype != np.int64 or keys.ndim != 1:
        raise ModelFileError(f"{path}: keys must be a vector of int64, got {keys.dtype} {keys.shape}")
    if values.dtype != np.float32 or values.shape != (len(keys), width):
        raise ModelFileError(
            f"{path}: values must be float32 of shape ({len(keys)}, {width}), "
            f"got {values.dtype} {values.shape}"
        )
    if header.get("entries") != len(keys):
        raise ModelFileError(
            f"{path}: the header counts {header.get('entries')} entries, the file has {len(keys)}"
        )
    if np.any(keys == EMPTY) or len(np.unique(keys)) != len(keys):
        raise ModelFileError(f"{path}: the keys hold duplicates or empty marks")
    if not np.all(np.isfinite(values)):
        raise ModelFileError(f"{path}: the values hold NaN or infinite numbers")


def short_error(error: BaseException) -> str:
    """An exception's message, cut to fit in a one-line error."""
    text = str(error) or type(error).__name__
    return text if len(text) <= 120 else text[:117] + "..."


def read_json_model(path: Path | str, what: str, max_bytes: int) -> Any:
    """The parsed JSON of a model file; ModelFileError when it is missing, not a file, larger
    than ``max_bytes`` or not JSON (``what`` names the kind of model in the message)."""
    path = Path(path)
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        raise ModelFileError(f"model file {path} does not exist") from None
    except OSError as error:
        raise ModelFileError(f"cannot read model file {path} ({short_error(error)})") from None
    if not path.is_file():
        raise ModelFileError(f"model file {path} is not a file")
    if size > max_bytes:
        raise ModelFileError(f"{path} is too large for {what} ({size:,} bytes)")
    try:
        return json.loads(path.read_bytes().decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as error:
        reason = short_error(error)
        raise ModelFileError(f"{path} is not a readable model file (not JSON: {reason})") from None
    except OSError as error:
        raise ModelFileError(f"cannot read model file {path} ({short_error(error)})") from None


__all__ = [
    "EMPTY",
    "FORMAT",
    "VERSION",
    "ModelFileError",
    "ModelMismatchError",
    "TableModel",
    "ValueTable",
    "find",
    "insert",
    "load_model",
    "read_header",
    "read_json_model",
    "save_model",
    "short_error",
]
