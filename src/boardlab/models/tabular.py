"""Playing greedily from a learned table: the compiled scores of a position's moves and the
policy that plays the best of them (the ``qlearning`` and ``mcrl`` agents, and the tabular
trainers' evaluation games).

A Q-learning table holds one value per canonical position and action: a move scores its
action's value. A Monte Carlo table holds one value per canonical position: a move scores
its result if it ends the game, else minus the discounted value of the position it leaves
(with the shaping potential added back when the model was trained with one).
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from boardlab.games.base import ONGOING, Game, Kernel, build_canonical, compiled_for
from boardlab.games.jit import cached_njit
from boardlab.models.table import ModelMismatchError, TableModel, find


def shaping_index(name: str, weight: float, kernel: Kernel) -> int:
    """The evaluation id of shaping potential ``name``, or -1 for none (``none`` or a zero
    weight); ValueError for a name the game does not evaluate."""
    if name == "none":
        return -1
    if name not in kernel.evaluations:
        accepted = ", ".join(("none", *kernel.evaluations))
        raise ValueError(f"shaping {name!r} is not an evaluation of this game; accepted: {accepted}")
    return -1 if float(weight) == 0.0 else kernel.evaluations.index(name)


def build_potential(kernel: Kernel) -> Any:
    """A compiled ``potential(ctx, a, b, shaping, weight)``: the shaping potential of an ongoing
    position for the side to move, ``weight`` times evaluation ``shaping`` (0 when it is -1)."""
    evaluate = kernel.evaluate

    @cached_njit(inline="always")
    def potential(ctx, a, b, shaping, weight):  # type: ignore[no-untyped-def]
        if shaping < 0:
            return 0.0
        return weight * np.float64(evaluate(ctx, a, b, shaping))

    return potential


def build_after_value(kernel: Kernel) -> Any:
    """A compiled ``after_value(ctx, keys, values, fill, gamma, a, b, move, shaping, weight)``:
    the Monte Carlo greedy score of ``move`` from ``(a, b)``, its result if it ends the game,
    else ``-gamma * (V[after] + Phi(after))`` (the potential added back under shaping)."""
    canonical = build_canonical(kernel)
    play, status = kernel.play, kernel.status
    potential = build_potential(kernel)

    @cached_njit(inline="always")
    def after_value(ctx, keys, values, fill, gamma, a, b, move, shaping, weight):  # type: ignore[no-untyped-def]
        x, y = play(ctx, a, b, move)
        st = status(ctx, x, y)
        if st != ONGOING:
            return -np.float64(st)
        child_key, _ = canonical(ctx, x, y)
        s = find(keys, child_key)
        v = np.float64(values[s, 0]) if s >= 0 else np.float64(fill)
        if shaping >= 0:
            v += potential(ctx, x, y, shaping, weight)
        return -gamma * v

    return after_value


def build_action_values(kernel: Kernel) -> Any:
    """A compiled ``values(ctx, keys, values, fill, is_mc, gamma, shaping, weight, a, b, moves, n,
    out)``: the greedy score of each of the ``n`` legal ``moves`` into ``out`` (see the module
    docstring; ``shaping`` is the potential's evaluation id or -1)."""
    canonical = build_canonical(kernel)
    action_maps = np.ascontiguousarray(kernel.action_maps, dtype=np.int64)
    after_value = build_after_value(kernel)

    @cached_njit
    def action_values(ctx, keys, values, fill, is_mc, gamma, shaping, weight, a, b, moves, n, out):  # type: ignore[no-untyped-def]
        if not is_mc:
            key, sym = canonical(ctx, a, b)
            slot = find(keys, key)
            for i in range(n):
                out[i] = values[slot, action_maps[sym, moves[i]]] if slot >= 0 else fill
            return
        for i in range(n):
            out[i] = after_value(ctx, keys, values, fill, gamma, a, b, moves[i], shaping, weight)

    return action_values


def compiled_action_values(kernel: Kernel) -> Any:
    """The greedy scores function for ``kernel``, compiled once per process."""
    return compiled_for(kernel, build_action_values)


class TabularPolicy:
    """Greedy play from a model: the legal move of best learned value, random among equals."""

    def __init__(self, model: TableModel, game: Game) -> None:
        kernel = game.kernel
        if model.header["kernel"] != kernel.name or model.header["num_actions"] != kernel.num_actions:
            raise ModelMismatchError(f"the model was learned on {model.game}, not {game.spec}")
        self.model = model
        self.game = game
        self.kernel = kernel
        self.is_mc = model.method == "mcrl"
        hyper = model.header["hyper"]
        self.gamma = float(hyper.get("gamma", 1.0))
        self.shaping_weight = float(hyper.get("shaping_weight", 0.0))
        try:
            self.shaping = shaping_index(str(hyper.get("shaping", "none")), self.shaping_weight, kernel)
        except ValueError as error:
            raise ModelMismatchError(f"the model's settings do not fit {game.spec}: {error}") from None
        self._values = compiled_action_values(kernel)
        self._moves = np.empty(kernel.num_actions, dtype=np.int64)
        self._out = np.empty(kernel.num_actions, dtype=np.float64)

    def scores(self, a: int, b: int) -> tuple[np.ndarray, np.ndarray]:
        """``(legal actions, their greedy scores)`` in the position with words ``(a, b)``."""
        kernel, table = self.kernel, self.model.table
        a64, b64 = np.int64(a), np.int64(b)
        n = kernel.gen_moves(kernel.ctx, a64, b64, self._moves)
        self._values(
            kernel.ctx,
            table.keys,
            table.values,
            table.fill,
            self.is_mc,
            self.gamma,
            np.int64(self.shaping),
            self.shaping_weight,
            a64,
            b64,
            self._moves,
            n,
            self._out,
        )
        return self._moves[:n].copy(), self._out[:n].copy()

    def best_actions(self, a: int, b: int) -> list[int]:
        """Every legal action of the best score (the greedy moves)."""
        actions, scores = self.scores(a, b)
        if len(actions) == 0:
            return []
        return actions[scores == scores.max()].tolist()

    def choose_action(self, a: int, b: int, rng: random.Random) -> int:
        """A greedy action, chosen at random among the best."""
        return rng.choice(self.best_actions(a, b))
