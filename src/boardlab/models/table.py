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
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from boardlab.core.files import atomic_write
from boardlab.core.inputs import (
    InputFileError,
    check_fields,
    finite_number,
    load_npz,
    npz_headers,
    read_json,
    short_reason,
)
from boardlab.core.machine import memory_problem
from boardlab.core.spec import with_article
from boardlab.games.jit import cached_njit
from boardlab.models.errors import ModelFileError, ModelMismatchError, check_model_format

FORMAT = "boardlab-tabular"
VERSION = 1
EMPTY = np.int64(0)
ZERO_KEY = np.int64(0x5DEECE66D2B7E151)
"""Stored instead of a key equal to EMPTY (the empty board hashes to 0): one more 64-bit
value shared by two positions, as likely as any other hash collision."""
MAX_LOAD = 0.5
MIN_CAPACITY = 1024
MAX_HEADER_CHARS = 10_000_000


# --- compiled access ---------------------------------------------------------------------------


@cached_njit(inline="always")
def stored_key(key):  # type: ignore[no-untyped-def]
    """The key as stored (EMPTY marks a free slot)."""
    return ZERO_KEY if key == EMPTY else key


@cached_njit
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


@cached_njit
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


@cached_njit
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


MAX_MODEL_BYTES = 1 << 36
"""The largest model file read (64 GiB); the arrays it declares must fit in memory too."""


def _arrays(path: Path, names: tuple[str, ...]) -> dict[str, np.ndarray]:
    """The checked arrays ``names`` of a model file (see :mod:`boardlab.core.inputs`)."""
    headers = npz_headers(path, "model file", MAX_MODEL_BYTES)
    if "header" not in headers:
        raise ModelFileError(f"{path} is not a boardlab model file (no header)")
    declared = sum(math.prod(shape) * dtype.itemsize for dtype, shape in headers.values())
    problem = memory_problem(declared, f"model file {path}")
    if problem:
        raise ModelFileError(problem)
    return load_npz(path, "model file", MAX_MODEL_BYTES, names)


def read_header(path: Path | str) -> dict[str, Any]:
    """The JSON header of a model file, checked for format, version and values (arrays not read)."""
    path = Path(path)
    return _header_of(path, _as_model_error(lambda: _arrays(path, ("header",)))["header"])


def _as_model_error(read: Any) -> Any:
    try:
        return read()
    except ModelFileError:
        raise
    except InputFileError as error:
        raise ModelFileError(str(error)) from None


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
    arrays = _as_model_error(lambda: _arrays(path, ("header", "keys", "values")))
    header = _header_of(path, arrays["header"])
    expected = {"game": game, "kernel": kernel, "method": method, "num_actions": num_actions}
    for name, want in expected.items():
        if want is not None and header.get(name) != want:
            raise ModelMismatchError(f"{path} holds a {name} of {header.get(name)!r}, not {want!r}")
    _check_arrays(path, header, arrays["keys"], arrays["values"])
    table = ValueTable.from_items(arrays["keys"], arrays["values"], fill=float(header["fill"]))
    return TableModel(table, header)


def _header_of(path: Path, raw: np.ndarray) -> dict[str, Any]:
    if raw.dtype.kind != "U" or raw.shape != () or len(str(raw)) > MAX_HEADER_CHARS:
        raise ModelFileError(f"{path}: the header is not a JSON text")
    try:
        header = json.loads(str(raw), parse_constant=_no_constant)
    except json.JSONDecodeError as error:
        raise ModelFileError(f"{path}: the header is not valid JSON ({error.msg})") from None
    except (ValueError, RecursionError) as error:
        raise ModelFileError(f"{path}: the header is not valid JSON ({short_error(error)})") from None
    check_model_format(header, str(path), "tabular model", FORMAT, VERSION)
    for name, kind in (("game", str), ("kernel", str), ("method", str), ("hyper", dict)):
        if not isinstance(header.get(name), kind):
            raise ModelFileError(f"{path}: the header has no valid {name!r}")
    if header["method"] not in METHODS:
        raise ModelFileError(f"{path}: the header's method must be one of {', '.join(METHODS)}")
    for name, low, high in (("num_actions", 1, MAX_WIDTH), ("width", 1, MAX_WIDTH), ("entries", 0, 1 << 40)):
        value = header.get(name)
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise ModelFileError(f"{path}: the header's {name!r} must be a whole number in [{low}, {high}]")
    episodes = header.get("episodes", 0)
    if isinstance(episodes, bool) or not isinstance(episodes, int) or episodes < 0:
        raise ModelFileError(f"{path}: the header's 'episodes' must be a whole number, at least 0")
    _as_model_error(lambda: finite_number(header.get("fill"), f"{path}: the header's 'fill'", -1e6, 1e6))
    _check_hyper(path, header["hyper"])
    _as_model_error(lambda: check_fields(header, str(path), {}, TRAINING_FIELDS))
    if isinstance(header.get("seed"), int) and header["seed"] < 0:
        raise ModelFileError(f"{path}: the header's 'seed' must be at least 0")
    return header


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a finite number")


METHODS = ("qlearning", "mcrl")
TRAINING_FIELDS = {"seed": "int", "rng": "str", "curve": "list", "stats": "list", "train_seconds": "number"}
"""What a trainer keeps in the header, checked when present (a model file may lack them)."""
MAX_WIDTH = 1 << 20
_HYPER_NUMBERS = ("gamma", "shaping_weight", "alpha", "epsilon", "epsilon_end", "epsilon_decay", "q_init")


def _check_hyper(path: Path, hyper: dict[str, Any]) -> None:
    """The hyper-parameters greedy play reads must be usable: finite numbers, a text shaping
    (the trainer checks the rest, against its declared ranges, when a run is resumed)."""
    for name in _HYPER_NUMBERS:
        if name in hyper:
            _as_model_error(lambda name=name: finite_number(hyper[name], f"{path}: hyper-parameter {name!r}"))
    if not isinstance(hyper.get("shaping", "none"), str):
        raise ModelFileError(f"{path}: hyper-parameter 'shaping' must be a name")


def _check_arrays(path: Path, header: dict[str, Any], keys: np.ndarray, values: np.ndarray) -> None:
    width = header["width"]
    expected_width = 1 if header["method"] == "mcrl" else header["num_actions"]
    if width != expected_width:
        raise ModelFileError(
            f"{path}: {with_article(str(header['method']))} table has width {expected_width}, not {width}"
        )
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
    # the keys are written sorted: one linear pass finds duplicates and empty marks
    if np.any(keys == EMPTY) or (len(keys) > 1 and not np.all(keys[1:] > keys[:-1])):
        raise ModelFileError(f"{path}: the keys hold duplicates, empty marks or are out of order")
    if not np.all(np.isfinite(values)):
        raise ModelFileError(f"{path}: the values hold NaN or infinite numbers")


def short_error(error: BaseException) -> str:
    """An exception's message, cut to fit in a one-line error."""
    return short_reason(error)


def read_json_model(path: Path | str, what: str, max_bytes: int) -> Any:
    """The parsed JSON of a model file; ModelFileError when it is missing, not a regular file,
    larger than ``max_bytes`` or not JSON (``what`` names the kind of model in the message)."""
    return _as_model_error(lambda: read_json(path, f"model file ({what})", max_bytes))


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
