"""The Quixo tablebase file: one file per cube-count class, memory-mapped on load.

Layout (little-endian)::

    header   64 bytes: magic, version, board size, class (a, b), depth width, flags
             (bit 0: solved under the course rules), count, win / loss / draw counts,
             CRC-32 of the payload, CRC-32 of the header
    values   ceil(count / 4) bytes, padded to a multiple of 8: 2 bits per position
             (position i in bits 2*(i % 4) of byte i // 4): 0 draw, 1 win, 2 loss
    depths   count unsigned integers of ``depth width`` bytes (1 or 2): plies to the end
             of the game under perfect play (0 for draws and finished positions)

Values and depths are for the side to move; position indices are those of
:mod:`boardlab.games.quixo.index`. Files are written atomically (a temporary name in
the same folder, fsync, ``os.replace``) so that a killed solve leaves either the old file
or the new one, never half of one.
"""

from __future__ import annotations

import os
import struct
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from boardlab.core.console import counted
from boardlab.core.files import atomic_write
from boardlab.core.inputs import InputFileError, open_regular
from boardlab.games.quixo.index import class_size

MAGIC = b"BLQXTB\r\n"
VERSION = 1
HEADER_SIZE = 64
_HEADER = struct.Struct("<8sHBBBBHQQQQII")  # 56 bytes, padded to HEADER_SIZE
DRAW_CODE, WIN_CODE, LOSS_CODE = 0, 1, 2
MAX_TABLE_BYTES = 1 << 40
"""No class table of a board boardlab solves comes near this (the file is memory-mapped, not read)."""
RULEBOOKS = ("official", "course")
"""The Quixo rulebooks a table can be solved under, by flag value (see :mod:`boardlab.games.quixo`)."""


class TablebaseFormatError(InputFileError):
    """A tablebase file that is missing, truncated, corrupt or not the one expected."""


@dataclass(frozen=True)
class ClassTable:
    """The solved values of one class: packed 2-bit codes and depths (often memory maps)."""

    size: int
    a: int
    b: int
    values: np.ndarray  # uint8, packed 4 per byte
    depths: np.ndarray  # uint8 or uint16
    wins: int
    losses: int
    draws: int
    rulebook: str = "official"

    @property
    def count(self) -> int:
        """Number of positions in the class."""
        return self.wins + self.losses + self.draws


def _flags(rulebook: str) -> int:
    if rulebook not in RULEBOOKS:
        raise ValueError(f"unknown Quixo rulebook {rulebook!r}; known: {', '.join(RULEBOOKS)}")
    return RULEBOOKS.index(rulebook)


def table_path(directory: Path, size: int, a: int, b: int) -> Path:
    """Where the table of class ``(a, b)`` of an n x n board lives under ``directory``."""
    return Path(directory) / f"quixo{size}_{a:02d}_{b:02d}.qtb"


