"""Game rules. Each game offers an immutable Python ``State`` and a compiled ``Kernel``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from boardlab.games.base import (
    GameError,
    GameOverError,
    GameState,
    IllegalMoveError,
    Kernel,
    MoveParseError,
    PositionParseError,
)


class UnknownGameError(GameError):
    """A game name or option that boardlab does not know."""


def _quixo(size: int = 5, ply_cap: int = 200) -> Any:
    from boardlab.games.quixo import State

    return State.initial(size=size, ply_cap=ply_cap)


GAMES: dict[str, Callable[..., Any]] = {"quixo": _quixo}
GAME_OPTIONS: dict[str, dict[str, type]] = {"quixo": {"size": int, "ply_cap": int}}


def new_game(spec: str = "quixo") -> Any:
    """The starting state of a game from a spec such as ``quixo`` or ``quixo:size=4``."""
    name, _, rest = spec.partition(":")
    name = name.strip().lower()
    if name not in GAMES:
        raise UnknownGameError(f"unknown game {name!r}; known games: {', '.join(sorted(GAMES))}")
    options: dict[str, Any] = {}
    for item in filter(None, (p.strip() for p in rest.split(","))):
        key, eq, value = item.partition("=")
        accepted = GAME_OPTIONS[name]
        if not eq or key not in accepted:
            raise UnknownGameError(
                f"bad option {item!r} for {name}; accepted: {', '.join(f'{k}=INT' for k in accepted)}"
            )
        try:
            options[key] = accepted[key](value)
        except ValueError:
            raise UnknownGameError(f"option {key} of {name} must be an integer, got {value!r}") from None
    try:
        return GAMES[name](**options)
    except ValueError as err:
        raise UnknownGameError(str(err)) from None


__all__ = [
    "GAMES",
    "GameError",
    "GameOverError",
    "GameState",
    "IllegalMoveError",
    "Kernel",
    "MoveParseError",
    "PositionParseError",
    "UnknownGameError",
    "new_game",
]
