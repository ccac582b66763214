"""hybrid agent (in progress)."""
