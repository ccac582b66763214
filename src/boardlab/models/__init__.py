"""Learned models: their file formats and how they are read and played (the tabular table
format in :mod:`~boardlab.models.table`, greedy play from it in :mod:`~boardlab.models.tabular`,
Nim genomes in :mod:`~boardlab.models.nim_genome`), and the small trained models shipped with
boardlab (package data), used by the learned agents when no ``model=`` is given.

- ``tictactoe-qlearning.npz`` and ``tictactoe-mcrl.npz`` (``boardlab train qlearning|mcrl
  --game tictactoe --episodes 30000 --seed 0``) play perfectly (checked against the solved game).
- ``quixo-size3-mcrl.npz`` (``boardlab train mcrl --game quixo:size=3 --episodes 50000 --seed
  0``) keeps the perfect-play value on every open 3×3 board (checked against the Quixo tables);
  ``quixo-size3-qlearning.npz`` (``boardlab train qlearning --game quixo:size=3 --episodes
  1000000 --opening 30 --seed 0``) on 95% of them, and at all but 36 of the 3,513 positions it
  meets from either side against any opponent.
- ``quixo-rules.json`` is the ``rules`` agent's 5×5 model, evolved with ``boardlab train es``
  (its command, weights and measured win rates are in the file).
- ``quixo-neat.json`` is the ``neat`` agent's 5×5 champion, evolved with ``boardlab train
  neat`` (the genome as JSON, its hyper-parameters and neat-python configuration in the file).
- ``quixo5-evalnet.safetensors`` is the value network of ``alphabeta:eval=net`` on 5×5 Quixo
  (both rulebooks; :mod:`~boardlab.models.evalnet` holds its format and compiled forward pass),
  trained with ``boardlab train evalnet`` as a correction of ``tuned`` (the command is in
  BENCHMARKS.md; its training settings and held-out log-loss are in the file's metadata).
- ``alphazero-tictactoe.safetensors`` (``boardlab train alphazero --game tictactoe --hours 0.08
  --blocks 2 --reuse 16 --lr 0.003 --full-share 0.5``) plays perfectly at 400 simulations;
  ``alphazero-connect4.safetensors`` is the Connect Four run's network after 4.75 hours
  (``boardlab train alphazero --game connect4 --hours 6 --games 128 --parallel 64 --reuse 8
  --versus-games 6``; its checkpoint, to resume the run, is in ``checkpoints/alphazero-connect4``).
- ``nim-ga.json`` is the ``nimga`` agent's model, a ``rules`` genome evolved with ``boardlab
  train ga`` on normal and misère Nim.
"""
