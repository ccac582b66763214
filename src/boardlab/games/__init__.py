"""Game rules. Each game is a :class:`Game` (its options and metadata) making immutable
:class:`State` objects, with a compiled :class:`Kernel` for searches and learners.

Build games from specs: ``parse_game("connect4:width=8,height=7")`` gives the Game,
``new_game("quixo:size=4")`` its starting position. Adding a game is its module and one
entry in :data:`GAMES`; the conformance suite in ``tests/`` then checks it.
"""

from __future__ import annotations

import importlib
from typing import Any

from boardlab.core.spec import SpecError, build_options, split_spec
from boardlab.games.base import (
    DRAW,
    LOSS,
    ONGOING,
    WIN,
    Game,
    GameError,
    GameOptionError,
    GameOverError,
    IllegalMoveError,
    Kernel,
    MoveParseError,
    Outcome,
    PositionParseError,
    Reason,
    State,
)

UnknownGameError = GameOptionError

GAMES: dict[str, str] = {
    "quixo": "boardlab.games.quixo:Quixo",
    "connect4": "boardlab.games.connect4:ConnectFour",
    "tictactoe": "boardlab.games.tictactoe:TicTacToe",
    "nim": "boardlab.games.nim:Nim",
}
"""Registered games: name -> ``module:GameClass``."""


def game_class(name: str) -> type[Game]:
    """The Game class registered under ``name``."""
    key = name.strip().lower()
    if key not in GAMES:
        raise GameOptionError(f"unknown game {key!r}; known games: {', '.join(sorted(GAMES))}")
    module, _, attr = GAMES[key].partition(":")
    cls: type[Game] = getattr(importlib.import_module(module), attr)
    return cls


def available_games() -> list[str]:
    """Names of the registered games whose module is present, sorted."""
    names = []
    for name in sorted(GAMES):
        try:
            game_class(name)
        except ImportError:
            continue
        names.append(name)
    return names


def parse_game(spec: str | Game = "quixo") -> Game:
    """The Game of a spec such as ``quixo``, ``quixo:size=4`` or ``nim:piles=3-4-5,misere=false``."""
    if isinstance(spec, Game):
        return spec
    try:
        name, texts = split_spec(spec)
        cls = game_class(name)
        return build_options(cls, name, texts)
    except GameOptionError:
        raise
    except SpecError as err:
        raise GameOptionError(str(err)) from None


def new_game(spec: str | Game = "quixo") -> Any:
    """The starting position of the game of ``spec``."""
    return parse_game(spec).initial()


__all__ = [
    "DRAW",
    "GAMES",
    "LOSS",
    "ONGOING",
    "WIN",
    "Game",
    "GameError",
    "GameOptionError",
    "GameOverError",
    "IllegalMoveError",
    "Kernel",
    "MoveParseError",
    "Outcome",
    "PositionParseError",
    "Reason",
    "State",
    "UnknownGameError",
    "available_games",
    "game_class",
    "new_game",
    "parse_game",
]
