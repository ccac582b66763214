"""The ``rules`` agent: a rule-based Quixo player whose rule weights are evolved by ES (1+λ).

The player knows ten rules, each a condition on the position (seen by the side to move) and
the moves that carry out its action; ``N`` is the board side (5 by default):

========================  ===================================================================
``empty_row``             a row holds none of my cubes: a move after which it holds one
``empty_column``          the same for a column
``complete``              a line holds N-1 of my cubes: complete it (a move that wins at once)
``block``                 a line holds N-1 opponent cubes: a move after which no line holds
                          N-1 (or N) opponent cubes
``grow_row``              a row holds at least N-2 of my cubes: a move adding one of mine to it
``grow_column``           the same for a column
``contest_row``           a row holds at least N-2 opponent cubes: a move adding one of mine to it
``contest_column``        the same for a column
``leave_threat``          deliberately bad: when a block exists, a move that is not one
``any``                   any legal move (the fallback, always active)
========================  ===================================================================

A rule is *active* when at least one legal move carries out its action (a move's effect is
read on the position it leaves, so a push along a column that slides one of my cubes into a
row counts as adding it to that row). At each move the player draws an active rule by
weighted roulette over the rules' weights (one weight in [0, 1] per rule-action pair), then
one of that rule's moves uniformly; when every active rule weighs 0 it plays any legal move.
Both draws come from the agent's seed. The conditions are computed by numba code over the
Quixo kernel (:mod:`boardlab.agents.rules_kernel`): a few microseconds per move.

``rules:model=PATH`` plays the weights in ``PATH`` (``model.json`` from
``boardlab train es --game quixo --out DIR``); without ``model=`` it plays the model shipped
in the package (``boardlab/models/quixo-rules.json``, 5×5). A model is one JSON file with its
format, version, game and board size; a damaged file, or one made for another game, board
size or version, is refused with a clear message.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from boardlab.agents.base import Agent, AgentSpecError
from boardlab.agents.models import ModelCache, model_file, shipped_model_file
from boardlab.agents.rules_layout import BAD_RULE, NUM_RULES, RULES
from boardlab.core.files import atomic_write_text
from boardlab.core.spec import option
from boardlab.models.errors import ModelFileError, ModelMismatchError, check_model_format

FORMAT = "boardlab-quixo-rules"
VERSION = 1
SHIPPED_MODEL = "quixo-rules.json"
MAX_MODEL_BYTES = 64 * 1024 * 1024

RULE_HELP = {
    "empty_row": "a row holds none of my cubes -> push one of mine into it",
    "empty_column": "a column holds none of my cubes -> push one of mine into it",
    "complete": "a line holds N-1 of my cubes -> complete it",
    "block": "a line holds N-1 opponent cubes -> block it",
    "grow_row": "a row holds at least N-2 of my cubes -> add one",
    "grow_column": "a column holds at least N-2 of my cubes -> add one",
    "contest_row": "a row holds at least N-2 opponent cubes -> add one of mine there",
    "contest_column": "a column holds at least N-2 opponent cubes -> add one of mine there",
    "leave_threat": "deliberately bad: leave the opponent's N-1 line unblocked when a block exists",
    "any": "any legal move (fallback)",
}
"""What each rule-action pair means (conditions on the mover's view; N is the board side)."""


# --- model files -------------------------------------------------------------------------------


@dataclass(frozen=True)
class RulesModel:
    """What a model file holds for playing: the board side and one weight per rule."""

    size: int
    weights: np.ndarray
    header: dict[str, Any]


def model_header(size: int, weights: Any, **extra: Any) -> dict[str, Any]:
    """The JSON content of a model file for ``weights`` on a ``size`` board, plus ``extra``
    keys (hyper-parameters, training history, training state)."""
    values = [float(w) for w in np.asarray(weights, dtype=np.float64)]
    if len(values) != NUM_RULES:
        raise ValueError(f"a rules model has {NUM_RULES} weights, got {len(values)}")
    return {
        "format": FORMAT,
        "version": VERSION,
        "game": "quixo",
        "size": int(size),
        "rules": list(RULES),
        "weights": dict(zip(RULES, values, strict=True)),
        **extra,
    }


def save_model(path: Path | str, size: int, weights: Any, **extra: Any) -> Path:
    """Write a model file atomically (see :func:`model_header`)."""
    return atomic_write_text(path, json.dumps(model_header(size, weights, **extra)))


def load_model(path: Path | str) -> RulesModel:
    """Read and check a model file: ModelFileError when it is not a sound rules model,
    ModelMismatchError when it is one made for another version or game."""
    from boardlab.models.table import read_json_model

    header = read_json_model(path, "a rules model", MAX_MODEL_BYTES)
    return model_of(header, str(path))


def model_of(header: Any, where: str = "the model") -> RulesModel:
    """The checked model of a parsed JSON header (see :func:`load_model`)."""
    check_model_format(header, where, "Quixo rules model", FORMAT, VERSION)
    if header.get("game") != "quixo":
        raise ModelMismatchError(f"{where} was made for {str(header.get('game'))[:40]!r}, not quixo")
    size = header.get("size")
    if not isinstance(size, int) or isinstance(size, bool) or size not in (3, 4, 5):
        raise ModelFileError(f"{where}: the board size must be 3, 4 or 5, got {str(size)[:20]}")
    if header.get("rules") != list(RULES):
        raise ModelMismatchError(f"{where} names other rules than this boardlab's ({', '.join(RULES)})")
    weights = header.get("weights")
    if not isinstance(weights, dict) or list(weights) != list(RULES):
        raise ModelFileError(f"{where}: the weights must be given for {', '.join(RULES)}, in that order")
    values = list(weights.values())
    if not all(isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) for v in values):
        raise ModelFileError(f"{where}: the weights must be finite numbers")
    if min(values) < 0 or max(values) > 1:
        raise ModelFileError(f"{where}: the weights must lie in [0, 1]")
    return RulesModel(size, np.array(values, dtype=np.float64), header)