def _values_bytes(count: int) -> int:
    return ((count + 3) // 4 + 7) // 8 * 8


def pack_values(codes: np.ndarray) -> np.ndarray:
    """Pack uint8 codes (0..3) four to a byte."""
    count = codes.shape[0]
    padded = np.zeros(((count + 3) // 4) * 4, dtype=np.uint8)
    padded[:count] = codes
    quads = padded.reshape(-1, 4)
    return (quads[:, 0] | quads[:, 1] << 2 | quads[:, 2] << 4 | quads[:, 3] << 6).astype(np.uint8)


def unpack_values(packed: np.ndarray, count: int) -> np.ndarray:
    """Inverse of :func:`pack_values`."""
    packed = np.asarray(packed, dtype=np.uint8)
    out = np.empty((packed.shape[0], 4), dtype=np.uint8)
    for k in range(4):
        out[:, k] = (packed >> (2 * k)) & 3
    return out.reshape(-1)[:count]


def write_table(
    directory: Path,
    size: int,
    a: int,
    b: int,
    codes: np.ndarray,
    depths: np.ndarray,
    rulebook: str = "official",
) -> ClassTable:
    """Write one class atomically; ``codes`` are unpacked uint8 values, ``depths`` plies."""
    flags = _flags(rulebook)
    count = class_size(size * size, a, b)
    if codes.shape != (count,) or depths.shape != (count,):
        has = counted(count, "position")
        raise ValueError(f"class ({a}, {b}) has {has}, got {codes.shape} / {depths.shape}")
    max_depth = int(depths.max()) if count else 0
    width = 1 if max_depth < 256 else 2
    if max_depth >= 1 << 16:
        raise ValueError(f"depth {max_depth} does not fit the format")
    packed = pack_values(codes)
    depth_bytes = depths.astype(np.uint8 if width == 1 else "<u2").tobytes()
    values_bytes = packed.tobytes().ljust(_values_bytes(count), b"\0")
    crc = zlib.crc32(depth_bytes, zlib.crc32(values_bytes))
    tally = np.bincount(codes, minlength=4)
    wins, losses, draws = int(tally[WIN_CODE]), int(tally[LOSS_CODE]), int(tally[DRAW_CODE])
    head = _HEADER.pack(MAGIC, VERSION, size, a, b, width, flags, count, wins, losses, draws, crc, 0)
    head = head[:-4] + struct.pack("<I", zlib.crc32(head[:-4]))
    atomic_write(
        table_path(Path(directory), size, a, b),
        lambda f: f.write(head.ljust(HEADER_SIZE, b"\0") + values_bytes + depth_bytes),
    )
    small_depths = depths.astype(np.uint8 if width == 1 else np.uint16)
    return ClassTable(size, a, b, packed, small_depths, wins, losses, draws, rulebook)


def read_table(
    directory: Path, size: int, a: int, b: int, verify: bool = True, rulebook: str = "official"
) -> ClassTable:
    """Memory-map the table of class ``(a, b)``; TablebaseFormatError if it is not sound."""
    path = table_path(directory, size, a, b)
    return read_table_file(path, size, a, b, verify, rulebook)


def _read_header(path: Path) -> tuple[int, tuple[Any, ...]]:
    """The file size and header fields of a table file; TablebaseFormatError if it is missing,
    not a regular file, truncated, not a boardlab table, of another format version, or its
    header checksum fails."""
    where = f"tablebase file {path}"
    if not path.exists():
        raise TablebaseFormatError(f"{where} is missing")
    try:  # a regular file only (a FIFO or a device is refused, never read)
        with open_regular(path, "tablebase file", MAX_TABLE_BYTES) as f:
            actual_size = os.fstat(f.fileno()).st_size
            head = f.read(HEADER_SIZE)
    except InputFileError as error:
        raise TablebaseFormatError(str(error)) from None
    if actual_size < HEADER_SIZE or len(head) < HEADER_SIZE:
        raise TablebaseFormatError(f"{where} is truncated: {actual_size} bytes, shorter than its header")
    fields = _HEADER.unpack(head[: _HEADER.size])
    magic, version, head_crc = fields[0], fields[1], fields[12]
    if magic != MAGIC:
        raise TablebaseFormatError(f"{where} is not a boardlab Quixo table (bad magic {magic!r})")
    if head_crc != zlib.crc32(head[: _HEADER.size - 4]):
        raise TablebaseFormatError(f"{where} has a corrupt header (checksum mismatch)")
    if version != VERSION:
        raise TablebaseFormatError(f"{where} has format version {version}; this boardlab reads {VERSION}")
    return actual_size, fields


def read_table_file(
    path: Path, size: int, a: int, b: int, verify: bool = True, rulebook: str = "official"
) -> ClassTable:
    """Memory-map one table file and check it is the class expected, solved under ``rulebook``."""
    expected_flags = _flags(rulebook)
    path = Path(path)
    where = f"tablebase file {path}"
    actual_size, fields = _read_header(path)
    _, _, fsize, fa, fb, width, flags, count, wins, losses, draws, crc, _ = fields
    if (fsize, fa, fb) != (size, a, b):
        raise TablebaseFormatError(
            f"{where} holds class ({fa}, {fb}) of a {fsize}x{fsize} board, "
            f"expected ({a}, {b}) of {size}x{size}"
        )
    if flags != expected_flags:
        found = RULEBOOKS[flags] if flags < len(RULEBOOKS) else f"unknown (flags {flags})"
        raise TablebaseFormatError(
            f"{where} was solved under the {found} rules, expected the {rulebook} rules"
        )
    expected_count = class_size(size * size, a, b)
    if count != expected_count or wins + losses + draws != count or width not in (1, 2):
        raise TablebaseFormatError(
            f"{where} declares {counted(count, 'position')}; class ({a}, {b}) has {expected_count}"
        )
    values_len = _values_bytes(count)
    expected_bytes = HEADER_SIZE + values_len + count * width
    if actual_size != expected_bytes:
        state = "truncated" if actual_size < expected_bytes else "too long"
        raise TablebaseFormatError(f"{where} is {state}: {actual_size} bytes, expected {expected_bytes}")
    raw = np.memmap(path, dtype=np.uint8, mode="r")
    if verify:
        payload = raw[HEADER_SIZE:]
        if zlib.crc32(payload.data) != crc:
            raise TablebaseFormatError(f"{where} is corrupt (payload checksum mismatch)")
    values = raw[HEADER_SIZE : HEADER_SIZE + (count + 3) // 4]
    depth_raw = raw[HEADER_SIZE + values_len :]
    depths = depth_raw if width == 1 else depth_raw.view("<u2")
    return ClassTable(size, a, b, values, depths, wins, losses, draws, rulebook)


def folder_rulebook(directory: Path, size: int) -> str | None:
    """The rulebook of the ``size`` x ``size`` tables already in ``directory`` (None: none readable).

    Only the headers are read: a file too damaged to tell is skipped (a solve rebuilds it).
    """
    folder = Path(directory)
    if not folder.is_dir():
        return None
    for path in sorted(folder.glob(f"quixo{size}_*.qtb")):
        try:
            _, fields = _read_header(path)
        except (TablebaseFormatError, OSError):
            continue
        fsize, flags = fields[2], fields[6]
        if fsize == size and flags < len(RULEBOOKS):
            return RULEBOOKS[flags]
    return None
