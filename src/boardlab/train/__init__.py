"""Training: one run protocol and its driver (:mod:`boardlab.train.run`), one file per method
(tabular RL, the Nim GA, the rules ES, NEAT, AlphaZero; fitted evaluations in
:mod:`~boardlab.train.eval_fit`), the plots they share (:mod:`boardlab.train.plots`) and
evaluation games kept in an arena store with their Elo curve (:mod:`boardlab.train.arena_games`);
:func:`train_model` trains one run from Python in one call."""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from boardlab.train.run import Method, TrainingError, checked_settings, train

METHOD_MODULES = {
    "qlearning": "boardlab.train.tabular",
    "mcrl": "boardlab.train.tabular",
    "ga": "boardlab.train.nim_ga",
    "es": "boardlab.train.rules_es",
    "neat": "boardlab.train.neat_quixo",
    "alphazero": "boardlab.train.alphazero",
    "evalnet": "boardlab.train.evalnet",
}
"""Each kind of ``boardlab train KIND`` and the module that holds its method (its ``KINDS``)."""


def method(kind: str) -> Method:
    """The :class:`~boardlab.train.run.Method` of ``kind`` (KeyError for an unknown one).

    A method's module is imported on first use: its compiled code, and for ``neat`` the
    neat-python library, load only for the kind being trained.
    """
    return importlib.import_module(METHOD_MODULES[kind]).KINDS[kind]  # type: ignore[no-any-return]


def train_model(
    kind: str, out: str | Path, *, game: str = "", total: int = 0, seed: int = 0, **hyper: Any
) -> Path:
    """Train a fresh ``kind`` run (``qlearning``, ``mcrl``, ``ga``...) into the folder ``out``
    and return its model file, which the kind's agent plays with ``model=``.

    ``game`` is the ``--game`` text (default: the kind's own), ``total`` the episodes or epochs
    (default: the kind's), ``hyper`` its hyper-parameters by name (``alpha=0.2``), checked as the
    command line checks them; every random choice follows ``seed``. What ``boardlab train``
    does without its learning curve, final games, summary and plots: :func:`method`, its
    ``start``, ``prepare`` and :func:`boardlab.train.run.train`, saving to the run's checkpoint
    in ``out`` (a run of the same kind already there is replaced, as ``--force`` does).
    TrainingError (or GameOptionError for a bad ``game``) before any work when the input is
    refused.
    """
    if kind not in METHOD_MODULES:
        raise TrainingError(f"unknown kind {kind!r}; accepted: {', '.join(METHOD_MODULES)}")
    chosen = method(kind)
    games = chosen.games(game or chosen.default_game)
    settings = checked_settings(chosen.settings, kind, hyper, chosen.error)
    chosen.check(games[0] if isinstance(games, tuple) else games, settings)
    folder = Path(out)
    run = chosen.start(games, settings, seed)
    try:
        chosen.check_run(run, folder)
        folder.mkdir(parents=True, exist_ok=True)
        run.prepare()
        train(run, total or chosen.default_total, checkpoint=folder / chosen.checkpoint_file)
    finally:
        run.close()
    return folder / chosen.model_file


__all__ = ["METHOD_MODULES", "method", "train_model"]
