"""boardlab: a toolkit for board-game AI.

The names most scripts and notebooks start from are here, loaded when first used (so that
``import boardlab`` stays quick): :func:`new_game` and :func:`parse_game` (games),
:func:`make_agent`, :class:`Limit` and :class:`Decision` (agents), :class:`Session` (a game
played move by move). Everything else lives in its room: ``boardlab.games``, ``boardlab.agents``,
``boardlab.arena``, ``boardlab.play``, ``boardlab.train`` (docs/python-api.md).
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

_LAZY = {
    "new_game": "boardlab.games",
    "parse_game": "boardlab.games",
    "make_agent": "boardlab.agents",
    "Limit": "boardlab.agents.decision",
    "Decision": "boardlab.agents.decision",
    "Session": "boardlab.play.session",
}
"""Each top-level name and the module it comes from."""

__all__ = ["__version__", *_LAZY]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'boardlab' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
