"""Small trained models shipped with boardlab (package data), used by the learned agents
when no ``model=`` is given: ``tictactoe-qlearning.npz`` and ``tictactoe-mcrl.npz`` were made
with ``boardlab train qlearning|mcrl --game tictactoe --episodes 30000 --seed 0`` and play
perfectly (checked against the solved game). ``quixo-rules.json`` is the ``rules`` agent's 5×5
model, evolved with ``boardlab train es`` (its command, weights and measured win rates are in
the file).
"""
