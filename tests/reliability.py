"""Counters of the reliability suites (fuzz, kill and forfeit tests), printed at the end of a run,
and the helper that finds the processes a killed command left.

The README's RELIABILITY section quotes them from a long run, e.g.::

    BOARDLAB_FUZZ_EXAMPLES=2000 BOARDLAB_KILL_ROUNDS=5 .venv/bin/pytest tests/test_fuzz.py \
        tests/test_fuzz_files.py tests/test_kill.py tests/test_kill_checkpoints.py tests/test_forfeit.py \
        tests/test_signals.py
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

COUNTS: Counter[str] = Counter()
"""``inputs tried``, ``corrupt files tried``, ``kills survived``, ``signals survived``,
``processes left`` and ``games checked`` so far in this test session."""


def count(what: str, n: int = 1) -> None:
    """Add ``n`` to the counter ``what``."""
    COUNTS[what] += n


def session_members(session: int) -> list[int]:
    """Live (non-zombie) processes of a session, read from /proc (Linux)."""
    members = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        if int(fields[3]) == session and fields[0] != "Z":
            members.append(int(entry.name))
    return members


def describe_process(pid: int) -> str:
    """``pid (parent P, group G): command line`` from /proc, for a failure message."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return f"{pid} (gone)"
    fields = stat[stat.rindex(")") + 2 :].split()
    return f"{pid} (parent {fields[1]}, group {fields[2]}): {command.strip()[:200]}"


def catches(pid: int, signum: int) -> bool:
    """Whether process ``pid`` has a handler for ``signum`` (its ``SigCgt`` mask in /proc): a
    command that answers SIGTERM has reached the work that handles it, past its start-up."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    for line in status.splitlines():
        if line.startswith("SigCgt:"):
            return bool(int(line.split()[1], 16) >> (signum - 1) & 1)
    return False
