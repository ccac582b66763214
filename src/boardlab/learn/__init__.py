"""Learning agents' training: tabular reinforcement learning (Monte Carlo value learning and
Q-learning) over compact canonical-position tables, their model files and plots."""
