"""Bounds and defaults of the searches' settings, in plain Python.

The agents declare their options with them; the searches (compiled with numba) import them
from here, so that naming and listing the agents loads no compiler.
"""

from __future__ import annotations

MAX_CONTEMPT = 100_000.0
"""Largest contempt either way: a draw's value stays far from the exact win and loss scores."""
MAX_DEPTH = 64
"""The deepest alpha-beta search, in plies."""
NO_LIMIT = 1 << 62
"""An alpha-beta node budget that never runs out."""
DEFAULT_DEPTH = 4
"""Alpha-beta's depth when neither a depth nor a time nor a node budget is given."""
DEFAULT_WIN_PROBE = True
DEFAULT_DEEPEN = 0.5
"""Share of the time after which alpha-beta starts no new depth."""
MAX_THREADS = 64
"""Most threads of one alpha-beta search."""

MINIMAX_MAX_DEPTH = 32
"""The deepest plain minimax search, in plies."""
