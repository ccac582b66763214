"""Training: one run protocol and its driver (:mod:`boardlab.train.run`), one file per method
(tabular RL, the Nim GA, the rules ES, NEAT, AlphaZero; fitted evaluations in
:mod:`~boardlab.train.eval_fit`), the plots they share (:mod:`boardlab.train.plots`) and
evaluation games kept in an arena store with their Elo curve (:mod:`boardlab.train.arena_games`)."""

from __future__ import annotations

import importlib

from boardlab.train.run import Method

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


__all__ = ["METHOD_MODULES", "method"]
