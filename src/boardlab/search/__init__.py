"""Searches generic over games: alpha-beta, minimax, MCTS (compiled with numba)."""
