"""Agents playing greedily from a learned table: ``qlearning`` and ``mcrl``.

``qlearning:model=PATH`` plays the legal move of highest learned Q-value; ``mcrl:model=PATH``
the move leading to the position of best learned value (a finished game scores its result).
Equal values are split at random from the agent's seed; a position the table never saw has
every move equal (unless shaping ranks them). Models come from
``boardlab train qlearning|mcrl --game NAME --out DIR`` (the file is ``DIR/model.npz``); a
model trained with reward shaping carries it, and the ``mcrl`` agent adds the shaping
potential back when it scores moves. Without ``model=`` the agent uses the small model
shipped in the package for the game (Tic-Tac-Toe); a file for another game or method, or a
damaged file, is refused with a clear message.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from boardlab.agents.base import Agent, AgentSpecError
from boardlab.agents.models import ModelCache, model_file, shipped_model_file
from boardlab.core.spec import option, with_article
from boardlab.models.errors import ModelFileError

if TYPE_CHECKING:
    from boardlab.models.table import TableModel

# The tables' code is compiled (numba): it is imported where a model is read or played, so
# that naming and listing the agents loads no compiler.


@dataclass(frozen=True)
class TabularSettings:
    """Options of the tabular agents."""

    model: str = option("", "model file from `boardlab train` (default: the model shipped for the game)")


def shipped_model_name(game_spec: str, method: str) -> str:
    """The file name of the model shipped for a game spec, e.g. ``tictactoe-qlearning.npz``."""
    slug = game_spec.replace(":", "-").replace(",", "-").replace("=", "")
    return f"{slug}-{method}.npz"


def shipped_model(game_spec: str, method: str) -> Path | None:
    """The path of the model shipped in the package for this game and method, or None."""
    return shipped_model_file(shipped_model_name(game_spec, method))


def _load_model(path: Path, method: str) -> TableModel:
    from boardlab.models.table import load_model

    return load_model(path, method=method)


_MODELS: dict[str, ModelCache[TableModel]] = {
    method: ModelCache(partial(_load_model, method=method)) for method in ("qlearning", "mcrl")
}


def cached_model(path: Path, method: str) -> TableModel:
    """The model in ``path``, read once per file version (the table is only read from)."""
    return _MODELS[method].get(path)


def forget_models() -> None:
    """Drop every model read so far (a long benchmark that saves and plays many large tables)."""
    for cache in _MODELS.values():
        cache.clear()


class TabularAgent(Agent):
    """Greedy play from a learned table (see the module docstring)."""

    method: ClassVar[str] = ""
    Settings: ClassVar[type] = TabularSettings
    settings: TabularSettings

    def __init__(self, seed: int | None = None, settings: Any = None, **options: Any) -> None:
        super().__init__(seed, settings, **options)
        self._policies: dict[str, Any] = {}

    @classmethod
    def model_path(cls, settings: Any, game: Any) -> Path:
        """The model file these settings play ``game`` with; AgentSpecError when there is none."""
        shipped = shipped_model(game.spec, cls.method)
        command = f"boardlab train {cls.method} --game {game.spec}"
        return model_file(cls.name, settings.model, shipped, command, "model.npz", what=game.spec)

    @classmethod
    def supports(cls, game: Any) -> bool:
        return shipped_model(game.spec, cls.method) is not None

    @classmethod
    def check_game(cls, settings: Any, game: Any) -> None:
        from boardlab.models.table import read_header
        from boardlab.models.tabular import shaping_index

        path = cls.model_path(settings, game)
        try:
            header = read_header(path)
        except ModelFileError as error:
            raise AgentSpecError(f"{cls.name}: {error}") from None
        if header["method"] != cls.method:
            raise AgentSpecError(
                f"{cls.name}: {path} is {with_article(str(header['method']))} model; "
                f"play it with the {header['method']} agent"
            )
        if header["kernel"] != game.kernel.name or header["game"] != game.spec:
            raise AgentSpecError(f"{cls.name}: {path} was trained on {header['game']}, not {game.spec}")
        # the whole file is checked now (values, keys, settings), so that a damaged model is
        # refused when the agent is built, not forfeited game after game
        try:
            model = cached_model(path, cls.method)
            hyper = model.header["hyper"]
            shaping_index(
                str(hyper.get("shaping", "none")), float(hyper.get("shaping_weight", 0.0)), game.kernel
            )
        except ModelFileError as error:
            raise AgentSpecError(f"{cls.name}: {error}") from None
        except ValueError as error:
            raise AgentSpecError(
                f"{cls.name}: {path}: the model's settings do not fit {game.spec}: {error}"
            ) from None

    def policy(self, game: Any) -> Any:
        """The greedy policy for ``game`` (the model read and checked once)."""
        from boardlab.models.tabular import TabularPolicy

        if game.spec not in self._policies:
            self.check_game(self.settings, game)
            path = self.model_path(self.settings, game)
            try:
                model = cached_model(path, self.method)
                self._policies[game.spec] = TabularPolicy(model, game)
            except ModelFileError as error:
                raise AgentSpecError(f"{self.name}: {error}") from None
        return self._policies[game.spec]

    def prepare(self, game: Any) -> None:
        a, b = game.initial_words()
        self.policy(game).scores(a, b)  # reads the model and compiles the greedy scores

    def choose(self, state: Any) -> Any:
        action = self.policy(state.game).choose_action(state.a, state.b, self.rng)
        return state.move_from_index(action)


class QLearningAgent(TabularAgent):
    """Greedy on a Q-table learned by Q-learning."""

    name = "qlearning"
    summary = "greedy on a learned Q-table (boardlab train qlearning)"
    method = "qlearning"


class MonteCarloAgent(TabularAgent):
    """Greedy on a value table learned by Monte Carlo value learning."""

    name = "mcrl"
    summary = "greedy on a learned value table (boardlab train mcrl)"
    method = "mcrl"


__all__ = [
    "MonteCarloAgent",
    "QLearningAgent",
    "TabularAgent",
    "TabularSettings",
    "forget_models",
    "shipped_model",
]
