"""What the machine offers: memory, so that work asking for more is refused before it starts."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path


def available_memory() -> int | None:
    """Bytes of memory available to a new allocation (Linux: MemAvailable), or None if unknown."""
    with contextlib.suppress(OSError, ValueError, IndexError):
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    with contextlib.suppress(OSError, ValueError, AttributeError):
        return int(os.sysconf("SC_AVPHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    return None


def format_bytes(count: float) -> str:
    """``1.5 GiB``-style text of a byte count."""
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if abs(count) < 1024 or unit == "PiB":
            return f"{count:.0f} {unit}" if unit == "B" else f"{count:.1f} {unit}"
        count /= 1024
    return f"{count:.1f} PiB"


def memory_problem(need: int, what: str) -> str | None:
    """A sentence saying that ``what`` needs more than the available memory, or None if it fits."""
    available = available_memory()
    if available is None or need <= available:
        return None
    return (
        f"{what} needs {format_bytes(need)} of memory; this machine has {format_bytes(available)} available"
    )
