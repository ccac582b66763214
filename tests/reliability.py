"""Counters of the reliability suites (fuzz, kill and forfeit tests), printed at the end of a run.

The README's RELIABILITY section quotes them from a long run, e.g.::

    BOARDLAB_FUZZ_EXAMPLES=2000 BOARDLAB_KILL_ROUNDS=5 .venv/bin/pytest tests/test_fuzz.py \
        tests/test_kill.py tests/test_forfeit.py
"""

from __future__ import annotations

from collections import Counter

COUNTS: Counter[str] = Counter()
"""``inputs tried``, ``kills survived`` and ``games checked`` so far in this test session."""


def count(what: str, n: int = 1) -> None:
    """Add ``n`` to the counter ``what``."""
    COUNTS[what] += n
