"""The ``nimga`` agent: plays Nim with a genome evolved by ``boardlab train ga``.

``nimga:model=PATH`` plays the best-scoring move of the genome in ``PATH`` (a ``model.json``
written by ``boardlab train ga --game nim... --out DIR``, or the small file
:func:`boardlab.train.nim_ga.save_player` writes), ties split at random from the agent's seed.
Without ``model=`` it plays the model shipped in the package (``boardlab/models/nim-ga.json``,
a ``rules`` genome evolved on normal and misère Nim with and without a move limit). A genome
reads features that do not depend on the number or size of the piles, so a model plays every
Nim game; a ``rules`` model trained on one play convention only is refused for the other
(it has learned nothing there). A damaged file, or one made for something else, is refused
with a clear message.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from boardlab.agents.base import Agent, AgentSpecError
from boardlab.agents.models import ModelCache, model_file, shipped_model_file
from boardlab.core.spec import option

if TYPE_CHECKING:
    from boardlab.models.nim_genome import GenomeModel, GenomePolicy

# The genome's scoring is compiled (numba): :mod:`boardlab.models.nim_genome` is imported where
# a model is read or played, so that naming and listing the agents loads no compiler.

SHIPPED_MODEL = "nim-ga.json"


@dataclass(frozen=True)
class NimGenomeSettings:
    """Options of the ``nimga`` agent."""

    model: str = option("", "model file from `boardlab train ga` (default: the model shipped in the package)")


def shipped_model() -> Path | None:
    """The path of the Nim GA model shipped in the package, or None."""
    return shipped_model_file(SHIPPED_MODEL)


def _load_model(path: Path) -> GenomeModel:
    from boardlab.models.nim_genome import load_model

    return load_model(path)


_MODELS: ModelCache[GenomeModel] = ModelCache(_load_model)
cached_model = _MODELS.get


class NimGenomeAgent(Agent):
    """Best-scoring moves of an evolved genome (see the module docstring)."""

    name = "nimga"
    summary = "Nim by a genome evolved with a GA (boardlab train ga)"
    games = ("nim",)
    Settings = NimGenomeSettings
    settings: NimGenomeSettings

    def __init__(self, seed: int | None = None, settings: Any = None, **options: Any) -> None:
        super().__init__(seed, settings, **options)
        self._policies: dict[str, GenomePolicy] = {}

    @classmethod
    def model_path(cls, settings: Any) -> Path:
        """The model file these settings play with; AgentSpecError when there is none."""
        return model_file(cls.name, settings.model, shipped_model(), "boardlab train ga", "model.json")

    @classmethod
    def model(cls, settings: Any) -> GenomeModel:
        """The checked model of these settings; AgentSpecError naming what is wrong."""
        return _MODELS.for_agent(cls.name, cls.model_path(settings))

    @classmethod
    def check_game(cls, settings: Any, game: Any) -> None:
        super().check_game(settings, game)
        model = cls.model(settings)
        convention = "misere" if game.misere else "normal"
        if model.kind == "rules" and convention not in model.conventions:
            play = "misère" if game.misere else "normal play"
            raise AgentSpecError(
                f"{cls.name}: {cls.model_path(settings)} was trained on {'; '.join(model.games)} only "
                f"and has learned nothing about {play}; train it on such a game too"
            )

    def policy(self, game: Any) -> GenomePolicy:
        """The genome's player on ``game`` (the model read and checked once)."""
        from boardlab.models.nim_genome import GenomePolicy

        if game.spec not in self._policies:
            self.check_game(self.settings, game)
            model = self.model(self.settings)
            self._policies[game.spec] = GenomePolicy(model.kind, model.genome, game)
        return self._policies[game.spec]

    def prepare(self, game: Any) -> None:
        a, b = game.initial_words()
        self.policy(game).scores(a, b)  # reads the model and compiles the scoring

    def choose(self, state: Any) -> Any:
        action = self.policy(state.game).choose_action(state.a, state.b, self.rng)
        return state.move_from_index(action)


__all__ = ["SHIPPED_MODEL", "NimGenomeAgent", "NimGenomeSettings", "shipped_model"]
