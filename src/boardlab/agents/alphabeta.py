"""alphabeta agent (in progress)."""
