"""mcts agent (in progress)."""
