"""Writing files so that nothing is lost or half-written.

Every file boardlab writes (JSON, PNG, npz, tables, models) goes through :func:`atomic_write`:
the bytes go to a uniquely named temporary file in the target's folder, are flushed to disk,
and the temporary file is renamed over the target. A reader sees the old file or the new
one, never part of one, and two writers never share a temporary name.
"""

from __future__ import annotations

import io
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any


def atomic_write(path: str | Path, write: Callable[[IO[bytes]], object]) -> Path:
    """Call ``write(handle)`` on a temporary binary file beside ``path``, then move it there."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    descriptor, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    _sync_folder(target.parent)
    return target


def _sync_folder(folder: Path) -> None:
    # make the rename itself durable where the system allows opening a folder
    try:
        descriptor = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)


def atomic_write_bytes(path: str | Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically."""
    return atomic_write(path, lambda handle: handle.write(data))


def atomic_write_text(path: str | Path, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically."""
    return atomic_write_bytes(path, text.encode("utf-8"))


def atomic_savefig(figure: Any, path: str | Path, **options: Any) -> Path:
    """Save a matplotlib figure as PNG (or ``format=``) to ``path`` atomically."""
    buffer = io.BytesIO()
    figure.savefig(buffer, **{"format": "png", **options})
    return atomic_write_bytes(path, buffer.getvalue())
