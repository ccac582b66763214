"""Reading the files a user gives boardlab (models, checkpoints, tables) without trusting them.

Every loader starts here, so that each file is checked the same way before any of it is used:

- it must be a regular file: a FIFO, a device (``/dev/zero``) or a folder is refused at once,
  never read (the file is opened without blocking, then checked on the open descriptor, so a
  file swapped after the check is not read either);
- its size is bounded before reading, and the bytes read never exceed the bound;
- an ``.npz`` archive is checked from its headers before any array is allocated: each member
  must be a plain ``.npy`` array (no object arrays, so no pickle), and the size each header
  declares must agree with the archive's own size records and with what its compressed bytes
  can hold (deflate expands at most about 1032 times), so an archive declaring an 8 TiB array
  is refused from a few hundred bytes; damaged bytes (a failed CRC, a broken deflate stream,
  a truncated member) end in :class:`InputFileError` too.

The loaders then check structure, dtypes, shapes, finiteness and ranges of what they read
(:func:`check_array` helps); each check costs time linear in the file.
"""

from __future__ import annotations

import io
import json
import math
import os
import stat
import zipfile
import zlib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import IO, Any

import numpy as np

MAX_JSON_DEPTH = 200
"""JSON nested deeper than this is refused before parsing (a recursion bomb)."""
DEFLATE_RATIO = 1100
"""Bytes a deflate stream can expand each compressed byte into, at most (1032, rounded up)."""
NPY_HEADER_LIMIT = 65_536


class InputFileError(ValueError):
    """A file given to boardlab that cannot be used: missing, not a regular file, too large,
    damaged, or not what it should be. The message names the file and what is wrong."""


def short_reason(error: BaseException) -> str:
    """An exception's message, cut to fit in a one-line error."""
    text = " ".join((str(error) or type(error).__name__).split())
    return text if len(text) <= 120 else text[:117] + "..."


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def open_regular(path: str | Path, what: str, max_bytes: int) -> IO[bytes]:
    """``path`` opened for reading in binary, once it is proven a regular file of at most
    ``max_bytes``; InputFileError (naming ``what``, e.g. ``model file``) otherwise.

    The open does not block (a FIFO with no writer would) and the checks are made on the open
    descriptor, so what is read is what was checked."""
    path = Path(path)
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except FileNotFoundError:
        raise InputFileError(f"{what} {path} does not exist") from None
    except IsADirectoryError:
        raise InputFileError(f"{what} {path} is a folder, not a file") from None
    except (OSError, ValueError) as error:  # ValueError: a NUL in the path
        raise InputFileError(f"cannot read {what} {path} ({short_reason(error)})") from None
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):
            raise InputFileError(f"{what} {path} is {_kind(info.st_mode)}, not a regular file")
        if info.st_size > max_bytes:
            raise InputFileError(
                f"{what} {path} is too large ({info.st_size:,} bytes; at most {max_bytes:,} accepted)"
            )
        if hasattr(os, "set_blocking"):
            os.set_blocking(descriptor, True)
        return os.fdopen(descriptor, "rb")
    except BaseException:
        os.close(descriptor)
        raise


def read_bytes(path: str | Path, what: str, max_bytes: int) -> bytes:
    """The bytes of a regular file of at most ``max_bytes`` (see :func:`open_regular`)."""
    with open_regular(path, what, max_bytes) as handle:
        try:
            data = handle.read(max_bytes + 1)
        except OSError as error:
            raise InputFileError(f"cannot read {what} {path} ({short_reason(error)})") from None
    if len(data) > max_bytes:  # it grew since it was checked
        raise InputFileError(f"{what} {path} is too large (more than {max_bytes:,} bytes)")
    return data


def _json_depth_problem(text: str) -> bool:
    """True if brackets nest deeper than MAX_JSON_DEPTH (strings skipped): one linear pass."""
    depth, in_string, escaped = 0, False, False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > MAX_JSON_DEPTH:
                return True
        elif char in "]}":
            depth -= 1
    return False


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a finite number")


def json_error_text(error: json.JSONDecodeError) -> str:
    """What is wrong and where: ``Expecting value at line 1, column 5``; Python's messages that
    end in "at" (``Unterminated string starting at``) take the place without a second "at"."""
    where = f"line {error.lineno}, column {error.colno}"
    return f"{error.msg} {where}" if error.msg.endswith(" at") else f"{error.msg} at {where}"