def shipped_model() -> Path | None:
    """The path of the rules model shipped in the package, or None."""
    return shipped_model_file(SHIPPED_MODEL)


_MODELS: ModelCache[RulesModel] = ModelCache(load_model)
cached_model = _MODELS.get


# --- the agent ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class RulesSettings:
    """Options of the ``rules`` agent."""

    model: str = option("", "model file from `boardlab train es` (default: the model shipped in the package)")


class RulesAgent(Agent):
    """Weighted roulette over Quixo rules (see the module docstring)."""

    name = "rules"
    summary = "Quixo rules picked by evolved weights (boardlab train es)"
    games = ("quixo",)
    Settings = RulesSettings
    settings: RulesSettings

    def __init__(self, seed: int | None = None, settings: Any = None, **options: Any) -> None:
        super().__init__(seed, settings, **options)
        self._weights: dict[str, np.ndarray] = {}

    @classmethod
    def supports(cls, game: Any) -> bool:
        """Quixo on the board size of the shipped model (a ``model=`` of another size plays
        that size)."""
        if game.name != "quixo":
            return False
        path = shipped_model()
        if path is None:
            return False
        try:
            return cached_model(path).size == game.size
        except ModelFileError:
            return False

    @classmethod
    def model_path(cls, settings: Any) -> Path:
        """The model file these settings play with; AgentSpecError when there is none."""
        return model_file(cls.name, settings.model, shipped_model(), "boardlab train es", "model.json")

    @classmethod
    def model(cls, settings: Any) -> RulesModel:
        """The checked model of these settings; AgentSpecError naming what is wrong."""
        return _MODELS.for_agent(cls.name, cls.model_path(settings))

    @classmethod
    def check_game(cls, settings: Any, game: Any) -> None:
        if game.name != "quixo":
            raise AgentSpecError(f"agent {cls.name} plays only quixo, not {game.name}")
        model = cls.model(settings)
        if model.size != game.size:
            raise AgentSpecError(
                f"{cls.name}: {cls.model_path(settings)} was trained on a {model.size}x{model.size} board, "
                f"not {game.size}x{game.size}; train one with "
                f"`boardlab train es --game {game.spec} --out DIR` and pass model=DIR/model.json"
            )

    def weights(self, game: Any) -> np.ndarray:
        """The weights this agent plays ``game`` with (the model read and checked once)."""
        if game.spec not in self._weights:
            self.check_game(self.settings, game)
            self._weights[game.spec] = self.model(self.settings).weights.copy()
        return self._weights[game.spec]

    def prepare(self, game: Any) -> None:
        from boardlab.agents.rules_kernel import choose_move

        kernel = game.kernel
        buffer = np.empty(kernel.num_actions, dtype=np.int64)
        choose_move(kernel.ctx, np.int64(0), np.int64(0), self.weights(game), 0.5, 0.5, buffer, buffer.copy())

    def choose(self, state: Any) -> Any:
        from boardlab.agents.rules_kernel import choose_move

        kernel = state.kernel
        moves = np.empty(kernel.num_actions, dtype=np.int64)
        masks = np.empty(kernel.num_actions, dtype=np.int64)
        u_rule, u_move = self.rng.random(), self.rng.random()
        action = choose_move(
            kernel.ctx,
            np.int64(state.a),
            np.int64(state.b),
            self.weights(state.game),
            u_rule,
            u_move,
            moves,
            masks,
        )
        return state.move_from_index(int(action))


__all__ = [
    "BAD_RULE",
    "FORMAT",
    "NUM_RULES",
    "RULES",
    "RULE_HELP",
    "SHIPPED_MODEL",
    "VERSION",
    "RulesAgent",
    "RulesModel",
    "RulesSettings",
    "cached_model",
    "load_model",
    "model_header",
    "model_of",
    "save_model",
    "shipped_model",
]
