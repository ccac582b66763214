"""boardlab: a toolkit for board-game AI."""

__version__ = "0.1.0"
