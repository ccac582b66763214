"""Model files of the learned agents: the ones shipped with boardlab, and a cache that reads
each file once per version."""

from __future__ import annotations

import os
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Generic, TypeVar

from boardlab.agents.base import AgentSpecError
from boardlab.models.errors import ModelFileError

Model = TypeVar("Model")


def shipped_model_file(name: str) -> Path | None:
    """The path of the model file ``name`` shipped in ``boardlab.models``, or None."""
    try:
        path = Path(str(resources.files("boardlab.models") / name))
    except (ModuleNotFoundError, TypeError):
        return None
    return path if path.is_file() else None


def model_file(
    agent: str, given: str, shipped: Path | None, command: str, file_name: str, what: str = ""
) -> Path:
    """The model file an agent plays: ``given`` (its ``model=`` option), else the ``shipped``
    one; AgentSpecError saying how to train one (``command``) when there is neither."""
    if given:
        return Path(given).expanduser()
    if shipped is None:
        where = f" for {what}" if what else " in this installation"
        raise AgentSpecError(
            f"{agent}: no model is shipped{where}; train one with `{command} --out DIR` "
            f"and pass model=DIR/{file_name}"
        )
    return shipped


class ModelCache(Generic[Model]):
    """Models read by ``load``, each file once per version (its path, modification time and
    size): agents built for every game of a tournament share one copy of a large table."""

    def __init__(self, load: Callable[[Path], Model]) -> None:
        self._load = load
        self._models: dict[tuple[str, int, int], Model] = {}

    def get(self, path: Path) -> Model:
        """The model in ``path``; ModelFileError if it is missing or unsound."""
        try:
            stat = os.stat(path)
        except OSError:
            raise ModelFileError(f"model file {path} does not exist") from None
        key = (str(Path(path).resolve()), stat.st_mtime_ns, stat.st_size)
        if key not in self._models:
            self._models[key] = self._load(path)
        return self._models[key]

    def for_agent(self, agent: str, path: Path) -> Model:
        """The model in ``path`` as the agent named ``agent`` plays it; AgentSpecError, naming
        the agent, when the file is missing or unsound."""
        try:
            return self.get(path)
        except ModelFileError as error:
            raise AgentSpecError(f"{agent}: {error}") from None

    def clear(self) -> None:
        """Forget every model read so far."""
        self._models.clear()


__all__ = ["ModelCache", "model_file", "shipped_model_file"]