def read_json(path: str | Path, what: str, max_bytes: int) -> Any:
    """The parsed JSON of a regular UTF-8 file of at most ``max_bytes`` (a byte order mark that
    an editor wrote before it skipped); InputFileError when it is not one. ``NaN`` and
    ``Infinity`` (which Python's parser would accept) are refused."""
    data = read_bytes(path, what, max_bytes)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InputFileError(f"{what} {path} is damaged (not UTF-8 text)") from None
    if _json_depth_problem(text):
        raise InputFileError(f"{what} {path} is damaged (JSON nested deeper than {MAX_JSON_DEPTH})")
    try:
        return json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as error:
        raise InputFileError(f"{what} {path} is damaged (not JSON: {json_error_text(error)})") from None
    except (ValueError, RecursionError) as error:
        raise InputFileError(f"{what} {path} is damaged ({short_reason(error)})") from None


# --- npz archives ------------------------------------------------------------------------------


def _member_header(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> tuple[np.dtype, tuple[int, ...], int]:
    """``(dtype, shape, header bytes)`` read from the start of an ``.npy`` member."""
    with archive.open(info) as member:
        head = member.read(NPY_HEADER_LIMIT)
    stream = io.BytesIO(head)
    version = np.lib.format.read_magic(stream)
    if version == (1, 0):
        shape, fortran, dtype = np.lib.format.read_array_header_1_0(stream)
    elif version in ((2, 0), (3, 0)):
        shape, fortran, dtype = np.lib.format.read_array_header_2_0(stream)
    else:
        raise ValueError(f"unknown .npy version {version}")
    del fortran
    return np.dtype(dtype), tuple(int(n) for n in shape), stream.tell()


def npz_headers(path: str | Path, what: str, max_bytes: int) -> dict[str, tuple[np.dtype, tuple[int, ...]]]:
    """``{name: (dtype, shape)}`` of every array of an ``.npz`` file, from its headers, after
    checking that the archive is sound and that what the headers declare fits in its bytes;
    InputFileError otherwise. No array is read."""
    with open_regular(path, what, max_bytes) as handle:
        return _headers_of(Path(path), what, handle)


def _headers_of(path: Path, what: str, handle: IO[bytes]) -> dict[str, tuple[np.dtype, tuple[int, ...]]]:
    if handle.read(4) != b"PK\x03\x04":
        raise InputFileError(f"{what} {path} is not an .npz archive")
    handle.seek(0)
    file_size = os.fstat(handle.fileno()).st_size
    found: dict[str, tuple[np.dtype, tuple[int, ...]]] = {}
    try:
        with zipfile.ZipFile(handle) as archive:
            for info in archive.infolist():
                found[_member_name(path, what, info)] = _checked_member(path, what, archive, info, file_size)
    except InputFileError:
        raise
    except (zipfile.BadZipFile, zipfile.LargeZipFile, zlib.error, EOFError, OSError, ValueError) as error:
        raise InputFileError(f"{what} {path} is damaged ({short_reason(error)})") from None
    except (NotImplementedError, RuntimeError, SyntaxError, KeyError, TypeError) as error:
        raise InputFileError(f"{what} {path} is damaged ({short_reason(error)})") from None
    return found


def _member_name(path: Path, what: str, info: zipfile.ZipInfo) -> str:
    if not info.filename.endswith(".npy"):
        raise InputFileError(f"{what} {path} holds {info.filename[:40]!r}, not an array")
    return info.filename[: -len(".npy")]


def _checked_member(
    path: Path, what: str, archive: zipfile.ZipFile, info: zipfile.ZipInfo, file_size: int
) -> tuple[np.dtype, tuple[int, ...]]:
    name = info.filename[: -len(".npy")][:40]
    # what the archive claims to unpack must be what its compressed bytes can hold
    if info.compress_size > file_size:
        raise InputFileError(f"{what} {path} is damaged (array {name!r} claims more bytes than the file)")
    room = (
        info.compress_size if info.compress_type == zipfile.ZIP_STORED else info.compress_size * DEFLATE_RATIO
    )
    if info.file_size > room + 1024:
        raise InputFileError(f"{what} {path} is damaged (array {name!r} claims {info.file_size:,} bytes)")
    dtype, shape, header = _member_header(archive, info)
    if dtype.hasobject or dtype.kind not in "biufcUSV" or (dtype.itemsize == 0 and dtype.kind != "U"):
        raise InputFileError(f"{what} {path}: array {name!r} has dtype {dtype}, which is not accepted")
    if any(n < 0 for n in shape):
        raise InputFileError(f"{what} {path}: array {name!r} has a negative dimension")
    declared = math.prod(shape) * dtype.itemsize
    if declared + header != info.file_size:
        raise InputFileError(
            f"{what} {path} is damaged (array {name!r} declares {declared:,} bytes; the archive holds "
            f"{max(info.file_size - header, 0):,})"
        )
    return dtype, shape


def load_npz(
    path: str | Path, what: str, max_bytes: int, names: Iterable[str] | None = None
) -> dict[str, np.ndarray]:
    """The arrays ``names`` (default: all) of an ``.npz`` file checked by :func:`npz_headers`;
    InputFileError when the archive is unsound, damaged or lacks one of them."""
    path = Path(path)
    with open_regular(path, what, max_bytes) as handle:
        headers = _headers_of(path, what, handle)
        wanted = list(headers) if names is None else list(names)
        for name in wanted:
            if name not in headers:
                raise InputFileError(f"{what} {path} has no array {name!r}")
        handle.seek(0)
        try:
            with np.load(handle, allow_pickle=False) as data:
                return {name: data[name] for name in wanted}
        except (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError, KeyError) as error:
            raise InputFileError(f"{what} {path} is damaged ({short_reason(error)})") from None
        except MemoryError:
            raise InputFileError(f"{what} {path} is too large for the memory available") from None


def check_array(
    array: np.ndarray,
    where: str,
    *,
    dtype: Any = None,
    ndim: int | None = None,
    shape: tuple[int | None, ...] | None = None,
    finite: bool = False,
    low: float | None = None,
    high: float | None = None,
) -> np.ndarray:
    """``array`` if it has this dtype, rank, shape (None: any length), only finite values and
    values in ``[low, high]``; InputFileError naming ``where`` (file and array) otherwise."""
    if dtype is not None and array.dtype != np.dtype(dtype):
        raise InputFileError(f"{where} must be {np.dtype(dtype)}, not {array.dtype}")
    if ndim is not None and array.ndim != ndim:
        raise InputFileError(f"{where} must have {ndim} dimension(s), not {array.ndim}")
    if shape is not None and (
        len(shape) != array.ndim
        or any(w is not None and w != n for w, n in zip(shape, array.shape, strict=True))
    ):
        wanted = "(" + ", ".join("any" if w is None else str(w) for w in shape) + ")"
        raise InputFileError(f"{where} must have shape {wanted}, not {array.shape}")
    if finite and array.dtype.kind in "fc" and not np.all(np.isfinite(array)):
        raise InputFileError(f"{where} holds NaN or infinite numbers")
    if array.size and low is not None and array.min() < low:
        raise InputFileError(f"{where} holds a value below {low}")
    if array.size and high is not None and array.max() > high:
        raise InputFileError(f"{where} holds a value above {high}")
    return array


def finite_number(value: Any, where: str, low: float | None = None, high: float | None = None) -> float:
    """``value`` as a float if it is a finite JSON number (not a bool) in ``[low, high]``;
    InputFileError naming ``where`` otherwise."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise InputFileError(f"{where} must be a finite number, got {str(value)[:30]!r}")
    if (low is not None and value < low) or (high is not None and value > high):
        raise InputFileError(f"{where} must be within [{low}, {high}], got {value}")
    return float(value)


_KINDS: dict[str, tuple[type, ...]] = {
    "int": (int,),
    "number": (int, float),
    "str": (str,),
    "list": (list,),
    "dict": (dict,),
    "bool": (bool,),
}
_KIND_WORDS = {
    "int": "a whole number",
    "number": "a finite number",
    "str": "a text",
    "list": "a list",
    "dict": "an object",
    "bool": "true or false",
}


def check_fields(
    record: Any, where: str, required: Mapping[str, str], optional: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """``record`` if it is a JSON object whose ``required`` fields are present and whose fields
    named in ``required`` or ``optional`` have the kind given (``int``, ``number`` (finite),
    ``str``, ``list``, ``dict``, ``bool``); InputFileError naming ``where`` and the field otherwise.
    A whole number is never a bool, and numbers must be finite."""
    if not isinstance(record, dict):
        raise InputFileError(f"{where} must be a JSON object")
    for name in required:
        if name not in record:
            raise InputFileError(f"{where} lacks {name!r}")
    for name, kind in {**(optional or {}), **required}.items():
        if name not in record:
            continue
        value = record[name]
        wrong = not isinstance(value, _KINDS[kind]) or (isinstance(value, bool) and kind != "bool")
        if not wrong and kind == "number" and not math.isfinite(value):
            wrong = True
        if wrong:
            raise InputFileError(f"{where}: {name!r} must be {_KIND_WORDS[kind]}, got {str(value)[:30]!r}")
    return record


__all__ = [
    "InputFileError",
    "check_array",
    "check_fields",
    "finite_number",
    "load_npz",
    "npz_headers",
    "open_regular",
    "read_bytes",
    "read_json",
    "short_reason",
]
